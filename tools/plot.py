"""Plots popebench results (matplotlib from Debian's python3-matplotlib).

  /usr/bin/python3 -m tools.plot DIR [DIR ...] [--learned-above X]

For each DIR holding run JSON files (and, when complete, summary.json), writes:
  DIR/accuracy.png  test accuracy per PE: each seed a point, our mean +- std across them, the
                    paper's beside it where the summary's task is the paper's (only with a
                    summary.json);
  DIR/curves.png    validation accuracy, training loss and validation loss against step, each
                    run a thin line of its PE's colour (partial runs dashed), one legend entry
                    per PE; on the accuracy panel the chance level and, for Indirect Indexing,
                    the plateau of a model that finds the source letter but ignores the shift
                    (plateau_levels.py).
A DIR holding extrapolation.json (`popebench extrapolate`) gets instead:
  DIR/extrapolation.png  accuracy against test length in multiples of the training maximum (log
                         axis): each seed a thin line, the mean over seeds a thick one per PE
                         (the outcomes are bimodal: a band of +- std would hide which seeds
                         learned), up to the training length shaded, chance dotted; with --learned-above X the legend counts, per PE, the seeds
                         above X % at the training length (e.g. 40 on associative recall,
                         whose plateau is ~31 %);
  DIR/curves.png         the learning curves of its runs (DIR/runs/).
Accuracy axes are logarithmic, every figure is written as PNG and PDF, colours are fixed per PE
(figure_style.py, the style of every figure; tools/report.py redraws them all). Reads schema
version 1 (results/SCHEMA.md) and refuses newer files.
"""
import glob
import json
import os
import sys

from .json_input import fail, load_json, version_readable
from .plot_common import pyplot_or_exit
from .plateau_levels import plateau_levels

plt = pyplot_or_exit("plot.py", __doc__)
from . import figure_style as style

SCHEMA_VERSION = 1


def load(path, kind):
    """The file's JSON if it is of schema kind, None if it is another popebench file (a folder
    holds runs, summaries and tables side by side); bad JSON or a newer version exits 2."""
    doc = load_json(path, "plot.py")
    if doc.get("schema") != kind:
        return None
    if not version_readable(doc, SCHEMA_VERSION):
        fail("plot.py", f"{path}: schema version {doc.get('schema_version')!r} is newer than this script reads")
    return doc


def chance(task):
    p = task["params"]
    if task["name"] == "text":
        return 1.0 / 256  # bytes
    return 1.0 / (p["values"] if task["name"] == "associative-recall" else p["alphabet"])


def task_levels(task):
    """(chance, plateau) in % for a task; the plateau is Indirect Indexing's shift-blind one (the
    source letter found, the shift ignored), None for other tasks."""
    plateau = None
    if task["name"] == "indirect-indexing":
        p = task["params"]
        if not p.get("allow_zero_shift", False):  # plateau_levels.py models shifts without 0
            lv = plateau_levels(p["min_len"], p["max_len"], p["max_shift"], p.get("pair_draw", "joint"))
            plateau = 100 * lv["source found, shift ignored"][1]
    return 100 * chance(task), plateau


def common_task(runs):
    """The runs' task when they all share one, else None (then no levels are drawn)."""
    tasks = {json.dumps(r["config"]["task"], sort_keys=True) for r in runs}
    return runs[0]["config"]["task"] if len(tasks) == 1 else None


PLATEAU_NAME = "source found, shift ignored"
table_rank = style.table_rank  # the legends' and tables' PE order


def plot_accuracy(out_dir, summary, runs):
    """Test accuracy per PE: each seed a point, the mean a bar across them with +- std, the
    paper's mean +- std beside it where the summary's task is the paper's."""
    rows = sorted(summary["rows"], key=lambda r: style.table_rank(r["pe"]))
    fig, ax = plt.subplots(figsize=(1.6 + 1.2 * len(rows), 3.8))
    for i, r in enumerate(rows):
        c = style.pe_colour(r["pe"])
        xs = [i - 0.12 + 0.24 * (k / max(1, len(r["test_acc"]) - 1)) for k in range(len(r["test_acc"]))]
        ax.scatter(xs, style.clip_accuracy(r["test_acc"]), color=c, s=18, zorder=3,
                   label="ours: a seed" if i == 0 else None)
        mean = max(style.ACC_FLOOR, r["mean"])
        # std is null for a single run: no whisker. On the log axis a whisker ends at the floor.
        err = None if r["std"] is None else [[min(r["std"], mean - style.ACC_FLOOR)], [r["std"]]]
        ax.errorbar([i], [mean], yerr=err, fmt="_", ms=28, mew=2.5, color=c, zorder=4,
                    label="ours: mean +- std" if i == 0 else None)
        if r.get("paper"):
            ax.errorbar([i + 0.35], [r["paper"]["mean"]], yerr=[r["paper"]["std"]], fmt="D", ms=5, mfc="white",
                        color=c, capsize=3, label="paper: mean +- std" if i == 0 else None)
    ax.set_xticks(range(len(rows)), [f"{r['pe']}\n(n={r['n']})" for r in rows])
    ax.set_xlim(-0.6, len(rows) - 0.4)
    style.accuracy_axis(ax, "y", "test accuracy %")
    task = common_task(runs) if runs else None
    if task is not None:
        ch, plateau = task_levels(task)
        style.levels(ax, ch, plateau, plateau_name=PLATEAU_NAME)
    ax.set_title(summary.get("title", ""), fontsize=10)
    style.legend_beside(ax)
    style.save(fig, os.path.join(out_dir, "accuracy.png"))


