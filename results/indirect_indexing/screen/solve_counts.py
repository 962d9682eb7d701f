#!/usr/bin/python3
"""Solve counts: how many runs of each PE learn Indirect Indexing, beside mean ± std, for the
recipe as written (the baseline, seeds 0-2 in ../paper_100k/ and seeds 3-5 in baseline_seeds/)
and for every screen cell whose runs trained to the end of their schedule.

  /usr/bin/python3 results/indirect_indexing/screen/solve_counts.py [SCREEN_DIR]

A run *solves* the task when its test accuracy at the end of its schedule is >= 50 % (PLAN.md,
change of 2026-12-06, fixed before the runs it counts: half-way between the 4.65 % plateau and a
full solve). Outcomes are bimodal, so a mean alone hides what happened; k of n does not.
Fisher's exact test (two-sided) compares PoPE's count with RoPE's, and PoPE's with the paper's
Table 1 (PoPE 3 of 3 seeds at 94.82 ± 2.91 %, RoPE 0 of 3 at 11.16 ± 2.45 %, so every paper
seed is on the same side of 50 %). Runs stopped early (the screen's 40,000-step stop) are not
counted: they never reached the end of their schedule.
Exit 2 with one line on bad input.
"""
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from screen_runs import BASELINE, by_pe, cells, complete, screen_dir_argument  # noqa: E402  (puts the repository root on the path)
from tools.compare_seeds import fisher_two_sided_p  # noqa: E402

SOLVED = 0.50                             # PLAN.md: test accuracy at the end of the schedule
PAPER = {"pope": (3, 3), "rope": (0, 3)}  # Table 1: solved seeds of seeds, read from its means ± std


def finished(runs):
    """The runs that trained to the end of their schedule, with their test accuracies."""
    return [r for r in runs if complete(r) and "test" in r.get("final", {})]


def baseline_runs(root):
    """{pe: runs}: seeds 0-2 of ../paper_100k/ and seeds 3- of baseline_seeds/paper/ in root."""
    base = dict(cells(root))[BASELINE]
    more = by_pe(glob.glob(os.path.join(root, "baseline_seeds", "paper", "*_seed*.json")))
    return {pe: sorted(base.get(pe, []) + more.get(pe, []), key=lambda r: r["config"]["train"]["seed"])
            for pe in ("rope", "pope")}


def row(name, pe, runs):
    accs = [r["final"]["test"]["acc"] for r in runs]
    k = sum(a >= SOLVED for a in accs)
    spread = f"{100 * statistics.mean(accs):.2f} ± {100 * statistics.stdev(accs):.2f}" if len(accs) > 1 else \
        f"{100 * accs[0]:.2f}"
    seeds = " / ".join(f"{100 * a:.2f}" for a in accs)
    steps = sorted({r["config"]["train"]["steps"] for r in runs})
    return k, len(accs), f"| {name} | {pe} | {'/'.join(str(r['config']['train']['seed']) for r in runs)} | " \
        f"{'/'.join(f'{s // 1000}k' for s in steps)} | {k} of {len(accs)} | {seeds} | {spread} |"


def main():
    root = screen_dir_argument("solve_counts.py")
    table = [("recipe as written", baseline_runs(root))] + [(n, r) for n, r in cells(root) if n != BASELINE]
    print(f"A run solves the task at test accuracy >= {100 * SOLVED:.0f} % at the end of its schedule; "
          "runs stopped at 40k are not counted. Fisher's exact test, two-sided.")
    print()
    print("| cell | PE | seeds | steps | solved | test accuracy per seed (%) | mean ± std (%) | ")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    tests = []
    for name, runs in table:
        counts = {}
        for pe in ("pope", "rope"):
            done = finished(runs.get(pe, []))
            if done:
                k, n, line = row(name, pe, done)
                counts[pe] = (k, n)
                print(line)
        if "pope" in counts:
            tests.append((name, counts))
    print()
    print("| cell | PoPE solved | RoPE solved | p, PoPE against RoPE | p, PoPE against the paper's 3 of 3 |")
    print("| --- | --- | --- | --- | --- |")
    for name, counts in tests:
        pk, pn = counts["pope"]
        vs_rope, rope = "-", "-"
        if "rope" in counts:
            rk, rn = counts["rope"]
            rope, vs_rope = f"{rk} of {rn}", f"{fisher_two_sided_p(pk, pn, rk, rn):.3g}"
        print(f"| {name} | {pk} of {pn} | {rope} | {vs_rope} | {fisher_two_sided_p(pk, pn, *PAPER['pope']):.3g} |")


if __name__ == "__main__":
    main()
