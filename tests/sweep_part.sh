#!/usr/bin/env bash
# results/sweep_part.sh: a sweep trained in parts of one second each, its folder carried between
# parts only as the archive each part writes, ends with the same run JSONs (curves and final
# accuracies), step logs and summary as the same sweep trained in one go; a broken archive and a
# STATE_IN without one are refused with exit 2 and a one-line error.
set -u
bin="$1"
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
cat > "$tmp/plan.json" <<'JSON'
{"name": "parts", "preset": "quick",
 "args": ["--task", "k-back", "--min-len", "4", "--max-len", "6", "--max-k", "2", "--steps", "3000", "--warmup", "10",
          "--eval-every", "100", "--n-train", "200", "--n-val", "20", "--n-test", "20", "--device", "cpu",
          "--layers", "1", "--d-model", "32", "--heads", "2"],
 "cells": [{"name": "a", "pe": ["rope", "pope"], "seeds": [0]}]}
JSON
export POPEBENCH="$bin"
part() { bash "$src/results/sweep_part.sh" "$tmp/plan.json" "$@" --concurrent 2; }
part 1000 - "$tmp/whole" || { echo "FAIL: the sweep in one part"; cat "$tmp/whole/sweep.log"; exit 1; }
prev=- parts=0 rc=75
while (( rc == 75 && parts < 200 )); do
  parts=$((parts + 1))
  part 1 "$prev" "$tmp/p$parts"
  rc=$?
  prev="$tmp/p$parts"
done
(( rc == 0 )) || { echo "FAIL: the parted sweep ended with status $rc after $parts parts"; cat "$prev/sweep.log"; exit 1; }
(( parts >= 2 )) || { echo "FAIL: one part of one second finished the sweep: nothing was resumed"; fails=$((fails+1)); }
mkdir -p "$tmp/W" "$tmp/P"
cat "$tmp/whole"/sweep.tgz.part-* | tar xzf - -C "$tmp/W"
cat "$prev"/sweep.tgz.part-* | tar xzf - -C "$tmp/P"
out=$(/usr/bin/python3 "$src/tests/resumed_runs.py" "$tmp/W/sweep/a" "$tmp/P/sweep/a" rope_seed0 pope_seed0) ||
  { echo "FAIL: the runs differ between one part and $parts: $out"; fails=$((fails+1)); }
/usr/bin/python3 - "$tmp/W/sweep/a" "$tmp/P/sweep/a" <<'PY' || fails=$((fails+1))
import json, sys
a, b = (json.load(open(f"{d}/summary.json")) for d in sys.argv[1:])
assert a["rows"] and a["rows"] == b["rows"], (a["rows"], b["rows"])
PY
# A truncated archive is refused, and nothing trains.
mkdir -p "$tmp/bad"
head -c 100 "$tmp/whole/sweep.tgz.part-aa" > "$tmp/bad/sweep.tgz.part-aa"
out=$(part 1000 "$tmp/bad" "$tmp/badout" 2>&1)
[[ $? -eq 2 && "$out" == *"is not a whole archive"* ]] ||
  { echo "FAIL: a truncated archive was not refused with exit 2 ($out)"; fails=$((fails+1)); }
# A STATE_IN without archives is refused (a fresh start is asked for with -).
out=$(part 1000 "$tmp/missing" "$tmp/badout" 2>&1)
[[ $? -eq 2 && "$out" == *"holds no sweep.tgz.part-"* ]] ||
  { echo "FAIL: a STATE_IN without archives was not refused with exit 2 ($out)"; fails=$((fails+1)); }
echo "sweep_part: $parts parts, $fails failed"
exit $(( fails > 0 ))
