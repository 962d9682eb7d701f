#!/usr/bin/env bash
# The source folders are layers, and an #include only goes down (README, "Layout"):
#   common < kernels, generators < config < model/pe < model < backend < train < report < cli
# (bench/, tests/ and fuzz/ may include anything). A file that includes one of a higher layer, or
# two units (a header and its source) that include each other's headers, fail here.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
/usr/bin/python3 - "$src" <<'PY'
import os, re, sys
src = sys.argv[1]
order = ["common", "kernels generators", "config", "model/pe", "model", "backend", "train", "report", "cli"]
rank = {folder: i for i, layer in enumerate(order) for folder in layer.split()}
def layer(path):  # the deepest folder of `order` that holds path
    parts = path.split("/")
    for n in range(len(parts) - 1, 0, -1):
        if "/".join(parts[:n]) in rank:
            return "/".join(parts[:n])
    return None
units, bad = {}, []
for folder in rank:
    for root, _, files in os.walk(os.path.join(src, folder)):
        for f in files:
            if not f.endswith((".hpp", ".cpp", ".cu", ".cuh")):
                continue
            path = os.path.relpath(os.path.join(root, f), src)
            mine = layer(path)
            for inc in re.findall(r'^\s*#include "([^"]+)"', open(os.path.join(src, path)).read(), re.M):
                theirs = layer(inc)
                if theirs is not None and rank[theirs] > rank[mine]:
                    bad.append(f"{path} includes {inc}: {theirs}/ is above {mine}/")
                unit, other = os.path.splitext(path)[0], os.path.splitext(inc)[0]
                if unit != other:
                    units.setdefault(unit, set()).add(other)
# Two units that include each other; a PE family's registration (pe_rope.cpp registers rope-half,
# whose class extends pe_rope.hpp's) is the one pair allowed, as it is one PE family.
allowed = {frozenset({"model/pe/pe_rope", "model/pe/pe_rope_half"})}
for a, deps in units.items():
    for b in deps:
        if a < b and a in units.get(b, ()) and frozenset({a, b}) not in allowed:
            bad.append(f"{a} and {b} include each other's headers")
if bad:
    print("\n".join("FAIL: " + b for b in bad))
    sys.exit(1)
print(f"layering: {sum(len(d) for d in units.values())} includes between {len(units)} units, none upward, no pair")
PY
