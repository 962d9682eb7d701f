"""Figures of `popebench inspect` JSON files (matplotlib from Debian's python3-matplotlib).

  /usr/bin/python3 -m tools.plot_inspect FILE.json [FILE.json ...]

For each FILE.json writes FILE.png (and FILE.pdf) beside it, three panels:
  accuracy by shift (bars; the number of examples of each shift above them),
  attention mass from the answer position on the source letter and on the target, per layer
  (rows) and head (columns), as two heat maps with a shared colour scale.
Reads schema "popebench.inspect" version 1 (results/SCHEMA.md) and refuses anything else.
"""
import os
import sys

from .json_input import json_base, load_json
from .plot_common import pyplot_or_exit

plt = pyplot_or_exit("plot_inspect.py", __doc__)
from . import figure_style as style


def fail(msg):
    print(f"plot_inspect.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    d = load_json(path, "plot_inspect.py", "popebench.inspect")
    if d.get("schema_version") != 1:
        fail(f"{path}: not a popebench.inspect file of schema version 1")
    return d


def plot(path, out=None):
    """FILE.json's figure into out (default FILE.png beside it; a PDF of the same name too)."""
    d = load(path)
    r = d["result"]
    cfg = d["config"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    shifts = sorted(r["by_shift"], key=int)
    acc = [100 * r["by_shift"][s]["acc"] for s in shifts]
    ax = axes[0]
    ax.bar([int(s) for s in shifts], acc, color=style.pe_colour(cfg["pe"]["kind"]))
    ax.set_xlabel("shift")
    ax.set_ylabel(f"{d['split']} accuracy %")
    ax.set_title(f"{cfg['pe']['kind']} seed {cfg['train']['seed']}, step {d['step']}: {100 * r['acc']:.2f} %")
    layers = r["attention_from_answer"]["layers"]
    for ax, kind in zip(axes[1:], ("source", "target")):
        grid = [[h[kind] for h in layer["heads"]] for layer in layers]
        im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(grid[0])))
        ax.set_yticks(range(len(grid)))
        ax.set_xlabel("head")
        ax.set_ylabel("layer")
        ax.set_title(f"attention from the answer on the {kind}")
        fig.colorbar(im, ax=ax)
    fig.tight_layout()
    style.save(fig, out or json_base(path) + ".png")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        fail("usage: plot_inspect.py FILE.json [FILE.json ...]")
    for p in sys.argv[1:]:
        plot(p)
