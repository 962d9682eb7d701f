#!/usr/bin/python3
"""A table of `popebench inspect` JSONs (schema popebench.inspect): for each file, the step, the
accuracy, the share of predictions in each partial-solution class, the layer and head that
attend most from the answer position to the source letter and to the target (with that mass),
and (files that have it) the same from the query letter's position to the source letter.

  /usr/bin/python3 results/indirect_indexing/screen/inspect_table.py DIR_OR_FILES...
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))  # the repository root: the tools package (until this folder's scripts move into it)
from tools.json_input import glob_json, json_base, load_json  # noqa: E402


CLASSES = ["correct", "source, right sign", "source, wrong sign", "other letter of the string", "not in the string"]


def in_step_order(path):
    """Sort key: numbers as numbers, so a run's step20000 comes before its step100000."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", path)]


def files(args):
    out = []
    for a in args:
        found = glob_json(os.path.join(a, "**", "*.inspect.json"), recursive=True)
        out += sorted(found, key=in_step_order) if os.path.isdir(a) else [a]
    return out


def top(layers, kind):
    best = max(((h[kind], l["layer"], i) for l in layers for i, h in enumerate(l["heads"])))
    return f"L{best[1]}H{best[2]} {100 * best[0]:.0f}"


if len(sys.argv) < 2:
    sys.exit("usage: inspect_table.py DIR_OR_FILES...")
docs = []
for f in files(sys.argv[1:]):  # every file read and checked before a line is printed
    docs.append((f, load_json(f, "inspect_table.py", "popebench.inspect")))
print("| run | step | n | acc % | " + " | ".join(c + " %" for c in CLASSES) +
      " | most on source (layer, head, mass %) | most on target | query to source |")
print("|" + " --- |" * (7 + len(CLASSES)))
for f, d in docs:
    r = d["result"]
    cls = [f"{100 * r['prediction_classes'].get(c, {'share': 0})['share']:.1f}" for c in CLASSES]
    layers = r["attention_from_answer"]["layers"]
    name = json_base(os.path.relpath(f)).removesuffix(".inspect")
    print(f"| {name} | {d['step']} | {r['n']} | {100 * r['acc']:.2f} | " + " | ".join(cls) +
          f" | {top(layers, 'source')} | {top(layers, 'target')} | "
          f"{top(r['attention_from_query']['layers'], 'source') if 'attention_from_query' in r else '-'} |")
