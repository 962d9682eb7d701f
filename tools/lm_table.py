"""The text task's extrapolation table and the plan's verdicts (PLAN.md, "What is measured, and
what counts"), from the base models' merged table (BASE: `popebench merge` of base_call.sh's parts,
extrapolation.json) and the fine-tuned models' evaluations (finetune_call.sh: FINETUNE_DIR/
*.eval.json, `eval --factors ... --factor-of L`).

  /usr/bin/python3 -m tools.lm_table BASE.json FINETUNE_DIR [--figure OUT.png]

Prints, as Markdown: bits per byte at each evaluation length k L, mean ± sample std over seeds,
one row per label (base models, the RoPE base models with test-time PI, NTK and YaRN, and the
fine-tuned models, "(fine-tuned at 4L)"); then per row how many seeds *hold* at each k (bits per
byte at k L at most 5 % above the same model's at 1 L) and hold to 10 L (at every k); then the
plan's two verdicts: the paper's claim holds here if every PoPE seed holds to 10 L and no RoPE
seed does; YaRN's part holds if every fine-tuned RoPE + YaRN seed holds to 4 L and none to 10 L.
With --figure: bits per byte against the evaluation length, a line per label (the mean; seeds
thin), fine-tuned models dashed, L and 4 L marked. Exit 2 with one line on bad input.
"""
import glob
import os
import statistics
import sys

from .json_input import fail as fail_as, load_json

HOLD = 1.05            # PLAN.md: bits per byte at k L at most 5 % above the model's own at 1 L
FINETUNED = " (fine-tuned at 4L)"


def fail(msg):
    fail_as("lm_table.py", msg)


def bits_rows(rows, where, suffix=""):
    """{label: {seed: [bits per byte per factor]}} from extrapolation rows."""
    out = {}
    for r in rows:
        if not isinstance(r, dict) or "bits_per_byte" not in r:
            fail(f"{where}: a row without bits_per_byte (not the text task?)")
        label = r.get("label", "?") + suffix
        seed = r.get("seed")
        if seed in out.setdefault(label, {}):
            fail(f"{where}: {label} seed {seed} appears twice")
        out[label][seed] = r["bits_per_byte"]
    return out


def load(base_path, ft_dir):
    base = load_json(base_path, "lm_table.py", "popebench.extrapolation")
    factors = [b["factor"] for b in base.get("buckets", [])]
    if not factors or factors[0] != 1:
        fail(f"{base_path}: its buckets do not start at 1 L")
    table = bits_rows(base.get("rows", []), base_path)
    files = sorted(glob.glob(os.path.join(ft_dir, "*.eval.json")))
    if not files:
        fail(f"{ft_dir} holds no *.eval.json (finetune_call.sh's evaluations)")
    for f in files:
        e = load_json(f, "lm_table.py", "popebench.eval")
        ex = e.get("extrapolation")
        if not isinstance(ex, dict) or [b["factor"] for b in ex.get("buckets", [])] != factors:
            fail(f"{f}: not evaluated at the base table's factors {factors} (eval --factors ... --factor-of L)")
        # A fine-tuned RoPE model keeps the scaling it was trained with (its rows say "rope").
        pe = e.get("config", {}).get("pe", {})
        scaling = pe.get("rope_scaling", "none") if isinstance(pe, dict) else "none"
        suffix = ("+" + scaling if scaling != "none" else "") + FINETUNED
        for label, seeds in bits_rows(ex.get("rows", []), f, suffix).items():
            for seed, bits in seeds.items():
                if seed in table.setdefault(label, {}):
                    fail(f"{f}: {label} seed {seed} appears twice")
                table[label][seed] = bits
    return factors, table


def holds_at(bits):
    return [b <= HOLD * bits[0] for b in bits]


def fmt(values):
    if len(values) == 1:
        return f"{values[0]:.3f}"
    return f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f}"


def seeds_holding(table, label, upto):
    """How many of label's seeds hold at every factor up to index upto (None: no such rows)."""
    seeds = table.get(label)
    return None if not seeds else sum(all(holds_at(b)[:upto + 1]) for b in seeds.values())


