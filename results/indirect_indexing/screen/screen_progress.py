#!/usr/bin/python3
"""How far the screen is, from the plan (screen.json) and the committed run JSONs: the stage-1
cells done (each PE the plan gives the cell has runs of the cell's first two seeds, each trained
at least to the 40,000-step stop every cell trains to), the cells of which one PE's half is
done, the runs committed short of the stop (a device command that ran out of time: they count
as runs, not as a half done), the cells not started, and the run JSONs committed under stage*/
(each a run as it stands, to 40,000 or to 100,000 steps). The report's and the top-level
README's counts come from here; with --check they are compared with what those files say.

  /usr/bin/python3 results/indirect_indexing/screen/screen_progress.py [--check]

Stage 2 (stage2.json, runs in stage2/) is counted the same way: a cell is done when every PE it
lists has its first two seeds at the stop. --check exits 1, naming the file, when the screen
report (README.md here) does not say "(D of N stage-1 cells", "E of M stage-2 cells" and "R
committed runs", or the top-level README does not say "Of the D+E readings", "D of N stage-1
cells", "E of M stage-2 cells" and "R committed runs", with this script's counts.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))  # the repository root: the tools package (until this folder's scripts move into it)
from tools.json_input import load_json  # noqa: E402
from screen_runs import HERE, RECIPE_STEPS, STAGES, complete, stop_of  # noqa: E402


def progress(root=HERE, stage="stage1"):
    plan = load_json(os.path.join(root, dict(STAGES)[stage]), "screen_progress.py")
    done, half, todo, short = [], [], [], []
    for cell in plan["cells"]:
        folder = os.path.join(root, stage, cell["name"])
        have = {}
        stop = stop_of(cell_steps(plan, cell))
        for pe in cell["pe"]:
            seeds = cell["seeds"][:2]
            steps = [steps_done(os.path.join(folder, f"{pe}_seed{s}.json")) for s in seeds]
            short += [(cell["name"], pe, s, n, stop) for s, n in zip(seeds, steps) if n is not None and n < stop]
            have[pe] = all(n is not None and n >= stop for n in steps)
        if all(have.values()):
            done.append(cell["name"])
        elif any(have.values()):
            half.append((cell["name"], [pe for pe, ok in have.items() if ok]))
        elif not any(c == cell["name"] for c, *_ in short):
            todo.append(cell["name"])
    runs = len(glob.glob(os.path.join(root, "stage*", "*", "*_seed*.json")))
    return {"stage": stage, "cells": len(plan["cells"]), "done": done, "half": half, "todo": todo, "short": short,
            "runs": runs}


def cell_steps(plan, cell):
    """The schedule's steps of a plan's cell: its own --steps, else the plan's, else the recipe's."""
    steps = RECIPE_STEPS
    for args in (plan.get("args", []), cell.get("args", [])):
        if "--steps" in args[:-1]:
            steps = int(args[args.index("--steps") + 1])
    return steps


def steps_done(path):
    """The steps a committed run trained (a complete run counts as reaching every stop), or None
    when there is no such run."""
    if not os.path.exists(path):
        return None
    run = load_json(path, "screen_progress.py")
    return float("inf") if complete(run) else run["steps_done"]


def flat(path):
    with open(path) as f:
        return re.sub(r"\s+", " ", f.read())


def check(p1, p2):
    """p1, p2: progress() of stage 1 and stage 2."""
    report, top = os.path.join(HERE, "README.md"), os.path.join(HERE, "..", "..", "..", "README.md")
    d1, d2 = len(p1["done"]), len(p2["done"])
    wants = [(report, f"({d1} of {p1['cells']} stage-1 cells"), (report, f"{d2} of {p2['cells']} stage-2 cells"),
             (report, f"{p1['runs']} committed runs"),
             (top, f"Of the {d1 + d2} readings"), (top, f"{d1} of {p1['cells']} stage-1 cells"),
             (top, f"{d2} of {p2['cells']} stage-2 cells"), (top, f"{p1['runs']} committed runs")]
    bad = [f"{os.path.relpath(path)} does not say '{w}'" for path, w in wants if w not in flat(path)]
    for b in bad:
        print(f"screen_progress.py: {b}", file=sys.stderr)
    return not bad


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1] != "--check"):
        sys.exit("usage: screen_progress.py [--check]")
    stages = [progress(stage=stage) for stage, _ in STAGES]
    for p in stages:
        n = p["stage"][-1]
        print(f"stage-{n} cells done: {len(p['done'])} of {p['cells']}")
        for name, pes in p["half"]:
            print(f"half done: {name} ({', '.join(pes)})")
        for name, pe, seed, steps, stop in p["short"]:
            print(f"short of the {stop:,}-step stop: {name} {pe} seed {seed} ({steps:,} steps)")
        print(f"not started: {', '.join(p['todo']) or 'none'}")
    print(f"committed runs: {stages[0]['runs']}")
    if len(sys.argv) == 2 and not check(*stages):
        sys.exit(1)


if __name__ == "__main__":
    main()
