"""The setup sweep's choice by the rule PLAN.md fixed before any run: a run learned the task when
its final test accuracy at the training lengths is >= 90 %; a cell qualifies when at least one PE
learned in at least 2 of its seeds; the chosen setup is the qualifying cell with the most learned
runs (both PEs together), a tie going to the cell with fewer parameters, then to the earlier cell
of the plan. Prints every run's number as a Markdown table, then the choice.

    /usr/bin/python3 -m tools.choose_setup \
        [--plan setup.json] [--runs runs/] [--logs runs/sweep_*.log ...]

RUNS holds one folder per cell with PE_seedN.json run JSONs (what `popebench sweep` writes). The
parameter counts, needed only to break a tie, come from the sweeps' logs ("CELL/PE/SEED: N
parameters"); a tie with no count for a tied cell is an error, not a guess. Only training-length
numbers are read: the sweep evaluates no other length. Exit 0 with a choice or with "no cell
qualifies"; 1 when a run of the plan is missing or unfinished; 2 on bad input.
"""
import argparse
import os
import re
import sys

from .json_input import load_json

LEARNED = 0.90    # final test accuracy at the training lengths
SEEDS_TO_QUALIFY = 2


def fail(msg, code=2):
    print(f"choose_setup.py: {msg}", file=sys.stderr)
    sys.exit(code)


def parameter_counts(logs):
    """{cell: parameters} from the sweeps' logs; PEs of a cell may differ by a few (PoPE's δ)."""
    counts = {}
    pat = re.compile(r"^popebench: ([^/\s]+)/([^/\s]+)/\d+: (\d+) parameters")
    for path in logs:
        try:
            with open(path) as f:
                for line in f:
                    m = pat.match(line)
                    if m:
                        counts[m.group(1)] = max(counts.get(m.group(1), 0), int(m.group(3)))
        except OSError as e:
            fail(f"cannot read log {path}: {e}")
    return counts


def main():
    # The setup sweep's folder (results/length_extrapolation/indirect_indexing_setup/) by default.
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results",
                        "length_extrapolation", "indirect_indexing_setup")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plan", default=os.path.join(here, "setup.json"))
    ap.add_argument("--runs", default=os.path.join(here, "runs"))
    ap.add_argument("--logs", nargs="*", default=None,
                    help="sweep logs with the parameter counts (default: RUNS/sweep_*.log)")
    args = ap.parse_args()
    plan = load_json(args.plan, "choose_setup.py")
    if not isinstance(plan, dict) or not isinstance(plan.get("cells"), list) or not plan["cells"]:
        fail(f"{args.plan} is not a sweep plan (no cells)")
    if not os.path.isdir(args.runs):
        fail(f"no runs folder {args.runs}")
    logs = args.logs
    if logs is None:
        logs = sorted(os.path.join(args.runs, f) for f in os.listdir(args.runs) if re.match(r"sweep.*\.log$", f))

    rows, cells, missing = [], [], []
    for order, cell in enumerate(plan["cells"]):
        name, pes, seeds = cell.get("name"), cell.get("pe"), cell.get("seeds")
        if not name or not isinstance(pes, list) or not isinstance(seeds, list):
            fail(f"{args.plan}: cell {order} has no name, pe list or seed list")
        learned = {}
        for pe in pes:
            learned[pe] = 0
            for seed in seeds:
                path = os.path.join(args.runs, name, f"{pe}_seed{seed}.json")
                if not os.path.exists(path):
                    missing.append(f"{name}/{pe}_seed{seed}")
                    continue
                run = load_json(path, "choose_setup.py")
                acc = ((run.get("final") or {}).get("test") or {}).get("acc")
                if run.get("status") != "complete" or acc is None:
                    missing.append(f"{name}/{pe}_seed{seed} ({run.get('status')})")
                    continue
                ok = acc >= LEARNED
                learned[pe] += ok
                rows.append((name, pe, seed, acc, run["final"]["test"].get("n"), ok))
        qualifies = any(n >= SEEDS_TO_QUALIFY for n in learned.values())
        cells.append({"name": name, "order": order, "learned": learned, "total": sum(learned.values()),
                      "qualifies": qualifies, "seeds": len(seeds), "seed_list": seeds})
    if missing:
        fail("runs missing or unfinished, no choice made: " + ", ".join(missing), code=1)

    print("| cell | PE | seed | test acc % at 1x | examples | learned (>= 90 %) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, pe, seed, acc, n, ok in rows:
        print(f"| {name} | {pe} | {seed} | {100 * acc:.2f} | {n} | {'yes' if ok else 'no'} |")
    print()
    print(f"| cell | learned runs (test accuracy >= {100 * LEARNED:.0f} % at 1x) "
          f"| qualifies (a PE in >= {SEEDS_TO_QUALIFY} of its seeds) |")
    print("| --- | --- | --- |")
    for c in cells:
        per_pe = ", ".join(f"{pe} {n} of {c['seeds']}" for pe, n in c["learned"].items())
        print(f"| {c['name']} | {per_pe} | {'yes' if c['qualifies'] else 'no'} |")
    print()
    # The same runs a cell a row: every seed's number side by side, PEs in the plan's order.
    pes = list(dict.fromkeys(pe for _, pe, _, _, _, _ in rows))
    seed_lists = {tuple(c["seed_list"]) for c in cells}
    seeds = ("seeds " + " / ".join(str(s) for s in seed_lists.pop())) if len(seed_lists) == 1 else "each cell's seeds in order"
    print("| cell | " + " | ".join(f"{pe} test acc % at 1x, {seeds}" for pe in pes) + " |")
    print("| --- |" + " --- |" * len(pes))
    for c in cells:
        accs = [" / ".join(f"{100 * acc:.2f}" for name, pe_, _, acc, _, _ in rows if name == c["name"] and pe_ == pe)
                or "-" for pe in pes]
        print(f"| {c['name']} | " + " | ".join(accs) + " |")
    print()

    qualifying = [c for c in cells if c["qualifies"]]
    if not qualifying:
        print("no cell qualifies: by PLAN.md the next sweep is added there before it runs")
        return
    best = max(c["total"] for c in qualifying)
    tied = [c for c in qualifying if c["total"] == best]
    why = f"the most learned runs ({best})"
    if len(tied) > 1:
        counts = parameter_counts(logs)
        unknown = [c["name"] for c in tied if c["name"] not in counts]
        if unknown:
            fail(f"a tie at {best} learned runs between {', '.join(c['name'] for c in tied)} needs the "
                 f"parameter counts of {', '.join(unknown)}, which no log given has (--logs)")
        fewest = min(counts[c["name"]] for c in tied)
        tied = [c for c in tied if counts[c["name"]] == fewest]
        why += f", then the fewest parameters ({fewest})"
        if len(tied) > 1:
            why += ", then the plan's order"
    chosen = min(tied, key=lambda c: c["order"])
    print(f"chosen: {chosen['name']} ({why})")


if __name__ == "__main__":
    main()
