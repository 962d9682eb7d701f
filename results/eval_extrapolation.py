#!/usr/bin/python3
"""Length extrapolation of checkpoints evaluated one by one (`popebench eval --checkpoint CKPT
--factors ...`, schema popebench.eval): every seed's test accuracy per length bucket for each
label (pope, rope, rope+pi, ...), as a Markdown table, and with --figure each seed as a line.
For trained runs whose checkpoints exist already (a sweep's); `extrapolate` writes the same
buckets for the runs it trains itself (extrapolation.json, results/plot.py).

    /usr/bin/python3 results/eval_extrapolation.py EVAL.json... [--figure OUT.png] [--title T]

Every file must be an eval JSON with an extrapolation section, and all must share the buckets
(factors, lengths, examples); otherwise exit 2 with one line. Accuracies are printed in %.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_input import load_json  # noqa: E402



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
    ap.add_argument("--figure", help="write accuracy against length, each seed a line, here (PNG)")
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
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4.2))
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for i, (label, per_seed) in enumerate(rows.items()):
            for j, (seed, acc) in enumerate(per_seed):
                ax.plot(factors, [100 * a for a in acc], "-o", ms=3, lw=1, alpha=0.8, color=colors[i % len(colors)],
                        label=label if j == 0 else None)
        if chance:
            ax.axhline(100 * chance, ls=":", color="k", lw=1, label=f"chance ({100 * chance:.1f} %)")
        ax.set_xlabel("test length, multiple of the training maximum (bucket ((k-1)L, kL])")
        ax.set_ylabel("test accuracy %")
        ax.set_xticks(factors)
        ax.set_ylim(-2, 102)
        if args.title:
            ax.set_title(args.title, fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        # Written beside and renamed, so a failed write leaves no cut figure at the path.
        tmp = args.figure + ".tmp.png"
        try:
            os.makedirs(os.path.dirname(os.path.abspath(args.figure)), exist_ok=True)
            fig.savefig(tmp, dpi=120)
            os.replace(tmp, args.figure)
        except OSError as err:
            fail(f"cannot write the figure {args.figure}: {err.strerror or err}")
        print(f"\nwrote {args.figure}")


if __name__ == "__main__":
    main()
