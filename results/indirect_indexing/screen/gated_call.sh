#!/usr/bin/env bash
# One device command of the screen (a PE's half of a cell, run_cells.sh) for a binary whose kernels
# changed since the last one that passed on the GPU, with a gate: the screen uses the new binary
# only once every GPU test has passed and a committed cell's runs, rerun to a few thousand steps
# with it, repeat their committed curves and step logs bit for bit (tools/same_bits.py).
# Otherwise it runs on the known-good binary, so that every cell of the screen stays comparable
# with the baseline. The gate's outcome is kept in STATE, on the machine's disk, for the later
# commands of the same session (a fresh machine has no STATE: its first command gates again).
# Then, in what is left of TOTAL_S, measurements of the new binary.
#
#   gated_call.sh CELL PE TOTAL_S OUT_DIR [gate] [eq] [bench] [ncu] [tests]
#
#   CELL   a cell of the plan, or - for no screen half (extras only)
#   gate   run every GPU test of CUDA_TESTS first (its log: EXTRAS/gate_tests.log)
#   eq     rerun EQ_CELL's PE half to EQ_STEPS with POPEBENCH and compare with COMMITTED/EQ_CELL
#   bench  `popebench bench --attention-lengths 48 --iters 30 --batch-runs 8` (EXTRAS/bench_fp32.json)
#   ncu    Nsight Compute's stall and occupancy sections for PoPE's whole-sequence backward at D 64
#   tests  every GPU test again, at the end
# Extras (their logs and JSON) are packed into OUT_DIR/extras.tgz.
# Environment: POPEBENCH (the new binary; default .devbin/popebench); KNOWN_GOOD (the fallback;
# gating is on only when it is set); CUDA_TESTS (default: popebench_cuda_tests beside POPEBENCH);
# STATE (default /tmp/popebench_gate); PLAN (run_cells.sh's plan, also the eq rerun's; default
# the screen's); COMMITTED (default this folder's stage1/); EQ_CELL (default abs_pos_learned);
# EQ_STEPS (default 2000); GATE_TESTS_S (the gate's limit on the GPU tests, default 170: they
# take 72-95 s alone on an H200 or H100, and more than 170 beside 21 training runs, which a gate
# then reads as a failure); MIN_BUDGET_S (run_cells.sh's: the least budget a half is started with).
# Exit: run_cells.sh's status (3 when the half's budget, TOTAL_S less the time already taken and
# the extras' reserve, could not reach the stop: the half is not started, the extras still run),
# 2 on bad input.
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: gated_call.sh CELL PE TOTAL_S OUT_DIR [gate] [eq] [bench] [ncu] [tests]"
(( $# >= 4 )) || { echo "gated_call.sh: $usage" >&2; exit 2; }
cell=$1 pe=$2 total=$3 out=$4; shift 4
[[ "$total" =~ ^[0-9]+$ ]] || { echo "gated_call.sh: TOTAL_S must be a number of seconds (got '$total')" >&2; exit 2; }
[[ "$pe" == rope || "$pe" == pope ]] || { echo "gated_call.sh: PE must be rope or pope (got '$pe')" >&2; exit 2; }
for x in "$@"; do
  case $x in gate|eq|bench|ncu|tests) ;; *) echo "gated_call.sh: unknown extra '$x' ($usage)" >&2; exit 2;; esac
done
bin=${POPEBENCH:-.devbin/popebench}
tests_bin=${CUDA_TESTS:-$(dirname "$bin")/popebench_cuda_tests}
state=${STATE:-/tmp/popebench_gate}
plan=${PLAN:-$here/screen.json}
committed=${COMMITTED:-$here/stage1}
eq_cell=${EQ_CELL:-abs_pos_learned} eq_steps=${EQ_STEPS:-2000} gate_tests_s=${GATE_TESTS_S:-170}
[[ -x "$bin" ]] || { echo "gated_call.sh: POPEBENCH $bin is not an executable" >&2; exit 2; }
[[ -z "${KNOWN_GOOD:-}" || -x "$KNOWN_GOOD" ]] || { echo "gated_call.sh: KNOWN_GOOD $KNOWN_GOOD is not an executable" >&2; exit 2; }
[[ "$eq_steps" =~ ^[1-9][0-9]*$ ]] || { echo "gated_call.sh: EQ_STEPS must be a positive number (got '$eq_steps')" >&2; exit 2; }
[[ "$gate_tests_s" =~ ^[1-9][0-9]*$ ]] || { echo "gated_call.sh: GATE_TESTS_S must be a positive number of seconds (got '$gate_tests_s')" >&2; exit 2; }
t0=$(date +%s); left() { echo $(( total - ($(date +%s) - t0) )); }
extras="$state/extras"
mkdir -p "$extras" "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$extras/gpu.txt" 2>&1

