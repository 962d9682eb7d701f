#!/usr/bin/env bash
# results/indirect_indexing/screen/run_cells.sh on a tiny Indirect Indexing plan on the CPU: one
# run chosen by SHARD trained to the end with its kept checkpoints inspected along the way (and
# not again at its last state); a PE's half stopped early by STOP_AT with its last checkpoints
# inspected; no checkpoint packed; bad settings and an unknown cell refused with exit 2; a stop
# stops it and its sweep. Then cells_across_calls.sh: a job started by one call and delivered by a
# later one, other settings refused, a long job stopped with its sweep, a killed job reported.
# Then gated_call.sh: a new binary used only behind a passed gate, a known-good one otherwise.
set -u
bin="$1"
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
cat > "$tmp/plan.json" <<'JSON'
{"name": "cells", "preset": "quick",
 "args": ["--steps", "30", "--warmup", "2", "--eval-every", "10", "--n-train", "200", "--n-val", "16", "--n-test", "24",
          "--device", "cpu", "--layers", "1", "--d-model", "32", "--heads", "2"],
 "cells": [{"name": "c", "pe": ["rope", "pope"], "seeds": [0, 1]}]}
JSON
export POPEBENCH="$bin" PLAN="$tmp/plan.json"
# The tiny plan's runs take seconds: run_cells.sh's least budget, which defaults to what the
# paper model's half needs on one H200, is off here except where it is the thing tested.
export MIN_BUDGET_S=0
cells() { bash "$src/results/indirect_indexing/screen/run_cells.sh" "$@"; }
list() { tar tzf "$1" | grep -v '/$' | sort | tr '\n' ' '; }

SHARD=1/2 KEEP=10 STOP_AT=0 ALONG=1 cells c 300 "$tmp/a" rope || fail "the along run exited $?"
runs=$(list "$tmp/a/screen_runs.tgz")
[[ "$runs" == "screen/c/rope_seed1.json screen/c/rope_seed1.steps.csv " ]] || fail "SHARD=1/2 packed '$runs', not seed 1 alone"
ins=$(list "$tmp/a/inspect.tgz")
want="inspect/c/along/rope_seed1.step10.inspect.json inspect/c/along/rope_seed1.step20.inspect.json inspect/c/along/rope_seed1.step30.inspect.json inspect/stderr.log "
[[ "$ins" == "$want" ]] || fail "ALONG=1 packed '$ins', not every kept step's inspect (and no last-state one)"
mkdir -p "$tmp/ax" && tar xzf "$tmp/a/inspect.tgz" -C "$tmp/ax" && tar xzf "$tmp/a/screen_runs.tgz" -C "$tmp/ax"
/usr/bin/python3 - "$tmp/ax" <<'PY' || fail "the along inspects are not the run's checkpoints"
import json, sys
d = sys.argv[1]
run = json.load(open(f"{d}/screen/c/rope_seed1.json"))
assert run["status"] == "complete" and run["config"]["train"]["seed"] == 1, (run["status"], run["config"]["train"]["seed"])
for step in (10, 20, 30):
    i = json.load(open(f"{d}/inspect/c/along/rope_seed1.step{step}.inspect.json"))
    assert i["schema"] == "popebench.inspect" and i["step"] == step, (step, i["step"])
# The last kept checkpoint is the run's final state: its test accuracy is the run's.
t = run["final"]["test"]
assert i["result"]["n"] == t["n"] and abs(i["result"]["acc"] - t["acc"]) < 1e-9, (i["result"]["n"], i["result"]["acc"], t)
PY

STOP_AT=20 cells c 300 "$tmp/b" pope || fail "the stopped half exited $?"
runs=$(list "$tmp/b/screen_runs.tgz")
[[ "$runs" == "screen/c/pope_seed0.json screen/c/pope_seed0.steps.csv screen/c/pope_seed1.json screen/c/pope_seed1.steps.csv " ]] ||
  fail "the PoPE half packed '$runs'"
ins=$(list "$tmp/b/inspect.tgz")
[[ "$ins" == "inspect/c/pope_seed0.inspect.json inspect/c/pope_seed1.inspect.json inspect/stderr.log " ]] ||
  fail "STOP_AT=20 packed '$ins', not each run's last checkpoint's inspect"
grep -q "sweep rc=75" "$tmp/b/session.txt" || fail "a run stopped by STOP_AT did not end the sweep with 75"

