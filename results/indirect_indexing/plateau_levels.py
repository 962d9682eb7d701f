#!/usr/bin/python3
"""Loss and accuracy of the partial solutions of Indirect Indexing, exactly, from the task's
distribution (SPEC section 1: string length uniform, shifts uniform in [-max, +max] without 0,
(source, shift) pairs drawn uniformly among those whose target is in the string; by default the
paper's strings of 20-40 letters and shifts up to 15).

  /usr/bin/python3 results/indirect_indexing/plateau_levels.py [--min-len 20 --max-len 40 --max-shift 15]

A model that knows which letters the string holds but not where the answer is: uniform over the
string. One that finds the source letter but ignores the shift: uniform over the targets that a
valid shift reaches from there. One that also reads the shift's sign: uniform over that side.
"""
import argparse
import math
from collections import Counter

ap = argparse.ArgumentParser()
ap.add_argument("--min-len", type=int, default=20)
ap.add_argument("--max-len", type=int, default=40)
ap.add_argument("--max-shift", type=int, default=15)
a = ap.parse_args()
# The generator's own rules (generators/indirect_indexing.cpp): every shift reachable in every string.
if a.min_len < 2 or a.max_len < a.min_len:
    ap.error(f"need 2 <= --min-len <= --max-len (got {a.min_len}, {a.max_len})")
if not 1 <= a.max_shift <= a.min_len - 1:
    ap.error(f"need 1 <= --max-shift <= --min-len - 1 (got {a.max_shift})")
lengths = range(a.min_len, a.max_len + 1)
levels = {"any letter of the string": [0.0, 0.0], "source found, shift ignored": [0.0, 0.0],
          "source found, sign of the shift read": [0.0, 0.0]}
for L in lengths:
    pairs = [(p, s) for p in range(L) for s in range(-a.max_shift, a.max_shift + 1) if s != 0 and 0 <= p + s < L]
    n = len(pairs)
    w = 1.0 / len(lengths)  # string length is uniform
    lv = levels["any letter of the string"]
    lv[0] += w * math.log(L)
    lv[1] += w / L
    for key, group in (("source found, shift ignored", lambda p, s: p),
                       ("source found, sign of the shift read", lambda p, s: (p, s > 0))):
        c = Counter(group(p, s) for p, s in pairs)  # candidates per situation; situations weighted by count
        levels[key][0] += w * sum(k / n * math.log(k) for k in c.values())
        levels[key][1] += w * len(c) / n  # a situation holding k of the n pairs is right 1/k of the time
print("| partial solution | loss (nats) | accuracy % |")
print("| --- | --- | --- |")
for name, (loss, acc) in levels.items():
    print(f"| {name} | {loss:.3f} | {100 * acc:.2f} |")
