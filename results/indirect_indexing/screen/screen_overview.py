#!/usr/bin/python3
"""The screen at a glance (matplotlib): one row per cell (the baseline first), each seed a point.
Left panel: validation accuracy at 40,000 steps, the plan's early stop, where every cell has its
runs. Right panel: test accuracy at 100,000 steps, for the runs that went there. RoPE and PoPE
side by side in each row; the plateau (4.65 %), the escape threshold (6 %) and, on the right, the
paper's Table 1 means (from ../paper_100k/summary.json) drawn. Log scale,
so that the plateau's 4-6 % stays readable beside the runs that learned (~99 %).

  /usr/bin/python3 results/indirect_indexing/screen/screen_overview.py [SCREEN_DIR] [--out FILE]

SCREEN_DIR as for screen_table.py (default: this folder); FILE default SCREEN_DIR/overview.png (and
the same name .pdf; colours and lines as every figure's, tools/figure_style.py).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))  # the repository root: the tools package (until this folder's scripts move into it)
from tools.json_input import load_json  # noqa: E402
from tools.plot_common import pop_out, pyplot_or_exit  # noqa: E402
from tools.plateau_levels import plateau_levels  # noqa: E402

plt = pyplot_or_exit("screen_overview.py", __doc__)
from tools import figure_style as style  # noqa: E402
from screen_runs import ESCAPE, HERE, cells, complete, val_at  # noqa: E402

# The paper task's plateau (the source found, the shift ignored; joint draw: 4.65 %).
PLATEAU = plateau_levels()["source found, shift ignored"][1]
COLOURS = {pe: style.pe_colour(pe) for pe in ("rope", "pope")}
OFFSET = {"rope": -0.15, "pope": 0.15}

args = sys.argv[1:]
out = pop_out(args, "screen_overview.py")
if len(args) > 1 or (args and args[0].startswith("-")):
    sys.exit(f"screen_overview.py: unexpected arguments {' '.join(args)} (see --help)")
root = args[0] if args else HERE
if not os.path.isdir(root):
    sys.exit(f"screen_overview.py: {root} is not a directory")
out = out or os.path.join(root, "overview.png")

rows = cells(root)
fig, axes = plt.subplots(1, 2, figsize=(12, 0.38 * len(rows) + 1.6), sharey=True)
for ax, title in zip(axes, ("validation accuracy at 40,000 steps", "test accuracy at 100,000 steps")):
    ax.set_xscale("log")
    ax.set_xlim(3, 120)
    ax.axvline(100 * PLATEAU, color="grey", lw=0.8, ls=":")
    ax.axvline(100 * ESCAPE, color="grey", lw=0.8, ls="--")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("accuracy % (log scale; dotted: the plateau 4.65 %, dashed: escape 6 %)", fontsize=8)
    ax.set_xticks([3, 4, 5, 6, 8, 10, 20, 50, 100])
    ax.set_xticklabels(["3", "4", "5", "6", "8", "10", "20", "50", "100"])
    ax.grid(axis="y", lw=0.3)
summary = load_json(os.path.join(HERE, "..", "paper_100k", "summary.json"), "screen_overview.py", "popebench.summary")
paper = {r["pe"]: r["paper"]["mean"] for r in summary["rows"] if r["pe"] in COLOURS and r.get("paper")}
for pe, mean in paper.items():
    axes[1].axvline(mean, color=COLOURS[pe], lw=1.0, alpha=0.6, label=f"paper's {pe} mean")
axes[1].legend(loc="center right", fontsize=8)
seen = set()
for y, (name, by_pe) in enumerate(rows):
    for pe, runs in by_pe.items():
        at40 = [100 * v for v in (val_at(r, 40000) for r in runs) if v is not None]
        done = [100 * r["final"]["test"]["acc"] for r in runs if complete(r)]
        for ax, xs in ((axes[0], at40), (axes[1], done)):
            label = pe if pe not in seen else None
            ax.scatter(xs, [y + OFFSET[pe]] * len(xs), s=18, color=COLOURS[pe], label=label, zorder=3)
        seen.add(pe)
axes[0].set_yticks(range(len(rows)))
axes[0].set_yticklabels([name for name, _ in rows], fontsize=8)
axes[0].invert_yaxis()
axes[0].legend(loc="lower right", fontsize=8)
fig.suptitle("Indirect Indexing screen: each point one seed (PLAN.md)", fontsize=11)
fig.tight_layout()
style.save(fig, out)
