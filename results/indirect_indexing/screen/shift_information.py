#!/usr/bin/python3
"""How much the shift tokens of an Indirect Indexing example say about where its source letter
is, exactly, from the task's distribution: the training signal for locating the source that the
loss on every next token (the screen's loss_all) adds to the loss on the answer alone.

The shift is drawn so that the target stays inside the string, so the shifts a source allows
depend on its position: near either end of the string, only shifts away from that end are valid.
A model predicting the shift's tokens (its sign, then its digits) can therefore do better when it
knows the source's position. With the loss on every next token the model is trained on those
tokens in every example, from the first step, whereas with the loss on the answer only, the one
target whose prediction depends on the source's position is the answer itself.

For each setting, in nats per example (the cross-entropy of the shift's tokens, summed, is
-log P(shift) for a model that predicts them perfectly from what it knows):
  H(shift)               the shift's entropy for a model that knows nothing of the example
  H(shift | L)           ... that knows the string's length L
  H(shift | L, p)        ... that also knows where the source is (p)
  I(shift; p | L)        the difference: what locating the source saves on the shift's tokens
  I(sign; p | L)         the same for the sign token alone
  share of sources       the fraction of examples whose source constrains the shift (p within
                         max_shift of an end), the only ones that carry the signal

  /usr/bin/python3 results/indirect_indexing/screen/shift_information.py [--min-len A --max-len B --max-shift S]
      [--pair-draw joint|shift-first|source-first]

Without options, a table of the settings the suite trains: the paper's task under its three pair
draws, the setup of length extrapolation and the quick task.
"""
import argparse
import math
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))  # the repository root: the tools package (until this folder's scripts move into it)
from tools.plateau_levels import pair_probabilities  # noqa: E402  (the generator's pair draw, once)


def entropy(masses):
    total = sum(masses)
    return -sum(m / total * math.log(m / total) for m in masses if m > 0)


def conditional_entropy(joint, given, outcome):
    """H(X | G) over joint {key: probability}, X = outcome(key), G = given(key)."""
    groups = {}
    for key, pr in joint.items():
        g = groups.setdefault(given(key), Counter())
        g[outcome(key)] += pr
    return sum(sum(c.values()) * entropy(list(c.values())) for c in groups.values())


def shift_information(min_len, max_len, max_shift, pair_draw):
    """The quantities of the docstring for one setting, as a dict."""
    lengths = range(min_len, max_len + 1)
    w = 1.0 / len(lengths)  # string length is uniform
    # {(L, p, s): probability} over the task's distribution
    joint = {}
    for L in lengths:
        for (p, s), pr in pair_probabilities(L, max_shift, pair_draw).items():
            joint[(L, p, s)] = w * pr
    shift_of = lambda k: k[2]
    sign_of = lambda k: k[2] > 0
    h = conditional_entropy(joint, lambda k: None, shift_of)
    h_l = conditional_entropy(joint, lambda k: k[0], shift_of)
    h_lp = conditional_entropy(joint, lambda k: (k[0], k[1]), shift_of)
    hs_l = conditional_entropy(joint, lambda k: k[0], sign_of)
    hs_lp = conditional_entropy(joint, lambda k: (k[0], k[1]), sign_of)
    constrained = sum(pr for (L, p, s), pr in joint.items() if p < max_shift or p > L - 1 - max_shift)
    return {"H(shift)": h, "H(shift | L)": h_l, "H(shift | L, p)": h_lp,
            "I(shift; p | L)": h_l - h_lp, "I(sign; p | L)": hs_l - hs_lp, "share of sources": constrained}


SETTINGS = [  # (name, min_len, max_len, max_shift, pair draw)
    ("paper task (strings 20-40, shifts up to 15), joint draw", 20, 40, 15, "joint"),
    ("paper task, shift-first draw", 20, 40, 15, "shift-first"),
    ("paper task, source-first draw", 20, 40, 15, "source-first"),
    ("extrapolation setup (strings 6-10, shifts up to 2)", 6, 10, 2, "joint"),
    ("quick task (strings 5-8, shifts up to 2)", 5, 8, 2, "joint"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min-len", type=int)
    ap.add_argument("--max-len", type=int)
    ap.add_argument("--max-shift", type=int)
    ap.add_argument("--pair-draw", default="joint", choices=["joint", "shift-first", "source-first"])
    a = ap.parse_args()
    given = [a.min_len, a.max_len, a.max_shift]
    if any(x is not None for x in given):
        if any(x is None for x in given):
            ap.error("--min-len, --max-len and --max-shift go together")
        if not 1 <= a.max_shift < a.min_len <= a.max_len:
            ap.error("need 1 <= max-shift < min-len <= max-len (every source must allow a shift)")
        settings = [(f"strings {a.min_len}-{a.max_len}, shifts up to {a.max_shift}, {a.pair_draw} draw",
                     a.min_len, a.max_len, a.max_shift, a.pair_draw)]
    else:
        settings = SETTINGS
    keys = list(shift_information(*SETTINGS[-1][1:]).keys())
    print("| setting | " + " | ".join(keys) + " |")
    print("| --- |" + " --- |" * len(keys))
    for name, *args in settings:
        v = shift_information(*args)
        print(f"| {name} | " + " | ".join(f"{100 * v[k]:.1f} %" if k == "share of sources" else f"{v[k]:.3f}"
                                          for k in keys) + " |")


if __name__ == "__main__":
    main()
