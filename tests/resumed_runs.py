#!/usr/bin/python3
"""Test helper: the runs of folder B, trained in parts (stopped and resumed), are the runs of
folder A trained in one go: both complete, the same final numbers, B's resumed at least once,
and the same curves and step logs by tools/same_bits.py.

    /usr/bin/python3 tests/resumed_runs.py DIR_A DIR_B RUN...   (RUN: e.g. rope_seed0)

Exit 0 when all hold; 1, naming the run and what differs, otherwise.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
a_dir, b_dir, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
bad = []
for r in runs:
    pa, pb = (os.path.join(d, f"{r}.json") for d in (a_dir, b_dir))
    a, b = (json.load(open(p)) for p in (pa, pb))
    if not a["status"] == b["status"] == "complete":
        bad.append(f"{r}: status {a['status']} / {b['status']}")
    elif a["final"] != b["final"]:
        bad.append(f"{r}: final {a['final']} / {b['final']}")
    elif not b.get("resumed_from_step"):
        bad.append(f"{r}: never resumed")
    else:
        p = subprocess.run([sys.executable, "-m", "tools.same_bits", pa, pb], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            bad.append(f"{r}: {(p.stdout + p.stderr).strip()}")
print("\n".join(bad) if bad else f"{len(runs)} runs equal")
sys.exit(1 if bad or not runs else 0)
