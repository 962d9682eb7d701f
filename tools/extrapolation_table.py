"""An extrapolation table (`popebench extrapolate` or `merge`: extrapolation.json) cut to the
length buckets a README shows: per label, test accuracy % as mean ± sample std over seeds (the
mean alone for one seed), with the bucket's lengths in the header of the first two and the last
column. The READMEs show extrapolation folders through this script (tools/readme_tables.py
checks them); extrapolation.md beside the JSON has every bucket.

  /usr/bin/python3 -m tools.extrapolation_table DIR_OR_JSON [--factors 1,2,3,4,5,10] [--labels A,B,...] [--per-seed]

--labels picks the rows and their order (default: every label, in the file's order); --per-seed
gives each seed its own row (what a mean hides when some seeds learn and others do not). Exit 2 with
one line on a file that is no extrapolation table, a factor it has no bucket for, or an unknown
label.
"""
import argparse
import os
import sys

from .json_input import load_json



def fail(msg):
    print(f"extrapolation_table.py: {msg}", file=sys.stderr)
    sys.exit(2)


def int_list(text, what):
    try:
        out = [int(x) for x in text.split(",")]
    except ValueError:
        fail(f"{what} must be comma-separated integers (got '{text}')")
    if not out or len(set(out)) != len(out):
        fail(f"{what} must name each value once (got '{text}')")
    return out


def main():
    out = []  # the table's lines, printed only once the whole table is made
    try:
        table(out)
    except (KeyError, TypeError, IndexError, ValueError) as e:
        fail(f"the file is not an extrapolation table as popebench writes it ({type(e).__name__}: {e})")
    print("\n".join(out))


def table(out):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", help="an extrapolate folder or its extrapolation.json")
    ap.add_argument("--factors", default="1,2,3,4,5,10", help="the buckets to show, as multiples of the training length")
    ap.add_argument("--labels", help="the rows to show, in this order (default: all)")
    ap.add_argument("--per-seed", action="store_true", help="a row per label and seed instead of mean ± std")
    a = ap.parse_args()
    path = os.path.join(a.path, "extrapolation.json") if os.path.isdir(a.path) else a.path
    x = load_json(path, "extrapolation_table.py", "popebench.extrapolation")
    if not x.get("table"):
        fail(f"{path} is not an extrapolation table (schema popebench.extrapolation)")
    factors = int_list(a.factors, "--factors")
    buckets = {b["factor"]: b for b in x["buckets"]}
    missing = [f for f in factors if f not in buckets]
    if missing:
        fail(f"{path} has no bucket for factor {missing[0]} (it has {sorted(buckets)})")
    rows = {r["label"]: r for r in x["table"]}
    labels = list(rows) if a.labels is None else a.labels.split(",")
    unknown = [l for l in labels if l not in rows]
    if unknown:
        fail(f"{path} has no label '{unknown[0]}' (it has {', '.join(rows)})")

    unit = " pairs" if x.get("task", {}).get("name") == "associative-recall" else ""
    head = []
    for i, f in enumerate(factors):
        b = buckets[f]
        shown = i < 2 or i == len(factors) - 1
        head.append(f"{f}x ({b['min_len']}-{b['max_len']}{unit if i == 0 else ''})" if shown else f"{f}x")
    if a.per_seed:
        out.append("| PE | seed | " + " | ".join(head) + " |")
        out.append("| --- | --- |" + " --- |" * len(factors))
        for label in labels:
            for r in sorted((r for r in x["rows"] if r["label"] == label), key=lambda r: r["seed"]):
                at = {f: k for k, f in enumerate(r["factors"])}
                cells = [f"{100 * r['acc'][at[f]]:.1f}" if f in at else "-" for f in factors]
                out.append(f"| {label} | {r['seed']} | " + " | ".join(cells) + " |")
        return
    out.append("| PE | " + " | ".join(head) + " |")
    out.append("| --- |" + " --- |" * len(factors))
    for label in labels:
        r = rows[label]
        at = {f: k for k, f in enumerate(r["factors"])}
        cells = []
        for f in factors:
            if f not in at:
                cells.append("-")
                continue
            mean, std = r["mean"][at[f]], (r["std"] or [None] * len(r["factors"]))[at[f]]
            cells.append(f"{mean:.1f}" if std is None else f"{mean:.1f} ± {std:.1f}")
        out.append(f"| {label} | " + " | ".join(cells) + " |")

if __name__ == "__main__":
    main()