fail_gate() { echo "fail: $*" > "$state/gate"; echo "gate failed: $*"; }
for x in "$@"; do
  case $x in
    gate)
      echo pass > "$state/gate"
      (cd "$(dirname "$tests_bin")" && timeout "$gate_tests_s" "./$(basename "$tests_bin")") > "$extras/gate_tests.log" 2>&1
      rc=$?
      echo "gate tests rc=$rc after $(( $(date +%s) - t0 )) s"
      (( rc == 0 )) || fail_gate "GPU tests exit $rc (gate_tests.log)";;
    eq)
      # eq can only fail a gate: on a machine whose GPU tests have not run, the screen stays on
      # the known-good binary whatever eq finds.
      [[ -e "$state/gate" ]] || fail_gate "no GPU tests on this machine yet"
      rm -rf "$extras/eq_$pe"
      timeout 300 "$bin" sweep "$plan" --out "$extras/eq_$pe" --cells "$eq_cell" --pe "$pe" --stop-at "$eq_steps" \
        --concurrent 2 > "$extras/eq_$pe.log" 2>&1
      rc=$?
      echo "eq rc=$rc after $(( $(date +%s) - t0 )) s"
      (( rc == 0 || rc == 75 )) || fail_gate "the eq rerun exit $rc (eq_$pe.log)"
      n=0
      for f in "$extras/eq_$pe/$eq_cell/${pe}"_seed*.json; do
        [[ -e "$f" ]] || continue
        n=$((n + 1))
        PYTHONPATH="$here/../../.." python3 -m tools.same_bits "$committed/$eq_cell/$(basename "$f")" "$f" --steps "$eq_steps" \
          >> "$extras/eq_$pe.same_bits" 2>&1 || fail_gate "$(basename "$f") differs from the committed run (eq_$pe.same_bits)"
      done
      (( n > 0 )) || fail_gate "the eq rerun wrote no run"
      cat "$extras/eq_$pe.same_bits" 2>/dev/null;;
  esac
done

use=$bin
if [[ -n "${KNOWN_GOOD:-}" ]]; then
  if [[ "$(cat "$state/gate" 2>/dev/null)" != pass ]]; then
    use=$KNOWN_GOOD
    echo "the screen runs with the known-good binary: $(cat "$state/gate" 2>/dev/null || echo 'no gate on this machine')"
  fi
fi
reserve=0
for x in "$@"; do case $x in bench) reserve=$((reserve + 110));; ncu) reserve=$((reserve + 90));; tests) reserve=$((reserve + 150));; esac; done
rc=0
if [[ "$cell" != - ]]; then
  budget=$(( $(left) - reserve )); (( budget > 0 )) || budget=0
  POPEBENCH=$use PLAN=$plan bash "$here/run_cells.sh" "$cell" "$budget" "$out" "$pe"
  rc=$?
  echo "run_cells rc=$rc with $use after $(( $(date +%s) - t0 )) s"
fi
for x in "$@"; do
  l=$(left); (( l > 30 )) || break
  case $x in
    bench) timeout $(( l - 10 )) "$bin" bench --attention-lengths 48 --iters 30 --batch-runs 8 --gpu-attention fp32 \
             --out "$extras/bench_fp32.json" > "$extras/bench.log" 2>&1
           echo "bench rc=$? left $(left)";;
    # PoPE's backward at D 64 by its demangled name, as ncu lists it:
    # attention_bwd_short_kernel<(int)64, (popebench::cuda::PEKind)2> (2: kPope). By the bare
    # function name ncu took the step benchmark's first launches, RoPE's (results/bench, e1116fc);
    # a pattern without the casts, <64, ...2>, matched nothing (seventeenth session).
    ncu) timeout $(( l - 10 )) ncu --clock-control none --kernel-name-base demangled \
           --kernel-name 'regex:attention_bwd_short_kernel<\(int\)64, \(popebench::cuda::PEKind\)2>' --launch-count 2 \
           --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
           "$bin" bench --attention-lengths 48 --iters 2 --warmup 1 --out "$extras/ncu_bench.json" > "$extras/ncu_bwd.txt" 2>&1
         echo "ncu rc=$? left $(left)";;
    tests) (cd "$(dirname "$tests_bin")" && timeout $(( l - 20 > 150 ? 150 : l - 20 )) "./$(basename "$tests_bin")") \
             > "$extras/cuda_tests.log" 2>&1
           echo "tests rc=$? left $(left)";;
  esac
done
cp "$state/gate" "$extras/gate" 2>/dev/null
tar czf "$out/extras.tgz.tmp" --exclude='*.ckpt*' -C "$state" extras && mv "$out/extras.tgz.tmp" "$out/extras.tgz"
echo "done after $(( $(date +%s) - t0 )) s"
exit $rc
