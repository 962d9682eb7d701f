"""Length extrapolation of checkpoints evaluated one by one (`popebench eval --checkpoint CKPT
--factors ...`, schema popebench.eval): every seed's test accuracy per length bucket for each
label (pope, rope, rope+pi, ...), as a Markdown table, and with --figure each seed as a line.
For trained runs whose checkpoints exist already (a sweep's); `extrapolate` writes the same
buckets for the runs it trains itself (extrapolation.json, tools/plot.py).

    /usr/bin/python3 -m tools.eval_extrapolation EVAL.json... [--figure OUT.png] [--title T]

Every file must be an eval JSON with an extrapolation section, and all must share the buckets
(factors, lengths, examples); otherwise exit 2 with one line. Accuracies are printed in %.
"""
import argparse
import os
import sys

from .json_input import load_json



def fail(msg):
    print(f"eval_extrapolation.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    e = load_json(path, "eval_extrapolation.py", "popebench.eval")
    if not isinstance(e.get("extrapolation"), dict) or not e["extrapolation"].get("rows"):
        fail(f"{path} has no extrapolation (was it evaluated with --factors?)")
    return e


def buckets_key(e):
    return [(b["factor"], b["min_len"], b["max_len"], b["examples"]) for b in e["extrapolation"]["buckets"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("evals", nargs="+")
    ap.add_argument("--figure", help="write accuracy against length, each seed a line, here (PNG, and PDF beside)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()
    evals = [(p, load(p)) for p in args.evals]
    key = buckets_key(evals[0][1])
    for p, e in evals[1:]:
        if buckets_key(e) != key:
            fail(f"{p} has other buckets than {evals[0][0]}")
    factors = [k[0] for k in key]
    chance = evals[0][1]["extrapolation"].get("chance")

    rows = {}  # label -> [(seed, acc list)]
    for p, e in evals:
        seed = e["config"]["train"]["seed"]
        for r in e["extrapolation"]["rows"]:
            if r["factors"] != factors:
                fail(f"{p}: row {r['label']} has factors {r['factors']}, not the buckets' {factors}")
            rows.setdefault(r["label"], []).append((seed, r["acc"]))
    for label in rows:
        seeds = [s for s, _ in rows[label]]
        if len(set(seeds)) != len(seeds):
            fail(f"label {label} has seed {max(seeds, key=seeds.count)} more than once")
        rows[label].sort()

    print(f"test accuracy % per length bucket ({key[0][3]} examples each"
          + (f"; chance {100 * chance:.1f} %" if chance else "") + ")")
    print()
    print("| PE | seed | " + " | ".join(f"{f}x" for f in factors) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in factors) + " |")
    for label, per_seed in rows.items():
        for seed, acc in per_seed:
            print(f"| {label} | {seed} | " + " | ".join(f"{100 * a:.1f}" for a in acc) + " |")

    if args.figure:
        from .plot_common import pyplot_or_exit
        plt = pyplot_or_exit("eval_extrapolation.py", __doc__)
        from . import figure_style as style
        fig, ax = plt.subplots(figsize=(7.2, 4.2))
        style.by_length(ax, factors, {label: [[100 * a for a in acc] for _, acc in per_seed]
                                      for label, per_seed in rows.items()}, 100 * chance if chance else None)
        if args.title:
            ax.set_title(args.title, fontsize=10)
        style.save(fig, args.figure)

if __name__ == "__main__":
    main()
