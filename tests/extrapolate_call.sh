#!/usr/bin/env bash
# results/length_extrapolation/extrapolate_call.sh: an extrapolate job run as commands of one
# second each on one WORK folder ends with the same table, run curves and step logs as the job in
# one command; every command's archive holds no checkpoint; a second job's options on the same
# WORK, --out or --time-limit among the options, and a bad BUDGET_S are refused with exit 2.
set -u
bin="$1"
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
opts=(--task k-back --min-len 4 --max-len 6 --max-k 2 --steps 3000 --warmup 10 --eval-every 100
      --n-train 200 --n-val 20 --n-test 20 --device cpu --layers 1 --d-model 32 --heads 2
      --pe rope,pope --seeds 0 --factors 1,2 --bucket-examples 20 --concurrent 2)
export POPEBENCH="$bin"
call() { bash "$src/results/length_extrapolation/extrapolate_call.sh" "$@"; }
call "$tmp/whole/x" 1000 "$tmp/out_whole" x "${opts[@]}" ||
  { echo "FAIL: the job in one command"; cat "$tmp/out_whole/x.log"; exit 1; }
calls=0 rc=75
while (( rc == 75 && calls < 200 )); do
  calls=$((calls + 1))
  call "$tmp/parted/x" 1 "$tmp/out_parted" x "${opts[@]}"
  rc=$?
  if tar tzf "$tmp/out_parted/x.tgz" | grep -q 'ckpt'; then
    echo "FAIL: call $calls archived a checkpoint"; fails=$((fails+1))
  fi
done
(( rc == 0 )) || { echo "FAIL: the parted job ended with status $rc after $calls calls"; cat "$tmp/out_parted/x.log"; exit 1; }
(( calls >= 2 )) || { echo "FAIL: one call of one second finished the job: nothing was resumed"; fails=$((fails+1)); }
(( $(grep -c '^== extrapolate exit status' "$tmp/out_parted/x.log") == calls )) ||
  { echo "FAIL: the log does not hold each of the $calls calls"; fails=$((fails+1)); }
mkdir -p "$tmp/W" "$tmp/P"
tar xzf "$tmp/out_whole/x.tgz" -C "$tmp/W" && tar xzf "$tmp/out_parted/x.tgz" -C "$tmp/P" ||
  { echo "FAIL: an archive does not unpack"; exit 1; }
out=$(/usr/bin/python3 "$src/tests/resumed_runs.py" "$tmp/W/x/runs" "$tmp/P/x/runs" rope_seed0 pope_seed0) ||
  { echo "FAIL: the runs differ between one call and $calls: $out"; fails=$((fails+1)); }
/usr/bin/python3 - "$tmp/W/x" "$tmp/P/x" <<'PY' || fails=$((fails+1))
import json, sys
a, b = (json.load(open(f"{d}/extrapolation.json")) for d in sys.argv[1:])
assert a["rows"] and a["rows"] == b["rows"], (a["rows"], b["rows"])
assert len(a["rows"]) == 4, a["rows"]  # rope, rope+pi, rope+ntk, pope
PY
expect_refusal() {  # WHAT EXPECTED_TEXT ARGS...
  local what=$1 text=$2; shift 2
  local got; got=$(call "$@" 2>&1)
  [[ $? -eq 2 && "$got" == *"$text"* && $(wc -l <<< "$got") -eq 1 ]] ||
    { echo "FAIL: $what was not refused with exit 2 and one line ($got)"; fails=$((fails+1)); }
}
expect_refusal "other options on a job's WORK" "holds a job with other options" \
  "$tmp/parted/x" 10 "$tmp/o" x "${opts[@]}" --seeds 1
expect_refusal "--out among the options" "--out is set by the script" "$tmp/new" 10 "$tmp/o" x --out y
expect_refusal "--time-limit among the options" "--time-limit=5 is set by the script" "$tmp/new" 10 "$tmp/o" x --time-limit=5
expect_refusal "a budget of 0" "BUDGET_S must be a positive number" "$tmp/new" 0 "$tmp/o" x
expect_refusal "a NAME with a slash" "NAME must be" "$tmp/new" 10 "$tmp/o" a/b
[[ ! -e "$tmp/new" ]] || { echo "FAIL: a refused call created its WORK"; fails=$((fails+1)); }
echo "extrapolate_call: $calls calls, $fails failed"
exit $(( fails > 0 ))