# ingest_half.sh puts the half where the screen keeps it (runs into STAGE/CELL, inspects into
# inspect/CELL, the log as STAGE/sweep_NAME.log) and draws the cell's curves; a log name used
# before, an inspect already there that measured otherwise and bad arguments are refused before
# anything is copied.
ingest() { SCREEN_DIR="$tmp/scr" bash "$src/results/indirect_indexing/screen/ingest_half.sh" "$@"; }
mkdir -p "$tmp/scr"
out=$(ingest "$tmp/b" stage1 c_pope 2>&1) || fail "ingest_half.sh exited $?: $out"
for f in stage1/c/pope_seed0.json stage1/c/pope_seed1.steps.csv stage1/sweep_c_pope.log stage1/c/curves.png \
         inspect/c/pope_seed0.inspect.json.gz inspect/c/pope_seed1.inspect.json.gz; do
  [[ -s "$tmp/scr/$f" ]] || fail "ingest_half.sh left no $f ($out)"
done
[[ ! -e "$tmp/scr/inspect/stderr.log" && $(grep -c '^new: ' <<< "$out") -eq 7 ]] || fail "ingest_half.sh copied other than 7 files: $out"
# The inspects are stored gzip-compressed, holding the delivered bytes.
mkdir -p "$tmp/bx" && tar xzf "$tmp/b/inspect.tgz" -C "$tmp/bx"
gzip -dc "$tmp/scr/inspect/c/pope_seed1.inspect.json.gz" | cmp -s - "$tmp/bx/inspect/c/pope_seed1.inspect.json" ||
  fail "the stored inspect does not hold the delivered bytes"
out=$(ingest "$tmp/b" stage1 c_pope 2>&1); [[ $? -eq 2 && "$out" == *"exists already"* ]] || fail "a log name used before was not refused ($out)"
# The Table 1 retrain lands beside the stages, its inspects (the same files) kept as they are.
out=$(ingest "$tmp/b" table1_retrain c_pope 2>&1) || fail "ingest_half.sh into table1_retrain exited $?: $out"
[[ -s "$tmp/scr/table1_retrain/c/pope_seed0.json" && -s "$tmp/scr/table1_retrain/sweep_c_pope.log" &&
   "$out" == *"same: inspect/c/pope_seed0.inspect.json.gz"* ]] || fail "ingest_half.sh table1_retrain did not land the runs ($out)"
# So do the baseline's seeds 3-5.
out=$(ingest "$tmp/b" baseline_seeds c_pope 2>&1) || fail "ingest_half.sh into baseline_seeds exited $?: $out"
[[ -s "$tmp/scr/baseline_seeds/c/pope_seed0.json" && -s "$tmp/scr/baseline_seeds/sweep_c_pope.log" ]] ||
  fail "ingest_half.sh baseline_seeds did not land the runs ($out)"
# A committed inspect with other provenance (a continuation trains its run again from step 0) but
# the same measurement is kept; one with another measurement stops the ingest before any copy.
/usr/bin/python3 -c "
import gzip, json, sys
r = json.load(gzip.open(sys.argv[1], 'rt')); r['environment']['date'] = 'an earlier session'; json.dump(r, gzip.open(sys.argv[1], 'wt'))
" "$tmp/scr/inspect/c/pope_seed0.inspect.json.gz"
out=$(ingest "$tmp/b" stage1 c_pope_rerun 2>&1) || fail "ingest_half.sh refused an inspect of the same measurement: $out"
[[ "$out" == *"same measurement, the committed file kept: inspect/c/pope_seed0.inspect.json.gz"* ]] &&
  gzip -dc "$tmp/scr/inspect/c/pope_seed0.inspect.json.gz" | grep -q "an earlier session" || fail "the committed inspect was not kept ($out)"
/usr/bin/python3 -c "
import gzip, json, sys
r = json.load(gzip.open(sys.argv[1], 'rt')); r['step'] += 1; json.dump(r, gzip.open(sys.argv[1], 'wt'))
" "$tmp/scr/inspect/c/pope_seed0.inspect.json.gz"
rm "$tmp/scr/stage1/c/pope_seed1.json"
out=$(ingest "$tmp/b" stage1 c_pope_again 2>&1)
[[ $? -eq 2 && "$out" == *"inspect/c/pope_seed0.inspect.json.gz exists with another measurement (differs: /step"* && ! -e "$tmp/scr/stage1/c/pope_seed1.json" &&
   ! -e "$tmp/scr/stage1/sweep_c_pope_again.log" ]] || fail "an inspect conflict was not refused before any copy ($out)"
