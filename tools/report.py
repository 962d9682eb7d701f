"""Redraws every figure of results/ and rewrites every generated table of the Markdown files from
the committed JSON, all in one style (figure_style.py: a fixed colour per PE, logarithmic
accuracy axes with chance and the plateau drawn with their values, one legend entry per PE,
length in multiples of the training length on a log axis, PNG and PDF).

  /usr/bin/python3 -m tools.report [--out DIR] [--list] [--jobs N]

What it draws (the rules, so that a new result folder is drawn without being listed):
  - each folder holding run JSONs (results/SCHEMA.md) whose runs share one task: curves.png,
    and accuracy.png when it has a summary.json (plot.py). A folder of runs of several tasks is
    a set of probes, not one result: no figure;
  - each folder holding an extrapolation.json: extrapolation.png, and curves.png from its runs/;
    its legend counts the seeds that learned where the task has a registered threshold
    (LEARNED_ABOVE);
  - each folder holding eval JSONs with length buckets: extrapolation.png (eval_extrapolation.py);
  - each folder named frequency_usage* holding inspect JSONs: frequency_usage.png from all of
    them (frequency_usage.py);
  - the Indirect Indexing screen's overview.png and inspect/lookup_heads.png, and the inspect
    figures the READMEs show (INSPECT_FIGURES).
Then every generated table (readme_tables.py) is rewritten from what its command prints now.

--out DIR: the figures go to DIR under the same relative paths, nothing in results/ is written,
           and the tables are checked instead of rewritten (exit 1 naming a stale one).
--list:    print the figures it would draw and draw nothing.
--jobs N:  figures drawn at once (default: the number of CPUs).
Exit 0; 1 when a table is stale (with --out); 2 on bad input or a figure that cannot be drawn.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

from .json_input import json_base

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = sys.executable or "/usr/bin/python3"

# The accuracy (%) above which a run counts as having learned the task, by task: Indirect
# Indexing's solve threshold (screen/PLAN.md, registered before the runs it counts); associative
# recall's 40 % clears its plateau of ~31 % (length_extrapolation/README.md). Tasks not listed
# get no count.
LEARNED_ABOVE = {"indirect-indexing": 50, "associative-recall": 40}
SCREEN = os.path.join("results", "indirect_indexing", "screen")
INSPECT_FIGURES = [os.path.join(SCREEN, "inspect", "pair_shift_first", "pope_seed0.inspect.json.gz"),
                   os.path.join(SCREEN, "inspect", "pair_source_first", "rope_seed0.inspect.json.gz")]


def schema_of(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None, None
    return (doc.get("schema"), doc) if isinstance(doc, dict) else (None, None)


def figure_jobs():
    """[(kind, source, output relative to ROOT)], in path order."""
    by_dir = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "results", "**", "*.json"), recursive=True)):
        schema, doc = schema_of(path)
        if schema:
            by_dir.setdefault(os.path.dirname(os.path.relpath(path, ROOT)), []).append((schema, doc))
    jobs = []
    for d, docs in sorted(by_dir.items()):
        kinds = {s for s, _ in docs}
        parent_kinds = {s for s, _ in by_dir.get(os.path.dirname(d), [])}
        if os.path.basename(d) == "runs" and "popebench.extrapolation" in parent_kinds:
            continue  # drawn as its extrapolation folder's curves
        if "popebench.extrapolation" in kinds:
            ex = next(doc for s, doc in docs if s == "popebench.extrapolation")
            jobs.append(("folder", d, LEARNED_ABOVE.get(ex["task"]["name"])))
        elif "popebench.run" in kinds:
            tasks = {json.dumps(doc["config"]["task"], sort_keys=True) for s, doc in docs if s == "popebench.run"}
            if len(tasks) == 1:
                jobs.append(("folder", d, None))
        if any(s == "popebench.eval" and isinstance(doc.get("extrapolation"), dict) for s, doc in docs):
            jobs.append(("eval", d, None))
        if os.path.basename(d).startswith("frequency_usage") and "popebench.inspect" in kinds:
            jobs.append(("frequency", d, None))
    jobs.append(("overview", SCREEN, None))
    jobs.append(("lookup_heads", os.path.join(SCREEN, "inspect"), None))
    jobs += [("inspect", p, None) for p in INSPECT_FIGURES]
    return jobs


def outputs(job):
    kind, src, _ = job
    if kind == "folder":
        if os.path.exists(os.path.join(ROOT, src, "extrapolation.json")):
            names = ["extrapolation.png"] + (["curves.png"] if glob.glob(os.path.join(ROOT, src, "runs", "*.json")) else [])
        else:
            names = (["accuracy.png"] if os.path.exists(os.path.join(ROOT, src, "summary.json")) else []) + ["curves.png"]
        return [os.path.join(src, n) for n in names]
    if kind == "eval":
        return [os.path.join(src, "extrapolation.png")]
    if kind == "frequency":
        return [os.path.join(src, "frequency_usage.png")]
    if kind == "overview":
        return [os.path.join(src, "overview.png")]
    if kind == "lookup_heads":
        return [os.path.join(src, "lookup_heads.png")]
    return [json_base(src) + ".png"]  # X.inspect.json.gz -> X.inspect.png


def draw(job, out_root):
    """Draws one job's figures under out_root; returns (job, error message or None)."""
    kind, src, learned_above = job
    dest = os.path.join(out_root, src) if kind != "inspect" else os.path.join(out_root, os.path.dirname(src))
    os.makedirs(dest, exist_ok=True)
    # Every command runs from the repository root (ROOT): the tools as modules of this package,
    # the screen's two figure scripts as the files they still are.
    if kind == "folder":
        code = ("import sys; from tools import plot; "
                "plot.plot_folder(sys.argv[1], sys.argv[2], None if sys.argv[3] == '-' else float(sys.argv[3]))")
        cmd = [PY, "-c", code, os.path.join(ROOT, src), dest, "-" if learned_above is None else str(learned_above)]
    elif kind == "eval":
        evals = sorted(glob.glob(os.path.join(ROOT, src, "*.eval.json")))
        cmd = [PY, "-m", "tools.eval_extrapolation", *evals, "--figure", os.path.join(dest, "extrapolation.png")]
    elif kind == "frequency":
        files = sorted(glob.glob(os.path.join(ROOT, src, "*.inspect.json")))
        cmd = [PY, "-m", "tools.frequency_usage", *files, "--out", os.path.join(dest, "frequency_usage.png")]
    elif kind == "inspect":
        code = "import sys; from tools import plot_inspect; plot_inspect.plot(sys.argv[1], sys.argv[2])"
        cmd = [PY, "-c", code, os.path.join(ROOT, src), os.path.join(out_root, outputs(job)[0])]
    else:
        script = {"overview": "screen_overview.py", "lookup_heads": "lookup_heads.py"}[kind]
        cmd = [PY, os.path.join(ROOT, SCREEN, script), os.path.join(ROOT, src), "--out",
               os.path.join(out_root, outputs(job)[0])]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        return job, (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
    missing = [o for o in outputs(job) for f in (o, os.path.splitext(o)[0] + ".pdf")
               if not os.path.isfile(os.path.join(out_root, f))]
    return job, f"wrote no {missing[0]}" if missing else None


def fail(msg):
    print(f"report.py: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], usage="report.py [--out DIR] [--list] [--jobs N]")
    ap.add_argument("--out", help="draw into DIR instead of results/, and check the tables instead of writing them")
    ap.add_argument("--list", action="store_true", help="print the figures it would draw, draw nothing")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    if args.jobs < 1:
        fail("--jobs must be at least 1")
    jobs = figure_jobs()
    if args.list:
        for job in jobs:
            for o in outputs(job):
                print(o)
        return 0
    out_root = ROOT
    if args.out:
        out_root = os.path.abspath(args.out)
        if os.path.realpath(out_root) == os.path.realpath(ROOT) or \
                os.path.realpath(out_root).startswith(os.path.realpath(os.path.join(ROOT, "results")) + os.sep):
            fail("--out must be outside results/ (without --out the figures are redrawn in place)")
        os.makedirs(out_root, exist_ok=True)
    errors = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for job, err in pool.map(draw, jobs, [out_root] * len(jobs)):
            if err:
                errors.append(f"{job[1]}: {err}")
    n = sum(len(outputs(j)) for j in jobs)
    print(f"report.py: {n - len(errors)} of {n} figures drawn (PNG and PDF) under {out_root}")
    for e in errors:
        print(f"report.py: {e}", file=sys.stderr)
    tables = [PY, "-m", "tools.readme_tables"] + ([] if args.out else ["--write"])
    rc = subprocess.run(tables, cwd=ROOT).returncode
    if errors:
        return 2
    return rc


if __name__ == "__main__":
    sys.exit(main())
