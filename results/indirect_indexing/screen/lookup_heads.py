#!/usr/bin/python3
"""Accuracy against the lookup heads, over every `popebench inspect` JSON of the screen
(matplotlib). Left: the largest share of the answer position's attention that any one head puts
on the target letter. Right: the largest share of the query letter's attention that any one head
puts on the source letter (files written before inspect measured it are left out there). Each
inspected checkpoint is a point, RoPE and PoPE in their colours; the checkpoints of one run
followed along its training (`along/`) are joined in step order. The plateau (4.65 %) is drawn.
What it shows is the report's reading: the runs that leave the plateau are the ones that grow
such a head.

  /usr/bin/python3 results/indirect_indexing/screen/lookup_heads.py [INSPECT_DIR] [--out FILE]

INSPECT_DIR: default this folder's inspect/; FILE: default INSPECT_DIR/lookup_heads.png (and .pdf). Exit 2
on bad input (no inspect JSON, a file of another schema or a name that does not say its PE).
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))  # the repository root: the tools package (until this folder's scripts move into it)
from tools.json_input import glob_json, load_json  # noqa: E402
from tools.plot_common import pop_out, pyplot_or_exit  # noqa: E402
from tools.plateau_levels import plateau_levels  # noqa: E402

plt = pyplot_or_exit("lookup_heads.py", __doc__)
from tools import figure_style as style  # noqa: E402

PLATEAU = plateau_levels()["source found, shift ignored"][1]
COLOURS = {pe: style.pe_colour(pe) for pe in ("rope", "pope")}
NAME = re.compile(r"^(rope|pope)_seed(\d+)(?:\.step(\d+))?\.inspect\.json(?:\.gz)?$")


def fail(msg):
    print(f"lookup_heads.py: {msg}", file=sys.stderr)
    sys.exit(2)


def largest(layers, kind):
    return max(h[kind] for layer in layers for h in layer["heads"])


def points(inspect_dir):
    """[(run key, PE, step, accuracy, max target mass, max query-to-source mass or None)]."""
    out = []
    paths = glob_json(os.path.join(inspect_dir, "**", "*.inspect.json"), recursive=True)
    if not paths:
        fail(f"no *.inspect.json under {inspect_dir}")
    for p in paths:
        m = NAME.match(os.path.basename(p))
        if not m:
            fail(f"{p}: the name does not say its PE and seed (PE_seedN[.stepS].inspect.json)")
        d = load_json(p, "lookup_heads.py", "popebench.inspect")
        r = d["result"]
        q = largest(r["attention_from_query"]["layers"], "source") if "attention_from_query" in r else None
        run = os.path.join(os.path.dirname(p), f"{m.group(1)}_seed{m.group(2)}")  # a run's along/ files share it
        out.append((run, m.group(1), d["step"], 100 * r["acc"], 100 * largest(r["attention_from_answer"]["layers"], "target"),
                    None if q is None else 100 * q))
    return out


def main():
    args = sys.argv[1:]
    out = pop_out(args, "lookup_heads.py")
    if len(args) > 1 or (args and args[0].startswith("-")):
        fail(f"unexpected arguments {' '.join(args)} (see --help)")
    inspect_dir = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "inspect")
    if not os.path.isdir(inspect_dir):
        fail(f"{inspect_dir} is not a folder")
    out = out or os.path.join(inspect_dir, "lookup_heads.png")
    if not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        fail(f"{out}: its folder does not exist")
    pts = points(inspect_dir)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
    panels = [(4, "largest share of the answer position's attention\non the target letter, any one head (%)"),
              (5, "largest share of the query letter's attention\non the source letter, any one head (%)")]
    for ax, (col, label) in zip(axes, panels):
        runs = {}
        for p in pts:
            if p[col] is not None:
                runs.setdefault(p[0], []).append(p)
        for run, ps in runs.items():
            ps.sort(key=lambda p: p[2])
            pe = ps[0][1]
            if len(ps) > 1:
                ax.plot([p[col] for p in ps], style.clip_accuracy([p[3] for p in ps]), color=COLOURS[pe], alpha=0.5, lw=1)
            ax.scatter([p[col] for p in ps], style.clip_accuracy([p[3] for p in ps]), color=COLOURS[pe], s=14, alpha=0.8)
        ax.set_xlabel(label)
        ax.set_xlim(0, 100)
        ax.grid(alpha=0.3)
        n = sum(len(v) for v in runs.values())
        ax.set_title(f"{n} inspected checkpoints", fontsize=10)
    style.accuracy_axis(axes[0], "y", "accuracy on the inspected test examples %")
    for ax in axes:
        style.levels(ax, plateau=100 * PLATEAU, plateau_name="plateau, source found, shift ignored")
    handles = style.pe_legend_handles(COLOURS) + axes[0].get_legend_handles_labels()[0][:1]
    style.legend_beside(axes[1], handles)
    fig.suptitle("Indirect Indexing screen: accuracy against the lookup heads (lines: one run followed along training)",
                 fontsize=10)
    fig.tight_layout()
    style.save(fig, out)


if __name__ == "__main__":
    main()