def run_label(r):
    pe = r["config"]["pe"]
    return pe["kind"] + ("-delta0" if pe["kind"] == "pope" and pe.get("delta_init") == "zero" else "")


def plot_curves(out_dir, runs):
    """Validation accuracy (log) and both losses against step: each run a thin line of its PE's
    colour (partial runs dashed), one legend entry per PE."""
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(14, 3.6))
    # The text task: validation bits per byte in the first panel (every point has them).
    bits = all("val_bits_per_byte" in p for r in runs for p in r["curve"]) and any(r["curve"] for r in runs)
    per_pe = {}
    for r in sorted(runs, key=lambda r: (style.table_rank(run_label(r)), r["config"]["train"]["seed"])):
        pe = run_label(r)
        per_pe.setdefault(pe, []).append(r)
        ls = "-" if r["status"] == "complete" else "--"
        kw = dict(ls=ls, lw=0.9, alpha=0.75, color=style.pe_colour(pe))
        pts = r["curve"]
        if bits:
            a1.plot([p["step"] for p in pts], [p["val_bits_per_byte"] for p in pts], **kw)
        else:
            a1.plot([p["step"] for p in pts], style.clip_accuracy([100 * p["val_acc"] for p in pts]), **kw)
        for ax, key in ((a2, "train_loss"), (a3, "val_loss")):
            xy = [(p["step"], p[key]) for p in pts if p.get(key) is not None]
            ax.plot([s for s, _ in xy], [v for _, v in xy], **kw)
    task = common_task(runs)
    if bits:
        a1.set_ylabel("validation bits per byte")
    else:
        style.accuracy_axis(a1, "y", "validation accuracy %")
    if task is not None and not bits:
        ch, plateau = task_levels(task)
        style.levels(a1, ch, plateau, plateau_name=PLATEAU_NAME)
    a1.set_xlabel("step")
    a2.set_xlabel("step")
    a2.set_ylabel("train loss (mean since last point)")
    a3.set_xlabel("step")
    a3.set_ylabel("validation loss")
    # one scale for both losses, so that memorisation (train below validation) shows
    lo = min(a2.get_ylim()[0], a3.get_ylim()[0])
    hi = max(a2.get_ylim()[1], a3.get_ylim()[1])
    a2.set_ylim(lo, hi)
    a3.set_ylim(lo, hi)
    counts = {}
    for pe, rs in per_pe.items():
        partial = sum(r["status"] != "complete" for r in rs)
        counts[pe] = f"{len(rs)} run{'s' if len(rs) != 1 else ''}" + (f" ({partial} partial, dashed)" if partial else "")
    handles = style.pe_legend_handles(per_pe, counts) + a1.get_legend_handles_labels()[0]
    style.legend_beside(a3, handles)
    style.save(fig, os.path.join(out_dir, "curves.png"))


def plot_extrapolation(out_dir, ex, learned_above=None):
    factors = [b["factor"] for b in ex["buckets"]]
    # The text task's tables summarise bits per byte (each table row says its metric), the others accuracy.
    bits = any(row.get("metric") == "bits_per_byte" for row in ex["table"])
    seeds_by_pe = {}
    for row in sorted(ex["table"], key=lambda row: style.table_rank(row["label"])):
        seeds = [r["bits_per_byte"] if bits else [100 * a for a in r["acc"]] for r in ex.get("rows", [])
                 if r["label"] == row["label"] and r["factors"] == factors]
        seeds_by_pe[row["label"]] = seeds or [row["mean"]]
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    style.by_length(ax, factors, seeds_by_pe, 100 * ex["chance"], learned_above, bits=bits)
    task = ex["task"]
    p = task["params"]
    unit = {"associative-recall": "pairs", "text": "bytes"}.get(task["name"], "symbols")
    ax.set_title(f"{task['name']}: trained on {p['min_len']}-{p['max_len']} {unit}, tested zero-shot longer",
                 fontsize=10)
    style.save(fig, os.path.join(out_dir, "extrapolation.png"))


def plot_folder(d, out_dir=None, learned_above=None):
    """Every figure of one results folder, into out_dir (default: the folder itself). Returns the
    number of figures written; exits 2 when the folder holds nothing to draw."""
    out_dir = out_dir or d
    n = 0
    ex_path = os.path.join(d, "extrapolation.json")
    if os.path.exists(ex_path):
        plot_extrapolation(out_dir, load(ex_path, "popebench.extrapolation"), learned_above)
        n += 1
        runs = [r for r in (load(p, "popebench.run") for p in sorted(glob.glob(os.path.join(d, "runs", "*.json"))))
                if r]
        if runs:
            plot_curves(out_dir, runs)
            n += 1
        return n
    runs = [r for r in (load(p, "popebench.run") for p in sorted(glob.glob(os.path.join(d, "*.json")))) if r]
    if not runs:
        sys.exit(f"plot.py: no run JSON in {d}")
    summary_path = os.path.join(d, "summary.json")
    if os.path.exists(summary_path):
        plot_accuracy(out_dir, load(summary_path, "popebench.summary"), runs)
        n += 1
    plot_curves(out_dir, runs)
    return n + 1


def main():
    args = sys.argv[1:]
    learned_above = None
    if "--learned-above" in args:
        i = args.index("--learned-above")
        try:
            learned_above = float(args[i + 1])
        except (IndexError, ValueError):
            sys.exit("plot.py: --learned-above needs a number (percent)")
        if not 0 <= learned_above <= 100:
            sys.exit("plot.py: --learned-above must be between 0 and 100")
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    for d in args:
        if not os.path.isdir(d):
            sys.exit(f"plot.py: {d} is not a directory")
        plot_folder(d, learned_above=learned_above)


if __name__ == "__main__":
    main()
