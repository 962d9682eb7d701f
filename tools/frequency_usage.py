"""Which frequencies attention uses (the PoPE paper's frequency-usage analysis), from the
`frequency_usage` section of `popebench inspect` JSON files: per layer, the mean magnitude q and
k carry on each frequency (RoPE: the norm of each rotated channel pair; PoPE: the softplus
magnitude mu), averaged over heads and divided by its mean over the layer's frequencies (the two
measures have different scales; the shape over frequencies is what compares), against the
frequency in rad per position on a log axis. Each file a line in its PE's colour
(figure_style.py); with PoPE files, a last panel draws PoPE's delta per frequency (mean over heads
and layers). Prints, per file and layer, the mean magnitude of the quarter of frequencies with the
highest theta over that of the quarter with the lowest (above 1: the fast frequencies carry more),
as a Markdown table.

  /usr/bin/python3 -m tools.frequency_usage FILE.inspect.json[.gz] [...] [--out FIGURE.png]

With --out, writes FIGURE.png and FIGURE.pdf. Exit 2 with one line on bad input: a file that is not an
inspect JSON, one without a frequency_usage section (a PE without frequencies, or written before
inspect measured it), or files of different depths.
"""
import os
import sys

from .json_input import fail as fail_as, load_json
from .plot_common import pop_out, pyplot_or_exit

plt = pyplot_or_exit("frequency_usage.py", __doc__)
from . import figure_style as style


def fail(msg):
    fail_as("frequency_usage.py", msg)


def mean_over_heads(rows):
    return [sum(h[f] for h in rows) / len(rows) for f in range(len(rows[0]))]


def main():
    files = sys.argv[1:]
    out = pop_out(files, "frequency_usage.py")
    if not files:
        fail("no inspect JSON given")
    docs = []
    for p in files:
        d = load_json(p, "frequency_usage.py", "popebench.inspect")
        fu = d.get("result", {}).get("frequency_usage")
        if not isinstance(fu, dict):
            fail(f"{p} has no frequency_usage (a PE without frequencies, or written before inspect measured it)")
        cfg = d["config"]
        docs.append((p, cfg["pe"]["kind"], cfg["train"]["seed"], fu))
    depths = {len(fu["layers"]) for _, _, _, fu in docs}
    if len(depths) != 1:
        fail(f"the files have different numbers of layers ({sorted(depths)})")
    L = depths.pop()
    docs.sort(key=lambda x: (style.table_rank(x[1]), x[2]))
    print_table(docs)
    if out:
        draw(docs, L, out)


def relative(values):
    m = sum(values) / len(values)
    return [v / m for v in values] if m > 0 else values


def high_over_low(theta, values):
    """Mean over the quarter of frequencies with the highest theta / over the lowest quarter."""
    order = sorted(range(len(theta)), key=lambda f: theta[f])
    n = max(1, len(theta) // 4)
    lo = sum(values[f] for f in order[:n]) / n
    hi = sum(values[f] for f in order[-n:]) / n
    return hi / lo if lo > 0 else float("inf")


def print_table(docs):
    print("| run | layer | q: fastest / slowest quarter | k: fastest / slowest quarter |")
    print("| --- | --- | --- | --- |")
    for p, pe, seed, fu in docs:
        for layer in fu["layers"]:
            q, k = mean_over_heads(layer["q"]), mean_over_heads(layer["k"])
            print(f"| {pe} seed {seed} | {layer['layer']} | {high_over_low(fu['theta'], q):.2f} | "
                  f"{high_over_low(fu['theta'], k):.2f} |")


def draw(docs, L, out):
    with_delta = any("delta" in fu["layers"][0] for _, _, _, fu in docs)
    cols = L + (1 if with_delta else 0)
    fig, axes = plt.subplots(2, cols, figsize=(3.4 * cols + 1.5, 6.2), squeeze=False)
    seeds = {}
    for p, pe, seed, fu in docs:
        c = style.pe_colour(pe)
        theta = fu["theta"]
        order = sorted(range(len(theta)), key=lambda f: theta[f])
        x = [theta[f] for f in order]
        for l, layer in enumerate(fu["layers"]):
            for row, key in enumerate(("q", "k")):
                y = relative(mean_over_heads(layer[key]))
                axes[row][l].plot(x, [y[f] for f in order], "-o", ms=2.5, lw=1, color=c, alpha=0.8)
        seeds[pe] = seeds.get(pe, 0) + 1
        if "delta" in fu["layers"][0]:
            d = [sum(mean_over_heads(layer["delta"])[f] for layer in fu["layers"]) / L for f in range(len(theta))]
            axes[0][L].plot(x, [d[f] for f in order], "-o", ms=2.5, lw=1, color=c, alpha=0.8)
    for l in range(L):
        for row, key in enumerate(("q", "k")):
            ax = axes[row][l]
            ax.set_xscale("log")
            ax.set_title(f"layer {l}: {key}", fontsize=9)
            ax.set_xlabel("frequency theta (rad per position, log)", fontsize=8)
            if l == 0:
                ax.set_ylabel("magnitude / its mean over frequencies", fontsize=8)
            ax.axhline(1, color="k", lw=0.5, ls=":")
    if with_delta:
        axes[0][L].set_xscale("log")
        axes[0][L].set_title("PoPE's delta (mean over heads and layers)", fontsize=9)
        axes[0][L].set_xlabel("frequency theta (rad per position, log)", fontsize=8)
        axes[0][L].set_ylim(-2 * 3.14159265, 0)
        axes[1][L].axis("off")
    measures = "; ".join(sorted({f"{pe}: {fu['measure']}" for _, pe, _, fu in docs}))
    fig.suptitle(f"Frequency usage ({measures})", fontsize=9)
    style.legend_beside(axes[0][cols - 1], style.pe_legend_handles(seeds, {pe: f"{n} run{'s' if n != 1 else ''}"
                                                                         for pe, n in seeds.items()}))
    fig.tight_layout()
    style.save(fig, out)


if __name__ == "__main__":
    main()
