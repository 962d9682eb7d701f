#!/usr/bin/python3
"""The best test accuracy any model can reach on Indirect Indexing when it sees only the last N
input tokens (`popebench train --context N`), exactly, from the task's distribution (string length
uniform, letters unique, shifts uniform in [-max, +max] without 0, (source, shift) pairs uniform
among those whose target is in the string: the generator's default "joint" draw).

  /usr/bin/python3 results/indirect_indexing/screen/context_crop_bound.py --context 40

An input is the string, ',', the source letter, ',', the signed shift, ','. A crop removes the
first letters of the string. What the model can still know, and the best guess in each case:
- nothing cropped, or source and target both visible: the target exactly;
- source visible, target cropped (the shift points before the first visible letter): the target
  is one of the letters it does not see, each equally likely: 1 / (alphabet - visible letters);
- source cropped: the source lies before the first visible letter at an unknown distance, so
  the target is one of the first `shift` visible letters or a cropped one; the best guess takes
  the most probable of those outcomes given the shift (computed from the exact posterior).
"""
import argparse
from collections import defaultdict
from fractions import Fraction

ap = argparse.ArgumentParser()
ap.add_argument("--context", type=int, required=True, help="input tokens kept (the last N)")
ap.add_argument("--min-len", type=int, default=20)
ap.add_argument("--max-len", type=int, default=40)
ap.add_argument("--max-shift", type=int, default=15)
ap.add_argument("--alphabet", type=int, default=52)
a = ap.parse_args()
if a.min_len < 2 or a.max_len < a.min_len or a.alphabet < a.max_len:
    ap.error("need 2 <= --min-len <= --max-len <= --alphabet")
if not 1 <= a.max_shift <= a.min_len - 1:
    ap.error(f"need 1 <= --max-shift <= --min-len - 1 (got {a.max_shift})")
if a.context < 7 + len(str(a.max_shift)):
    ap.error("--context must keep at least one letter and the whole query")

lengths = range(a.min_len, a.max_len + 1)
acc = Fraction(0)
cropped_mass = Fraction(0)
# Source cropped: posterior mass of each outcome, grouped by what the model sees (the shift;
# the number of visible letters follows from the shift's digits). Outcome: the target's index
# among the visible letters, or "cropped".
hidden_source = defaultdict(lambda: defaultdict(Fraction))
for L in lengths:
    pairs = [(p, s) for p in range(L) for s in range(-a.max_shift, a.max_shift + 1) if s != 0 and 0 <= p + s < L]
    for p, s in pairs:
        w = Fraction(1, len(lengths) * len(pairs))
        n_input = L + 5 + len(str(abs(s)))
        k0 = max(0, n_input - a.context)  # letters cropped from the front
        if k0 == 0:
            acc += w
            continue
        cropped_mass += w
        visible = L - k0
        if p >= k0:  # source visible
            acc += w if p + s >= k0 else w / (a.alphabet - visible)
        else:
            hidden_source[s][p + s - k0 if p + s >= k0 else "cropped"] += w
for s, outcomes in hidden_source.items():
    visible = a.context - 5 - len(str(abs(s)))
    unseen = a.alphabet - visible - 1  # the target is not the source letter, which is unseen too
    best = max([m for o, m in outcomes.items() if o != "cropped"] + [outcomes.get("cropped", Fraction(0)) / unseen])
    acc += best
print(f"context {a.context}: {100 * float(cropped_mass):.2f} % of the examples lose letters; "
      f"best reachable test accuracy {100 * float(acc):.2f} %")