# A delivered run that does not repeat the committed one it would replace (another curve over the
# steps both reached) is another run: refused before any copy.
/usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
p = r['curve'][-1]; k = next(k for k, v in p.items() if isinstance(v, float) and k != 'elapsed_s'); p[k] += 0.25
json.dump(r, open(sys.argv[1], 'w'))
" "$tmp/scr/stage1/c/pope_seed0.json"
out=$(ingest "$tmp/b" stage1 c_pope_other 2>&1)
[[ $? -eq 2 && "$out" == *"stage1/c/pope_seed0.json exists and the delivered run does not repeat it"* &&
   ! -e "$tmp/scr/stage1/c/pope_seed1.json" && ! -e "$tmp/scr/stage1/sweep_c_pope_other.log" ]] ||
  fail "a delivered run unlike the committed one was not refused before any copy ($out)"
for bad in "$tmp/b stage3 x" "$tmp/b stage1 a/b" "$tmp/nothing stage1 x" "$tmp/b stage1"; do
  out=$(ingest $bad 2>&1); [[ $? -eq 2 && $(wc -l <<< "$out") -eq 1 ]] || fail "ingest_half.sh $bad was not refused with one line ($out)"
done

# A half whose budget cannot reach the stop is not started: the default least budget for a PoPE
# half to step 40,000 is 443 s (two runs at 128 steps/s, ~15 s of start and evaluations, the
# inspect's 75 s, margins of 30 and 10 s); it follows the stop: PoPE to STOP_AT=20000 needs 287.
out=$(env -u MIN_BUDGET_S bash "$src/results/indirect_indexing/screen/run_cells.sh" c 442 "$tmp/m" pope 2>&1); rc=$?
(( rc == 3 )) && [[ "$out" == "run_cells.sh: the half is not started"*"443 s"* && ! -e "$tmp/m" ]] ||
  fail "a PoPE half with 442 s to step 40,000 was not refused with exit 3 before any work (rc $rc: $out)"
out=$(env -u MIN_BUDGET_S STOP_AT=20000 bash "$src/results/indirect_indexing/screen/run_cells.sh" c 286 "$tmp/m" pope 2>&1); rc=$?
(( rc == 3 )) && [[ "$out" == *"287 s"* && ! -e "$tmp/m" ]] || fail "a PoPE half with 286 s to step 20,000 gave $rc: $out"
out=$(MIN_BUDGET_S=400 bash "$src/results/indirect_indexing/screen/run_cells.sh" c 300 "$tmp/m" rope 2>&1); rc=$?
(( rc == 3 )) && [[ ! -e "$tmp/m" ]] || fail "MIN_BUDGET_S=400 did not refuse a 300 s budget (rc $rc: $out)"
for bad in "SHARD=2" "STOP_AT=x" "KEEP=-1" "ALONG=yes" "MIN_BUDGET_S=5m"; do
  out=$(env "$bad" bash "$src/results/indirect_indexing/screen/run_cells.sh" c 300 "$tmp/bad" rope 2>&1)
  [[ $? -eq 2 && "$out" == run_cells.sh:* && ! -e "$tmp/bad" ]] || fail "$bad was not refused with exit 2 before any work ($out)"
done
cells nosuchcell 300 "$tmp/c" rope > /dev/null 2>&1
rc=$?
(( rc == 2 )) && grep -q "nosuchcell" "$tmp/c/screen.log" || fail "an unknown cell gave exit $rc, not 2 with its error in the log"
# A stop (TERM) ends the command within seconds with 143, stops the sweep and packs nothing.
sed 's/"--steps", "30"/"--steps", "1000000"/' "$tmp/plan.json" > "$tmp/long.json"
PLAN="$tmp/long.json" STOP_AT=0 bash "$src/results/indirect_indexing/screen/run_cells.sh" c 300 "$tmp/d" rope > /dev/null 2>&1 &
pid=$!
sleep 3
kill -TERM $pid
t=$(date +%s)
wait $pid
rc=$?
(( rc == 143 && $(date +%s) - t < 20 )) || fail "a stop gave exit $rc after $(( $(date +%s) - t )) s, not 143 at once"
pgrep -f "sweep $tmp/long.json" > /dev/null && fail "the sweep outlived a stop of run_cells.sh"
[[ ! -e "$tmp/d/screen_runs.tgz" ]] || fail "a stopped run_cells.sh packed its runs"

