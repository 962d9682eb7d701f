"""Loss and accuracy of the partial solutions of Indirect Indexing, exactly, from the task's
distribution (SPEC section 1: string length uniform, shifts uniform in [-max, +max] without 0,
(source, shift) pairs drawn uniformly among those whose target is in the string; by default the
paper's strings of 20-40 letters and shifts up to 15).

  /usr/bin/python3 -m tools.plateau_levels [--min-len 20 --max-len 40 --max-shift 15]
      [--pair-draw joint|shift-first|source-first]

A model that knows which letters the string holds but not where the answer is: uniform over the
string. One that finds the source letter but ignores the shift: the best guess among the targets
that a valid shift reaches from there (the most probable one under the pair draw; with the joint
draw they are equally probable). One that also reads the shift's sign: the same on that side.
--pair-draw is the generator's rule for the (source, shift) pair (generators/indirect_indexing.hpp):
joint (uniform over valid pairs), shift-first (the shift uniform, then a valid source),
source-first (the source uniform, then a valid shift).
"""
import argparse
import math
from collections import Counter


def pair_probabilities(L, max_shift, pair_draw):
    """{(source, shift): probability} for strings of length L under the generator's pair draw."""
    pairs = [(p, s) for p in range(L) for s in range(-max_shift, max_shift + 1) if s != 0 and 0 <= p + s < L]
    shifts = sorted({s for _, s in pairs})
    if pair_draw == "joint":
        return {ps: 1.0 / len(pairs) for ps in pairs}
    if pair_draw == "shift-first":
        return {(p, s): 1.0 / len(shifts) / sum(1 for q, t in pairs if t == s) for p, s in pairs}
    return {(p, s): 1.0 / L / sum(1 for q, t in pairs if q == p) for p, s in pairs}


def plateau_levels(min_len=20, max_len=40, max_shift=15, pair_draw="joint"):
    """{partial solution: [loss in nats, accuracy]}, exactly, over the task's distribution."""
    lengths = range(min_len, max_len + 1)
    levels = {"any letter of the string": [0.0, 0.0], "source found, shift ignored": [0.0, 0.0],
              "source found, sign of the shift read": [0.0, 0.0]}
    for L in lengths:
        prob = pair_probabilities(L, max_shift, pair_draw)
        w = 1.0 / len(lengths)  # string length is uniform
        lv = levels["any letter of the string"]
        lv[0] += w * math.log(L)
        lv[1] += w / L
        for key, group in (("source found, shift ignored", lambda p, s: p),
                           ("source found, sign of the shift read", lambda p, s: (p, s > 0))):
            mass = Counter()
            for (p, s), pr in prob.items():
                mass[group(p, s)] += pr
            for (p, s), pr in prob.items():  # the target given the situation: each pair is its own target
                levels[key][0] -= w * pr * math.log(pr / mass[group(p, s)])
            best = Counter()
            for (p, s), pr in prob.items():
                best[group(p, s)] = max(best[group(p, s)], pr)
            levels[key][1] += w * sum(best.values())
    return levels


# The share of each prediction class of `popebench inspect` (report/inspect.cpp) that a model
# guessing uniformly among a partial solution's candidates would show: the reference for the
# classes of a model on the plateau.
CLASSES = ["correct", "source, right sign", "source, wrong sign", "other letter of the string"]


def class_shares(min_len, max_len, max_shift, pair_draw):
    def cls(p, s, q):
        if q == p + s:
            return "correct"
        k = q - p
        if k != 0 and abs(k) <= max_shift:
            return "source, right sign" if (k > 0) == (s > 0) else "source, wrong sign"
        return "other letter of the string"

    lengths = range(min_len, max_len + 1)
    shares = {"any letter of the string": Counter(), "source found, shift ignored": Counter()}
    for L in lengths:
        prob = pair_probabilities(L, max_shift, pair_draw)
        for (p, s), pr in prob.items():
            w = pr / len(lengths)
            for q in range(L):
                shares["any letter of the string"][cls(p, s, q)] += w / L
            reach = [p + t for q0, t in prob if q0 == p]
            for q in reach:
                shares["source found, shift ignored"][cls(p, s, q)] += w / len(reach)
    return shares


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-len", type=int, default=20)
    ap.add_argument("--max-len", type=int, default=40)
    ap.add_argument("--max-shift", type=int, default=15)
    ap.add_argument("--pair-draw", choices=["joint", "shift-first", "source-first"], default="joint")
    a = ap.parse_args()
    # The generator's own rules (generators/indirect_indexing.cpp): every shift reachable in every string.
    if a.min_len < 2 or a.max_len < a.min_len:
        ap.error(f"need 2 <= --min-len <= --max-len (got {a.min_len}, {a.max_len})")
    if not 1 <= a.max_shift <= a.min_len - 1:
        ap.error(f"need 1 <= --max-shift <= --min-len - 1 (got {a.max_shift})")
    levels = plateau_levels(a.min_len, a.max_len, a.max_shift, a.pair_draw)
    shares = class_shares(a.min_len, a.max_len, a.max_shift, a.pair_draw)
    print("| partial solution | loss (nats) | accuracy % |")
    print("| --- | --- | --- |")
    for name, (loss, acc) in levels.items():
        print(f"| {name} | {loss:.3f} | {100 * acc:.2f} |")
    print()
    print("| uniform guess among the candidates of | " + " | ".join(c + " %" for c in CLASSES) + " |")
    print("|" + " --- |" * (1 + len(CLASSES)))
    for name, c in shares.items():
        print(f"| {name} | " + " | ".join(f"{100 * c[k]:.1f}" for k in CLASSES) + " |")


if __name__ == "__main__":
    main()
