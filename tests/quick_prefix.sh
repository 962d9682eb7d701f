#!/usr/bin/env bash
# The committed quick result is what this build computes (CTest: quick_prefix): PoPE seed 0 of
# results/quick/, the table `./run.sh main` prints on a machine without a GPU, trained again to
# its first evaluation points must repeat the committed run bit for bit (tools/same_bits.py:
# curve points and step-log rows). A result made by an older build that computes otherwise fails
# here instead of going stale. Results differ in the last bits between CPU ISA levels (the
# level is in each run JSON's environment.compiler), so on a machine built for another level the
# test reports skipped (exit 77).
set -u
bin="$1"
src=$(cd "$(dirname "$0")/.." && pwd)
committed="$src/results/quick/pope_seed0.json"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
steps=500  # the first evaluation point; ~25 s on 2 cores
"$bin" reproduce indirect-indexing --preset quick --pe pope --seeds 0 --stop-at $steps --out "$tmp/q" >/dev/null 2>"$tmp/err"
rc=$?
[[ $rc -eq 75 && -s "$tmp/q/pope_seed0.json" ]] || { echo "FAIL: the short quick run (exit $rc)"; cat "$tmp/err"; exit 1; }
isa() { /usr/bin/python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['environment']['compiler'].split('-march=')[-1])" "$1"; }
if [[ "$(isa "$committed")" != "$(isa "$tmp/q/pope_seed0.json")" ]]; then
  echo "skipped: results/quick was made at ISA level '$(isa "$committed")', this build is '$(isa "$tmp/q/pope_seed0.json")'"
  exit 77
fi
PYTHONPATH="$src" /usr/bin/python3 -m tools.same_bits "$committed" "$tmp/q/pope_seed0.json" --steps $steps
