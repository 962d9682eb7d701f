"""Accuracy of the associative-recall guess "the value that occurs most often in the context".

  /usr/bin/python3 -m tools.most_frequent_value MIN_PAIRS MAX_PAIRS [--values 26] [--draws 200000] [--seed 0]

Simulates the generator's distribution (docs/tasks.md): a number of pairs uniform in
[MIN_PAIRS, MAX_PAIRS], each value drawn uniformly with replacement from VALUES symbols, the
queried pair uniform among them. The guess answers the most frequent value, ties split evenly,
so its expected accuracy is 1/(number of tied values) when the queried value is among them.
This is the plateau the associative-recall runs sit on before they learn the lookup.
"""
import argparse
import random
import sys
from collections import Counter


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("min_pairs", type=int)
    ap.add_argument("max_pairs", type=int)
    ap.add_argument("--values", type=int, default=26)
    ap.add_argument("--draws", type=int, default=200000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if not 1 <= a.min_pairs <= a.max_pairs or a.values < 1 or a.draws < 1:
        print("most_frequent_value.py: need 1 <= MIN_PAIRS <= MAX_PAIRS, --values >= 1 and --draws >= 1",
              file=sys.stderr)
        sys.exit(2)
    rng = random.Random(a.seed)
    acc = 0.0
    for _ in range(a.draws):
        vals = [rng.randrange(a.values) for _ in range(rng.randint(a.min_pairs, a.max_pairs))]
        counts = Counter(vals)
        top = max(counts.values())
        tied = [v for v, c in counts.items() if c == top]
        if vals[rng.randrange(len(vals))] in tied:
            acc += 1.0 / len(tied)
    print(f"{a.min_pairs}-{a.max_pairs} pairs, {a.values} values: {100 * acc / a.draws:.1f} % "
          f"({a.draws} draws, seed {a.seed})")


if __name__ == "__main__":
    main()
