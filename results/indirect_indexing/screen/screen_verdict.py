#!/usr/bin/python3
"""PLAN.md's decision rules applied to the committed runs, one row per cell: whether the cell
moves each PE, whether it continues to 100,000 steps, and whether it reproduces Table 1. Every
verdict is computed here from the run JSONs by the rules as registered, none typed by hand.

  /usr/bin/python3 results/indirect_indexing/screen/screen_verdict.py [SCREEN_DIR]

The rules (PLAN.md, "Decision rules"):
- a run escapes the plateau at the first evaluation with validation accuracy >= 6 %;
- a cell in which any run escapes by 40,000 steps continues to 100,000 for both PEs, with seeds
  0-2; otherwise each PE is "no move, stopped at 40k" (a cell with a longer schedule stops at
  the same share of it, budget_200k at 80,000, and continues to its own end);
- a cell moves a PE if one of its runs of that PE escapes before 40,000 steps, or ends at 100,000
  with test accuracy >= the best baseline seed of that PE + 20 points;
- a cell reproduces the paper if, over seeds 0-2 at 100,000 steps, PoPE's mean test accuracy is
  >= 90 % and RoPE's <= 20 %.
A cell that trains PoPE only (its plan lists no RoPE runs for it) takes the baseline's RoPE runs
for RoPE, as the plan says; one whose plan lists RoPE runs not yet trained is pending. "pending" marks a verdict that waits for runs not yet trained.
Exit 2 with one line on bad input (no screen folder, an unreadable run JSON).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from screen_runs import BASELINE, cells, planned_pes, complete, escape_step, run_stop, screen_dir_argument  # noqa: E402

FULL = 100000            # the recipe's steps: a continued cell's runs train to here
MOVE_POINTS = 0.20       # a PE moves at 100,000 with its best baseline seed + 20 points
REPRODUCE_POPE = 0.90    # reproduction: PoPE's mean test accuracy at least this
REPRODUCE_ROPE = 0.20    # and RoPE's at most this
SEEDS = 3                # seeds 0-2 at 100,000 steps


def fail(msg):
    print(f"screen_verdict.py: {msg}", file=sys.stderr)
    sys.exit(2)


def pct(x):
    return f"{100 * x:.2f}"


def at_full(runs):
    """The test accuracies of seeds 0-2 if all three trained to the end, else None."""
    done = [r for r in runs if complete(r) and r["config"]["train"]["steps"] >= FULL]
    seeds = sorted(r["config"]["train"]["seed"] for r in done)
    if seeds[:SEEDS] != list(range(SEEDS)):
        return None
    return [r["final"]["test"]["acc"] for r in sorted(done, key=lambda r: r["config"]["train"]["seed"])[:SEEDS]]


def escaped_by_stop(runs):
    return [e for r in runs for e in [escape_step(r)] if e is not None and e <= run_stop(r)]


def pe_verdict(runs, bar, continues):
    """(escaped by the stop, verdict) for one PE of a cell. The stop is 40k, or the same share of
    a longer schedule (budget_200k: 80k)."""
    escapes = [escape_step(r) for r in runs]
    count = f"{sum(e is not None and e <= run_stop(r) for r, e in zip(runs, escapes))} of {len(runs)}"
    early = [(r["config"]["train"]["seed"], e) for r, e in zip(runs, escapes) if e is not None and e < run_stop(r)]
    stop = f"{max(run_stop(r) for r in runs) // 1000}k"
    if early:
        return count, f"moves: escape before {stop} (" + ", ".join(f"seed {s} at {e // 1000}k" for s, e in early) + ")"
    if not continues:
        if reached_stop(runs):
            return count, f"no move, stopped at {stop}"
        return count, f"pending ({stop} not reached)"
    accs = at_full(runs)
    if accs is None:
        return count, "pending (continues to 100k)"
    best = max(accs)
    if best >= bar:
        return count, f"moves: test {pct(best)} % >= {pct(bar)} %"
    return count, f"no move at 100k (best {pct(best)} % < {pct(bar)} %)"


def reached_stop(runs):
    return all(complete(r) or r.get("steps_done", 0) >= run_stop(r) for r in runs)


def reproduces(pope_runs, rope_runs, continues):
    if not continues:
        stop = max(run_stop(r) for r in pope_runs or rope_runs) // 1000
        return f"no (stopped at {stop}k)" if reached_stop(pope_runs) and reached_stop(rope_runs) else "pending"
    pope, rope = at_full(pope_runs), at_full(rope_runs)
    if pope is None or rope is None:
        return "pending"
    ok = statistics.mean(pope) >= REPRODUCE_POPE and statistics.mean(rope) <= REPRODUCE_ROPE
    return f"{'yes' if ok else 'no'}: PoPE {pct(statistics.mean(pope))} %, RoPE {pct(statistics.mean(rope))} %"


def main():
    root = screen_dir_argument("screen_verdict.py")
    table = cells(root)
    baseline = dict(table)[BASELINE]
    if set(baseline) != {"rope", "pope"} or any(at_full(baseline[pe]) is None for pe in baseline):
        fail("the baseline (../paper_100k) lacks RoPE's or PoPE's seeds 0-2 at 100,000 steps")
    bar = {pe: max(at_full(baseline[pe])) + MOVE_POINTS for pe in baseline}
    planned = planned_pes(root)
    rows = []
    for name, runs in table:
        if name == BASELINE:
            continue
        continues = any(escaped_by_stop(rs) for rs in runs.values())
        cols = []
        for pe in ("pope", "rope"):
            if pe in runs:
                cols += pe_verdict(runs[pe], bar[pe], continues)
            elif pe in planned.get(name, ()):
                cols += ["-", "pending (not run yet)"]
            else:
                cols += ["-", "baseline's runs stand"]
        rope_runs = runs.get("rope", [] if "rope" in planned.get(name, ()) else baseline["rope"])
        rows.append(f"| {name} | {' | '.join(cols)} | {'yes' if continues else 'no'} | "
                    f"{reproduces(runs.get('pope', []), rope_runs, continues)} |")
    print(f"Bars: a cell moves PoPE at 100,000 steps with test accuracy >= {pct(bar['pope'])} %, RoPE with >= "
          f"{pct(bar['rope'])} % (the best baseline seed + 20 points); it reproduces Table 1 with PoPE's mean >= "
          f"{pct(REPRODUCE_POPE)} % and RoPE's <= {pct(REPRODUCE_ROPE)} % over seeds 0-2.")
    print()
    print("| cell | PoPE escaped by 40k | PoPE | RoPE escaped by 40k | RoPE | continues to 100k | reproduces Table 1 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
