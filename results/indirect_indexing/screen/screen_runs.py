"""The screen's runs as the table and the overview figure read them: the baseline (the committed
Table 1 runs, ../paper_100k/) and every cell of every stage, each PE's runs in seed order, plus
the plan's measures of a run (PLAN.md, "What is measured")."""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))  # the repository root: the tools package (until this folder's scripts move into it)
from tools.json_input import load_json  # noqa: E402

ESCAPE = 0.06  # PLAN.md: the plateau is 4.65 %; no baseline run is above 5.4 % before it escapes
STOP_AT = 40000  # PLAN.md: every run trains to 40,000 steps first and stops there if it has not escaped
RECIPE_STEPS = 100000  # the recipe's schedule; a cell with another (budget_200k) stops at the same share


def stop_of(steps):
    """The early stop of a schedule of `steps` steps: 40,000 of the recipe's 100,000, and the same
    share of any other (PLAN.md: budget_200k's 200,000-step schedule stops at 80,000)."""
    return STOP_AT * steps // RECIPE_STEPS


def run_stop(run):
    return stop_of(run["config"]["train"]["steps"])
HERE = os.path.dirname(os.path.abspath(__file__))
BASELINE = "baseline (paper_100k)"
STAGES = [("stage1", "screen.json"), ("stage2", "stage2.json")]  # (folder of runs, plan)


def planned_pes(root):
    """{cell: the PEs its plan registers} over every stage's plan found in root (none for a sweep's
    --out folder): a PE registered but without runs is pending, not one the baseline stands for."""
    out = {}
    for _, plan in STAGES:
        path = os.path.join(root, plan)
        if os.path.exists(path):
            out.update({c["name"]: set(c["pe"]) for c in load_json(path, "screen_runs.py")["cells"]})
    return out


def by_pe(files):
    """{pe: runs in seed order} for the RoPE and PoPE run JSONs among files, in that PE order."""
    runs = {}
    for f in sorted(files):
        r = load_json(f, schema="popebench.run")
        runs.setdefault(r["config"]["pe"]["kind"], []).append(r)
    return {pe: sorted(runs[pe], key=lambda r: r["config"]["train"]["seed"]) for pe in ("rope", "pope") if pe in runs}


def cells(root):
    """[(name, {pe: runs})]: the baseline, then each cell of root. root holds one folder per
    stage (stage*/), each with one folder per cell, or is a sweep's --out folder of cells."""
    base = [f for f in glob.glob(os.path.join(HERE, "..", "paper_100k", "*_seed*.json"))
            if os.path.basename(f).split("_seed")[0] in ("rope", "pope")]
    out = [(BASELINE, by_pe(base))]
    for stage in sorted(d for d in glob.glob(os.path.join(root, "stage*")) if os.path.isdir(d)) or [root]:
        for cell in sorted(d for d in glob.glob(os.path.join(stage, "*")) if os.path.isdir(d)):
            runs = by_pe(glob.glob(os.path.join(cell, "*_seed*.json")))
            if runs:
                out.append((os.path.basename(cell), runs))
    return out


def escape_step(run):
    """The first evaluated step with validation accuracy >= ESCAPE, or None."""
    return next((p["step"] for p in run["curve"] if p["val_acc"] >= ESCAPE), None)


def val_at(run, step):
    """Validation accuracy at that evaluated step, or None."""
    return next((p["val_acc"] for p in run["curve"] if p["step"] == step), None)


def screen_dir_argument(script):
    """The optional SCREEN_DIR argument of a screen script (default: this folder); a bad one ends
    the script with one line and exit 2."""
    args = sys.argv[1:]
    problem = None
    if len(args) > 1 or (args and args[0].startswith("-")):
        problem = f"usage: {script} [SCREEN_DIR]"
    elif args and not os.path.isdir(args[0]):
        problem = f"{args[0]} is not a folder"
    if problem:
        print(f"{script}: {problem}", file=sys.stderr)
        sys.exit(2)
    return args[0] if args else HERE


def complete(run):
    return run.get("status") == "complete"