# cells_across_calls.sh: the same line run as several commands starts the job once, reports it
# running (75), and delivers run_cells.sh's files with its status once it has finished.
across() { bash "$src/results/indirect_indexing/screen/cells_across_calls.sh" "$@"; }
export JOBS_DIR="$tmp/jobs"
# The job runs its own copy of the binary: the original removed right after the first call (as a
# later command's carry may replace it) leaves the job's sweep and inspects working.
cp "$bin" "$tmp/pb"
out=$(POPEBENCH="$tmp/pb" across short 0 "$tmp/e1" c 300 rope); rc=$?
rm -f "$tmp/pb"
[[ "$out" == *"started at"* ]] && (( rc == 75 || rc == 0 )) || fail "the first call of a job gave $rc: $out"
out=$(POPEBENCH="$tmp/pb" across short 120 "$tmp/e2" c 300 rope); rc=$?
(( rc == 0 )) && [[ "$out" == *"finished with rc 0"* && "$out" != *"started at"* ]] || fail "the second call gave $rc: $out"
runs=$(list "$tmp/e2/screen_runs.tgz")
[[ "$runs" == "screen/c/rope_seed0.json screen/c/rope_seed0.steps.csv screen/c/rope_seed1.json screen/c/rope_seed1.steps.csv " ]] ||
  fail "the job delivered '$runs'"
[[ -e "$tmp/e2/run_cells.log" && -e "$tmp/e2/session.txt" ]] || fail "the job's log or session.txt is missing"
ins=$(list "$tmp/e2/inspect.tgz")
[[ "$ins" == "inspect/c/rope_seed0.inspect.json inspect/c/rope_seed1.inspect.json inspect/stderr.log " ]] ||
  fail "the job delivered inspects '$ins'"
out=$(POPEBENCH="$tmp/pb" STOP_AT=10 across short 1 "$tmp/e3" c 300 rope 2>&1); rc=$?
(( rc == 2 )) && [[ "$out" == *"was started as"* && ! -e "$tmp/e3" ]] || fail "a call with other settings gave $rc: $out"
out=$(POPEBENCH="$tmp/nosuchbinary" across nobin 1 "$tmp/e5" c 300 rope 2>&1); rc=$?
(( rc == 2 )) && [[ "$out" == *"no binary"* && ! -e "$JOBS_DIR/nobin" ]] || fail "a missing binary gave $rc: $out"
for bad in "bad/name 1 $tmp/e4 c 300" "ok 1x $tmp/e4 c 300" "ok 1 $tmp/e4 c 3x0"; do
  out=$(across $bad 2>&1); rc=$?
  (( rc == 2 )) && [[ "$out" == cells_across_calls.sh:* ]] || fail "'$bad' was not refused with exit 2 ($out)"
done
# A long job: running across calls, then stopped; the stop takes its sweep with it.
PLAN="$tmp/long.json" STOP_AT=0 across long 2 "$tmp/f1" c 300 rope > /dev/null; rc=$?
(( rc == 75 )) || fail "a long job's first call gave $rc, not 75"
out=$(PLAN="$tmp/long.json" STOP_AT=0 across long 1 "$tmp/f2" c 300 rope); rc=$?
(( rc == 75 )) && [[ "$out" == *"running since"* ]] || fail "a long job's second call gave $rc: $out"
t=$(date +%s)
across long stop > /dev/null || fail "stop failed"
(( $(date +%s) - t < 20 )) || fail "stop took $(( $(date +%s) - t )) s"
pgrep -f "sweep $tmp/long.json" > /dev/null && fail "the sweep outlived a stop of its job"
[[ ! -e "$JOBS_DIR/long/work" ]] || fail "a stopped job left its work folder"
out=$(PLAN="$tmp/long.json" STOP_AT=0 across long 1 "$tmp/f3" c 300 rope); rc=$?
(( rc == 143 )) || fail "a call after the stop gave $rc, not 143: $out"
# A job killed outright (no status written) is reported, not waited on.
PLAN="$tmp/long.json" STOP_AT=0 across killed 1 "$tmp/g1" c 300 rope > /dev/null
kill -KILL -- -"$(cat "$JOBS_DIR/killed/pid")"
sleep 1
out=$(PLAN="$tmp/long.json" STOP_AT=0 across killed 30 "$tmp/g2" c 300 rope 2>&1); rc=$?
(( rc == 1 )) && [[ "$out" == *"without a status"* ]] || fail "a killed job gave $rc: $out"

