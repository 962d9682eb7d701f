"""Compare two PEs' test accuracy over the seeds of the run JSONs in a results folder.

  compare_seeds.py DIR PE_A PE_B               paired by seed: differences, mean, sample std,
                                               t and its two-sided p (Student t, n - 1 df)
  compare_seeds.py DIR PE_A PE_B --above X     runs of each PE with test accuracy above X %,
                                               and the two-sided Fisher exact p of the 2x2 table
  ... --dir-b DIR_B                            PE_B's runs from DIR_B instead: one PE under two
                                               configs (e.g. rope in a probe against rope in its
                                               baseline), with either comparison

DIR holds run JSONs (`reproduce`: DIR/*.json; `extrapolate`: DIR/runs/*.json), or is a folder
of `popebench merge` of extrapolation folders, whose extrapolation.json names the runs (its
rows' "run", relative to DIR); complete runs only. PE labels as in the figures: the PE kind, with "-delta0" for PoPE with delta init zero.
Standard library only (no SciPy on a bare Debian 12): the t tail comes from the regularised
incomplete beta function, the Fisher p from the hypergeometric distribution.
"""
import argparse
import glob
import json
import math
import os
import sys

from .json_input import load_json


def fail(msg):
    print(f"compare_seeds.py: {msg}", file=sys.stderr)
    sys.exit(2)


def label(cfg):
    pe = cfg["pe"]
    return pe["kind"] + ("-delta0" if pe["kind"] == "pope" and pe.get("delta_init") == "zero" else "")


def load(d):
    """{pe label: {seed: test accuracy %}} over the complete runs in d."""
    out = {}
    files = glob.glob(os.path.join(d, "*.json")) + glob.glob(os.path.join(d, "runs", "*.json"))
    ex_path = os.path.join(d, "extrapolation.json")
    if os.path.exists(ex_path):  # a merged table's runs live in its inputs' folders
        try:
            with open(ex_path) as fh:
                rows = json.load(fh)["rows"]
            files += [os.path.normpath(os.path.join(d, r["run"])) for r in rows]
        except (OSError, ValueError, KeyError, TypeError) as e:
            fail(f"{ex_path}: not a popebench extrapolation table ({e})")
    for f in sorted(set(files)):
        r = load_json(f, "compare_seeds.py")
        if r.get("status") != "complete" or "config" not in r:
            continue  # summaries, tables and partial runs
        out.setdefault(label(r["config"]), {})[r["config"]["train"]["seed"]] = 100 * r["final"]["test"]["acc"]
    return out


def betacf(a, b, x):
    # Continued fraction of the incomplete beta function (modified Lentz).
    tiny, qab, qap, qam = 1e-300, a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def betai(a, b, x):
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def t_two_sided_p(t, df):
    return betai(df / 2, 0.5, df / (df + t * t))


def fisher_two_sided_p(k1, n1, k2, n2):
    # Sum of the probabilities of every table with the same margins no more likely than this one.
    k, n = k1 + k2, n1 + n2
    prob = lambda x: math.comb(n1, x) * math.comb(n2, k - x) / math.comb(n, k)
    p0 = prob(k1)
    return sum(prob(x) for x in range(max(0, k - n2), min(k, n1) + 1) if prob(x) <= p0 * (1 + 1e-9))


def runs_of(pe, d):
    """{seed: test accuracy %} of PE's complete runs in folder d, or a one-line error."""
    if not os.path.isdir(d):
        fail(f"{d}: no such directory")
    runs = load(d)
    if pe not in runs:
        fail(f"no complete runs of '{pe}' in {d} (found: {', '.join(sorted(runs)) or 'none'})")
    return runs[pe]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("pe_a")
    ap.add_argument("pe_b")
    ap.add_argument("--above", type=float, help="count runs above this test accuracy %% instead of pairing seeds")
    ap.add_argument("--dir-b", help="take PE_B's runs from this folder (default: DIR)")
    a = ap.parse_args()
    dir_b = a.dir_b or a.dir
    A, B = runs_of(a.pe_a, a.dir), runs_of(a.pe_b, dir_b)
    # Names for the output: with two folders the same PE may stand on both sides.
    name_a, name_b = (a.pe_a, a.pe_b) if dir_b == a.dir else (f"{a.pe_a} ({a.dir})", f"{a.pe_b} ({dir_b})")
    if a.above is not None:
        ka, kb = sum(v > a.above for v in A.values()), sum(v > a.above for v in B.values())
        p = fisher_two_sided_p(ka, len(A), kb, len(B))
        print(f"above {a.above:g} %: {name_a} {ka} of {len(A)}, {name_b} {kb} of {len(B)}; "
              f"two-sided Fisher exact p = {p:.3g}")
        return
    seeds = sorted(set(A) & set(B))
    if len(seeds) < 2:
        fail(f"need at least two seeds run with both PEs (common seeds: {seeds})")
    diff = [A[s] - B[s] for s in seeds]
    n = len(diff)
    mean = sum(diff) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in diff) / (n - 1))
    for s, x in zip(seeds, diff):
        print(f"seed {s}: {name_a} {A[s]:.2f} - {name_b} {B[s]:.2f} = {x:+.2f}")
    if sd == 0:
        print(f"mean difference {mean:+.2f} points, no spread over {n} seeds (t undefined)")
        return
    t = mean / (sd / math.sqrt(n))
    print(f"mean difference {mean:+.2f} points, sample std {sd:.2f}, paired t = {t:.2f}, "
          f"two-sided p = {t_two_sided_p(t, n - 1):.4f} ({n - 1} df)")


if __name__ == "__main__":
    main()
