"""A results table from a summary JSON (`popebench reproduce` or `merge`, schema
popebench.summary): per PE the number of runs, the mean ± sample std of the test accuracy, every
seed's number, and the paper's mean ± std where the summary has it. The READMEs show the committed
summaries through this script (tools/readme_tables.py checks that they still match).

  /usr/bin/python3 -m tools.summary_table SUMMARY.json

Exit 2 with one line when the file is not a summary.
"""
import os
import sys

from .json_input import load_json

# How the READMEs name the PEs; a label not listed prints as it is.
NAMES = {
    "rope": "RoPE", "pope": "PoPE", "rope-half": "RoPE on half the channels",
    "alibi-half": "ALiBi on half the heads", "alibi": "ALiBi", "learned": "learned absolute",
    "sinusoidal": "sinusoidal absolute", "none": "NoPE", "pope-delta0": "PoPE, δ initialised to 0",
}


def fail(msg):
    print(f"summary_table.py: {msg}", file=sys.stderr)
    sys.exit(2)


def spread(mean, std):
    return f"{mean:.2f}" if std is None else f"{mean:.2f} ± {std:.2f}"


def main():
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__)
        return
    if len(sys.argv) != 2:
        fail("usage: summary_table.py SUMMARY.json")
    path = sys.argv[1]
    s = load_json(path, "summary_table.py", "popebench.summary")
    if not isinstance(s.get("rows"), list):
        fail(f"{path} is not a popebench summary (no rows)")
    rows = s["rows"]
    for r in rows:  # every row checked before a line is printed
        if not isinstance(r, dict) or any(k not in r for k in ("pe", "n", "mean", "test_acc")):
            fail(f"{path}: a row lacks pe, n, mean or test_acc")
    seed_lists = {tuple(r.get("seeds", [])) for r in rows}
    seeds = " / ".join(map(str, seed_lists.pop())) if len(seed_lists) == 1 else "by seed"
    with_paper = any(r.get("paper") for r in rows)
    print(f"| PE | runs | test accuracy % (ours) | per seed ({seeds}) |" + (" paper |" if with_paper else ""))
    print("| --- | --- | --- | --- |" + (" --- |" if with_paper else ""))
    for r in rows:
        std = r.get("std") if r["n"] > 1 else None
        line = f"| {NAMES.get(r['pe'], r['pe'])} | {r['n']} | {spread(r['mean'], std)} | " + \
               " / ".join(f"{a:.2f}" for a in r["test_acc"]) + " |"
        if with_paper:
            p = r.get("paper")
            line += f" {spread(p['mean'], p.get('std'))} |" if p else " - |"
        print(line)


if __name__ == "__main__":
    main()
