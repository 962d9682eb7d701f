#!/usr/bin/env python3
"""Plots popebench results (matplotlib from Debian's python3-matplotlib).

  results/plot.py DIR [DIR ...] [--learned-above X]

For each DIR holding run JSON files (and, when complete, summary.json), writes:
  DIR/accuracy.png  test accuracy per PE: our mean and std over seeds (dots: each seed), the
                    paper's value beside it (only with a summary.json);
  DIR/curves.png    validation accuracy, training loss and validation loss against step, one
                    line per run (partial runs included, drawn dashed); on the accuracy panel
                    the chance level and, for Indirect Indexing, the plateau of a model that
                    finds the source letter but ignores the shift (plateau_levels.py).
A DIR holding extrapolation.json (`popebench extrapolate`) gets instead:
  DIR/extrapolation.png  accuracy against test length: each seed a thin line, the mean over
                         seeds a thick one per PE (the outcomes are bimodal: a band of +- std
                         would hide which seeds learned), the training range shaded, chance
                         dotted; with --learned-above X the legend counts, per PE, the seeds
                         above X % at the training length (e.g. 40 on associative recall,
                         whose plateau is ~31 %);
  DIR/curves.png         the learning curves of its runs (DIR/runs/).
Reads schema version 1 (results/SCHEMA.md) and refuses newer files.
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "indirect_indexing"))
from json_input import fail, load_json, version_readable  # noqa: E402
from plot_common import pyplot_or_exit  # noqa: E402
from plateau_levels import plateau_levels  # noqa: E402

plt = pyplot_or_exit("plot.py", __doc__)

SCHEMA_VERSION = 1
COLORS = {"pope": "#1f77b4", "pope-delta0": "#17becf", "rope": "#d62728", "rope+pi": "#ff7f0e",
          "rope+ntk": "#e377c2", "none": "#7f7f7f", "alibi": "#2ca02c", "alibi-half": "#98df8a",
          "rope-half": "#9467bd", "rope-half+pi": "#c5b0d5", "rope-half+ntk": "#f7b6d2", "learned": "#8c564b",
          "sinusoidal": "#bcbd22"}
# The summary tables' row order (models/summary.cpp: the paper's Table 1, then its Table 9);
# other PEs follow by name. Legends list runs in this order, as the tables do.
TABLE_ORDER = ["rope", "pope", "rope-half", "alibi-half", "learned", "sinusoidal"]


def table_rank(pe):
    return (TABLE_ORDER.index(pe), "") if pe in TABLE_ORDER else (len(TABLE_ORDER), pe)


def load(path, kind):
    """The file's JSON if it is of schema kind, None if it is another popebench file (a folder
    holds runs, summaries and tables side by side); bad JSON or a newer version exits 2."""
    doc = load_json(path, "plot.py")
    if doc.get("schema") != kind:
        return None
    if not version_readable(doc, SCHEMA_VERSION):
        fail("plot.py", f"{path}: schema version {doc.get('schema_version')!r} is newer than this script reads")
    return doc


def save(fig, path):
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, path)
    print("wrote", path)


def plot_accuracy(d, summary, runs):
    rows = summary["rows"]
    fig, ax = plt.subplots(figsize=(1.8 + 1.6 * len(rows), 3.6))
    for i, r in enumerate(rows):
        c = COLORS.get(r["pe"], "k")
        # std is null (None) for a single run: no error bar rather than a zero-width one.
        ax.bar(i - 0.2, r["mean"], 0.38, yerr=r["std"], color=c, capsize=4, label="ours" if i == 0 else None)
        ax.scatter([i - 0.2] * len(r["test_acc"]), r["test_acc"], color="k", s=12, zorder=3)
        if r.get("paper"):
            ax.bar(i + 0.2, r["paper"]["mean"], 0.38, yerr=r["paper"]["std"], color=c, alpha=0.35, hatch="//",
                   capsize=4, label="paper" if i == 0 else None)
    ax.set_xticks(range(len(rows)), [f"{r['pe']} (n={r['n']})" for r in rows])
    ax.set_ylabel("test accuracy %")
    ax.set_ylim(0, 100)
    ax.set_title(summary.get("title", ""), fontsize=10)
    ax.legend(fontsize=8)
    save(fig, os.path.join(d, "accuracy.png"))


def chance(task):
    p = task["params"]
    return 1.0 / (p["values"] if task["name"] == "associative-recall" else p["alphabet"])


def reference_levels(ax, runs):
    """Chance, and Indirect Indexing's shift-blind plateau, when every run has the same task."""
    tasks = {json.dumps(r["config"]["task"], sort_keys=True) for r in runs}
    if len(tasks) != 1:
        return
    task = runs[0]["config"]["task"]
    ax.axhline(100 * chance(task), color="k", ls=":", lw=1, label=f"chance ({100 * chance(task):.1f} %)")
    if task["name"] == "indirect-indexing":
        p = task["params"]
        if not p.get("allow_zero_shift", False):  # plateau_levels.py models shifts without 0
            lv = plateau_levels(p["min_len"], p["max_len"], p["max_shift"], p.get("pair_draw", "joint"))
            acc = 100 * lv["source found, shift ignored"][1]
            ax.axhline(acc, color="k", ls="-.", lw=1, label=f"source found, shift ignored ({acc:.2f} %)")