# gated_call.sh: the screen half runs on the new binary only after its GPU tests passed on this
# machine and its eq rerun repeated the committed runs; otherwise on KNOWN_GOOD. The new binary
# is a wrapper that logs its arguments: run_cells.sh asks the binary it uses for --version.
g="$tmp/gc"; mkdir -p "$g/committed"
STOP_AT=0 cells c 300 "$g/ref" rope > /dev/null 2>&1 || fail "the committed runs for gated_call exited $?"
tar xzf "$g/ref/screen_runs.tgz" -C "$g/committed" --strip-components=1
printf '#!/bin/sh\necho "$@" >> %s\nexec %s "$@"\n' "$g/new.log" "$bin" > "$g/new"
printf '#!/bin/sh\nexit 0\n' > "$g/tests_pass"; printf '#!/bin/sh\nexit 1\n' > "$g/tests_fail"
printf '#!/bin/sh\nsleep 5\nexit 0\n' > "$g/tests_slow"
chmod +x "$g/new" "$g/tests_pass" "$g/tests_fail" "$g/tests_slow"
cp -r "$g/committed" "$g/altered"
/usr/bin/python3 -c "
import json, sys
p = sys.argv[1]; r = json.load(open(p)); r['curve'][1]['val_loss'] += 1e-9; json.dump(r, open(p, 'w'))" "$g/altered/c/rope_seed1.json"
gated() {  # NAME TESTS COMMITTED EXTRAS...: one call on a fresh STATE unless NAME's exists
  local name=$1 tests=$2 committed=$3; shift 3
  : > "$g/new.log"
  POPEBENCH="$g/new" KNOWN_GOOD="$bin" CUDA_TESTS="$g/$tests" STATE="$g/state_$name" COMMITTED="$g/$committed" \
    EQ_CELL=c EQ_STEPS=20 bash "$src/results/indirect_indexing/screen/gated_call.sh" c rope 300 "$g/out_$name" "$@" \
    > "$g/$name.out" 2>&1
}
used_new() { grep -q -- "--version" "$g/new.log"; }
gated pass tests_pass committed gate eq || fail "a passing gate's call exited $?"
used_new && grep -q "^same bits: " "$g/pass.out" && [[ "$(cat "$g/state_pass/gate")" == pass ]] ||
  fail "tests passed and eq equal, but the screen did not run on the new binary: $(cat "$g/pass.out")"
tar tzf "$g/out_pass/screen_runs.tgz" | grep -q "screen/c/rope_seed1.json" || fail "the gated half packed no runs"
tar tzf "$g/out_pass/extras.tgz" | grep -q "extras/eq_rope.same_bits" || fail "extras.tgz holds no eq comparison"
gated pass tests_pass committed || fail "a later call on the passed gate exited $?"
used_new || fail "a later call on a passed gate did not use the new binary"
gated tests tests_fail committed gate eq
! used_new && grep -q "known-good binary: fail: GPU tests exit 1" "$g/tests.out" ||
  fail "failing GPU tests did not send the screen to the known-good binary: $(cat "$g/tests.out")"
gated eq tests_pass altered gate eq
! used_new && grep -q "rope_seed1.json differs" "$g/eq.out" ||
  fail "an eq rerun that differs did not send the screen to the known-good binary: $(cat "$g/eq.out")"
gated fresh tests_pass committed eq
! used_new && grep -q "no GPU tests on this machine yet" "$g/fresh.out" ||
  fail "eq without the GPU tests on this machine used the new binary: $(cat "$g/fresh.out")"
GATE_TESTS_S=1 gated slow tests_slow committed gate eq
! used_new && grep -q "known-good binary: fail: GPU tests exit 124" "$g/slow.out" ||
  fail "GPU tests past GATE_TESTS_S did not fail the gate: $(cat "$g/slow.out")"
out=$(POPEBENCH="$g/new" GATE_TESTS_S=0 bash "$src/results/indirect_indexing/screen/gated_call.sh" c rope 300 "$g/bad" gate 2>&1); rc=$?
(( rc == 2 )) && [[ "$out" == "gated_call.sh: GATE_TESTS_S must be"* && ! -e "$g/bad" ]] ||
  fail "GATE_TESTS_S=0 was not refused with exit 2 ($out)"
MIN_BUDGET_S=1000 gated short tests_pass committed gate
rc=$?
(( rc == 3 )) && grep -q "half is not started" "$g/short.out" && [[ ! -e "$g/out_short/screen_runs.tgz" && -s "$g/out_short/extras.tgz" ]] ||
  fail "a budget below MIN_BUDGET_S did not skip the half to the extras with exit 3 (rc $rc): $(cat "$g/short.out")"
for bad in "c x 300" "c rope 3x0" "c rope 300 OUT bogus"; do
  set -- $bad
  out=$(bash "$src/results/indirect_indexing/screen/gated_call.sh" "$1" "$2" "$3" "$g/bad" "${@:5}" 2>&1); rc=$?
  (( rc == 2 )) && [[ "$out" == gated_call.sh:* && ! -e "$g/bad" ]] || fail "'$bad' was not refused with exit 2 ($out)"
done

echo "run_cells: $fails failed"
(( fails == 0 ))
