#!/usr/bin/python3
"""The screen's table (PLAN.md, "What is measured"), from the run JSONs: for each cell and PE,
how many runs escaped the plateau (validation accuracy >= 6 %) and when, validation accuracy at
40,000 steps, training accuracy (on the answer, the training batches of the last logged steps) at
each run's last evaluation, and for runs that reached 100,000 steps their test accuracy, with the
mean and sample standard deviation when every run of the row did. The baseline row is the
committed Table 1 runs (../paper_100k/).

  /usr/bin/python3 results/indirect_indexing/screen/screen_table.py [SCREEN_DIR]

SCREEN_DIR holds one folder per stage, each with one folder per cell (default: this folder), or
is the --out folder of a `popebench sweep` of the plan (one folder per cell).
"""
import os
import statistics
import sys

from screen_runs import cells, complete, escape_step, val_at, HERE

root = sys.argv[1] if len(sys.argv) > 1 else HERE
if not os.path.isdir(root):
    sys.exit(f"screen_table.py: {root} is not a directory")


def row(name, by_pe):
    out = []
    for pe, runs in by_pe.items():
        seeds, escapes, v40, test, train_end = [], [], [], [], []
        for r in runs:
            seeds.append(str(r["config"]["train"]["seed"]))
            curve = r["curve"]
            escapes.append(escape_step(r))
            at40 = val_at(r, 40000)
            v40.append(f"{100 * at40:.2f}" if at40 is not None else "-")
            test.append(f"{100 * r['final']['test']['acc']:.2f}" if complete(r) else "-")
            last_train = next((p["train_acc"] for p in reversed(curve) if p.get("train_acc") is not None), None)
            train_end.append("-" if last_train is None else f"{100 * last_train:.1f}")
        n_esc = sum(e is not None for e in escapes)
        # a run stopped early (the plan's stop at 40k) did not escape "by" its last step; a finished one "never"
        esc_s = " / ".join((f"not by {r.get('steps_done', 0) // 1000}k" if not complete(r) else "never")
                           if e is None else f"{e // 1000}k" for e, r in zip(escapes, runs))
        steps = max(r.get("steps_done", r["config"]["train"]["steps"]) if not complete(r)
                    else r["config"]["train"]["steps"] for r in runs)
        done = [r["final"]["test"]["acc"] for r in runs if complete(r)]
        mean = (f"{100 * statistics.mean(done):.2f} ± {100 * statistics.stdev(done):.2f}"
                if len(done) == len(runs) and len(done) >= 2 else "-")
        out.append(f"| {name} | {pe} | {'/'.join(seeds)} | {steps // 1000}k | {n_esc} of {len(runs)} | {esc_s} | "
                   f"{' / '.join(v40)} | {' / '.join(train_end)} | {' / '.join(test)} | {mean} |")
    return out


lines = [line for name, runs in cells(root) for line in row(name, runs)]  # every file read before a line is printed
print("| cell | PE | seeds | trained to | escaped (val acc >= 6 %) | escape step | val acc % at 40k | "
      "train acc % at the end | test acc % | test mean ± std |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
if lines:
    print("\n".join(lines))