def main():
    args, figure = sys.argv[1:], None
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return
    if "--figure" in args:
        i = args.index("--figure")
        if i + 1 >= len(args):
            fail("--figure needs a file name")
        figure = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        fail("usage: lm_table.py BASE.json FINETUNE_DIR [--figure OUT.png]")
    factors, table = load(*args)
    labels = list(table)
    lines = ["| model | seeds | " + " | ".join(f"{k}L" for k in factors) + " |",
             "| --- | --- |" + " --- |" * len(factors)]
    for label in labels:
        seeds = table[label]
        cols = [fmt([b[i] for b in seeds.values()]) for i in range(len(factors))]
        lines.append(f"| {label} | {len(seeds)} | " + " | ".join(cols) + " |")
    lines += ["", "Seeds that hold (bits per byte at k L <= 1.05 x their own at 1 L):", "",
              "| model | " + " | ".join(f"{k}L" for k in factors) + f" | to {factors[-1]}L |",
              "| --- |" + " --- |" * (len(factors) + 1)]
    last = len(factors) - 1
    for label in labels:
        seeds = table[label]
        n = len(seeds)
        cols = [f"{sum(holds_at(b)[i] for b in seeds.values())} of {n}" for i in range(len(factors))]
        whole = sum(all(holds_at(b)) for b in seeds.values())
        lines.append(f"| {label} | " + " | ".join(cols) + f" | {whole} of {n} |")
    lines += [""]
    pope, rope = seeds_holding(table, "pope-delta0", last), seeds_holding(table, "rope", last)
    if pope is not None and rope is not None:
        n_pope, n_rope = len(table["pope-delta0"]), len(table["rope"])
        holds = pope == n_pope and rope == 0
        lines.append(f"The paper's claim (every PoPE seed holds to {factors[-1]}L, no RoPE seed does): "
                     f"PoPE {pope} of {n_pope}, RoPE {rope} of {n_rope}: **{'holds' if holds else 'does not hold'}** here.")
    yarn = "rope+yarn" + FINETUNED
    if 4 in factors and table.get(yarn):
        to4, to10, n = seeds_holding(table, yarn, factors.index(4)), seeds_holding(table, yarn, last), len(table[yarn])
        holds = to4 == n and to10 == 0
        lines.append(f"YaRN's part (every fine-tuned RoPE + YaRN seed holds to 4L, none to {factors[-1]}L): "
                     f"{to4} of {n} to 4L, {to10} of {n} to {factors[-1]}L: **{'holds' if holds else 'does not hold'}** here.")
    print("\n".join(lines))
    if figure:
        draw(factors, table, figure)


def draw(factors, table, path):
    from .plot_common import pyplot_or_exit
    plt = pyplot_or_exit("lm_table.py", __doc__)
    from . import figure_style as style
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    from matplotlib.lines import Line2D
    handles = []
    for label, seeds in table.items():
        base = label[:-len(FINETUNED)] if label.endswith(FINETUNED) else label
        c, ls = style.pe_colour(base), "--" if label.endswith(FINETUNED) else "-"
        for bits in seeds.values():
            ax.plot(factors, bits, ls, lw=0.8, alpha=0.4, color=c)
        mean = [statistics.mean(b[i] for b in seeds.values()) for i in range(len(factors))]
        ax.plot(factors, mean, ls, marker="o", ms=3, lw=2, color=c)
        handles.append(Line2D([], [], color=c, ls=ls, lw=2, label=f"{label}: {len(seeds)} seeds"))
    for k, name in ((1, "L (trained)"), (4, "4L (fine-tuned)")):
        if k in factors:
            ax.axvline(k, color="k", ls=":", lw=1)
            ax.text(k, 1.0, name, transform=ax.get_xaxis_transform(), fontsize=7, ha="center", va="bottom")
    style.length_axis(ax, factors)
    ax.set_xlabel("evaluation window, multiple of the training window L (log scale)")
    ax.set_ylabel("test bits per byte (lower is better)")
    style.legend_beside(ax, handles)
    style.save(fig, path)


if __name__ == "__main__":
    main()