def plot_curves(d, runs):
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(14, 3.6))
    def name(r):
        pe = r["config"]["pe"]
        return pe["kind"] + ("-delta0" if pe["kind"] == "pope" and pe.get("delta_init") == "zero" else "")
    for r in sorted(runs, key=lambda r: (table_rank(name(r)), r["config"]["train"]["seed"])):
        pe, seed = name(r), r["config"]["train"]["seed"]
        style = "-" if r["status"] == "complete" else "--"
        pts = r["curve"]
        steps = [p["step"] for p in pts]
        # one colour per PE, one marker per seed (the seeds of a PE share its colour)
        mark = dict(marker="osv^D<>"[seed % 7], markevery=max(1, len(pts) // 10), ms=3.5)
        a1.plot(steps, [100 * p["val_acc"] for p in pts], style, color=COLORS.get(pe, "k"), alpha=0.8, **mark,
                label=f"{pe} seed {seed}" + ("" if r["status"] == "complete" else " (partial)"))
        tl = [(p["step"], p["train_loss"]) for p in pts if p.get("train_loss") is not None]
        mark["markevery"] = max(1, len(tl) // 10)
        a2.plot([s for s, _ in tl], [v for _, v in tl], style, color=COLORS.get(pe, "k"), alpha=0.8, **mark)
        vl = [(p["step"], p["val_loss"]) for p in pts if p.get("val_loss") is not None]
        mark["markevery"] = max(1, len(vl) // 10)
        a3.plot([s for s, _ in vl], [v for _, v in vl], style, color=COLORS.get(pe, "k"), alpha=0.8, **mark)
    reference_levels(a1, runs)
    a1.set_xlabel("step")
    a1.set_ylabel("validation accuracy %")
    if len(runs) <= 10:
        a1.legend(fontsize=7)
    else:  # a legend of many runs would cover the curves: put it beside the last panel
        a3.legend(*a1.get_legend_handles_labels(), fontsize=6.5, ncol=(len(runs) + 15) // 16,
                  loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    a2.set_xlabel("step")
    a2.set_ylabel("train loss (mean since last point)")
    a3.set_xlabel("step")
    a3.set_ylabel("validation loss")
    # one scale for both losses, so that memorisation (train below validation) shows
    lo = min(a2.get_ylim()[0], a3.get_ylim()[0])
    hi = max(a2.get_ylim()[1], a3.get_ylim()[1])
    a2.set_ylim(lo, hi)
    a3.set_ylim(lo, hi)
    save(fig, os.path.join(d, "curves.png"))


def plot_extrapolation(d, ex, learned_above=None):
    buckets = ex["buckets"]
    x = [b["max_len"] for b in buckets]  # each bucket at its longest length
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    for row in ex["table"]:
        c = COLORS.get(row["label"], None)
        mean = row["mean"]
        style = "o--" if "half" in row["label"] else "o-"  # the paper's "half" baselines dashed
        factors = [b["factor"] for b in buckets]
        seeds = [r for r in ex.get("rows", []) if r["label"] == row["label"] and r["factors"] == factors]
        n = len(row["seeds"])
        label = f"{row['label']} (n={n})"
        if learned_above is not None and seeds:
            k = sum(100 * r["acc"][0] > learned_above for r in seeds)
            label = f"{row['label']}: {k} of {len(seeds)} above {learned_above:g} %"
        line, = ax.plot(x, mean, style, ms=3, lw=2, color=c, label=label)
        for r in seeds:
            ax.plot(x, [100 * a for a in r["acc"]], "-", lw=0.7, alpha=0.35, color=line.get_color())
    task = ex["task"]
    p = task["params"]
    ax.axvspan(p["min_len"], p["max_len"], color="k", alpha=0.08, label="training lengths")
    ax.axhline(100 * ex["chance"], color="k", ls=":", lw=1, label="chance")
    ax.set_xlabel("test length (" + ("pairs" if task["name"] == "associative-recall" else "symbols") +
                  "; each bucket at its longest)")
    ax.set_ylabel("test accuracy %")
    ax.set_ylim(0, 100)
    ax.set_xlim(0, max(x) * 1.02)
    ax.set_title(f"{task['name']}: trained on {p['min_len']}-{p['max_len']}, zero-shot longer", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    save(fig, os.path.join(d, "extrapolation.png"))


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
        ex_path = os.path.join(d, "extrapolation.json")
        if os.path.exists(ex_path):
            plot_extrapolation(d, load(ex_path, "popebench.extrapolation"), learned_above)
            runs = [r for r in (load(p, "popebench.run") for p in sorted(glob.glob(os.path.join(d, "runs", "*.json"))))
                    if r]
            if runs:
                plot_curves(d, runs)
            continue
        runs = [r for r in (load(p, "popebench.run") for p in sorted(glob.glob(os.path.join(d, "*.json")))) if r]
        if not runs:
            sys.exit(f"plot.py: no run JSON in {d}")
        summary_path = os.path.join(d, "summary.json")
        if os.path.exists(summary_path):
            plot_accuracy(d, load(summary_path, "popebench.summary"), runs)
        plot_curves(d, runs)


if __name__ == "__main__":
    main()
