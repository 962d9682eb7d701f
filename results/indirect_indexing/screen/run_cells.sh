#!/usr/bin/env bash
# Runs screen cells to the plan's 40,000-step stop and inspects each run's last checkpoint, all
# inside one wall-clock budget, then packs what came of it (run JSONs, step logs, inspect JSONs,
# the log; no checkpoints) into OUT_DIR as two archives. For a GPU machine lent one command at a
# time with a time limit and no disk kept between commands: runs that fit one command lose nothing
# if the machine is gone before the next (a sweep over several commands loses it all). One PE's
# half of a cell (two runs, one batch) reaches the stop in 3.8 (RoPE) to 4.7 (PoPE) minutes of one
# H200 (1bf32c5; 4.3-5.4 at 5046a6d), plus 27-42 s of inspect; a whole four-run cell needs ~8-9,
# too close to a 10-minute command.
#   bash results/indirect_indexing/screen/run_cells.sh CELLS BUDGET_S OUT_DIR [PE]
# CELLS: plan cell names, comma-separated; BUDGET_S: seconds this may take in all; PE: rope or
# pope to run one PE's half only. POPEBENCH names the binary (default .devbin/popebench).
# Work that does not fit a command (the 100,000-step continuations; batch256) runs as one job
# across consecutive commands of a held machine (cells_across_calls.sh, beside this), or one run
# per command, chosen by SHARD (below): the benchmark's step of one paper-model run alone (1bf32c5,
# one H200) is 3.80 ms PoPE and 3.20 ms RoPE, 100,000 steps in 5.3-6.3 minutes before evaluations.
# Environment (all optional):
#   SHARD=i/n     run only the i-th of n parts of the run list (sweep --shard; with one cell and
#                 one PE of seeds 0..n-1, i is the seed's place in the cell's list)
#   STOP_AT=N     the stop (default 40000, the plan's early stop; 0: the schedule's end)
#   KEEP=N        keep every N-th step's checkpoint (default 20000)
#   ALONG=1       also inspect each kept checkpoint while the sweep trains, niced, on half the
#                 cores (into inspect/CELL/along/RUN.stepN.inspect.json); a run that completes
#                 is then not inspected again at its last checkpoint, which is its last kept one
#                 when N divides its steps
#   PLAN=FILE     the plan (default results/indirect_indexing/screen/screen.json)
#   WORK=DIR      the work folder, which must not exist yet (default a new /tmp/cells.XXXX); its
#                 screen.log shows the sweep's progress; it is removed at the end either way
#   CONCURRENT=N  runs trained at once (sweep --concurrent; default 4). One process trains them
#                 all, on one CUDA stream a batch: ten paper-model runs at once train ~320 steps/s
#                 in all on one H200 against ~260 for one alone (stage1/device_command.sh)
#   MIN_BUDGET_S=N the least BUDGET_S a sweep is started with (0: any). Below it nothing is
#                 run or written and the exit status is 3. Default: for one PE's half with a
#                 stop (STOP_AT > 0, no SHARD), the time its two runs need to reach the stop on
#                 one H200 (below); 0 otherwise, where the need is not measured
# The sweep stops its runs (resumable, their JSONs marked partial) when the budget less the
# inspect's share is spent; inspect takes what is left, 1,000 test examples when it can.
set -u
cells=${1:?CELLS} budget=${2:?BUDGET_S} out=${3:?OUT_DIR} pe=${4:-}
bin=${POPEBENCH:-.devbin/popebench}
plan=${PLAN:-results/indirect_indexing/screen/screen.json}
stop_at=${STOP_AT:-40000} keep=${KEEP:-20000} along=${ALONG:-0} shard=${SHARD:-} concurrent=${CONCURRENT:-4}
for v in "$budget" "$stop_at" "$keep" "$concurrent"; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "run_cells.sh: '$v' is not a whole number (BUDGET_S, STOP_AT, KEEP, CONCURRENT)" >&2; exit 2; }
done
[[ -z "$shard" || "$shard" =~ ^[0-9]+/[0-9]+$ ]] || { echo "run_cells.sh: SHARD must be i/n (got '$shard')" >&2; exit 2; }
[[ "$along" == 0 || "$along" == 1 ]] || { echo "run_cells.sh: ALONG must be 0 or 1 (got '$along')" >&2; exit 2; }
inspect_s=75  # up to 4 checkpoints at once, 1,000 examples, 16 cores shared: ~60 s
# A half whose sweep cannot reach the stop inside its time limit (BUDGET_S less the inspect's
# share and a 30 s margin) is device time spent on runs that must be trained again: delta_shared's
# first PoPE half stopped 132 steps short of 40,000 in a 409 s budget. Two runs at once train
# 173.5 steps/s each for RoPE and down to 128 for PoPE (bias, e1116fc; 140 at 1bf32c5); the
# sweep's start and its evaluations take ~15 s more; 10 s of slack. RoPE with biases (145.7) needs
# MIN_BUDGET_S set: no cell left to run has it.
if [[ -n "${MIN_BUDGET_S:-}" ]]; then
  min_budget=$MIN_BUDGET_S
  [[ "$min_budget" =~ ^[0-9]+$ ]] || { echo "run_cells.sh: MIN_BUDGET_S must be a number of seconds (got '$min_budget')" >&2; exit 2; }
elif (( stop_at > 0 )) && [[ -z "$shard" ]] && [[ "$pe" == rope || "$pe" == pope ]]; then
  case $pe in rope) rate_x10=1735;; pope) rate_x10=1280;; esac
  min_budget=$(( (stop_at * 10 + rate_x10 - 1) / rate_x10 + 15 + inspect_s + 30 + 10 ))
else
  min_budget=0
fi
if (( budget < min_budget )); then
  echo "run_cells.sh: the half is not started: BUDGET_S $budget is below the $min_budget s it needs to reach step $stop_at (MIN_BUDGET_S)" >&2
  exit 3
fi
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) )); }
if [[ -n "${WORK:-}" ]]; then
  [[ ! -e "$WORK" ]] || { echo "run_cells.sh: WORK $WORK already exists" >&2; exit 2; }
  mkdir -p "$WORK" || { echo "run_cells.sh: cannot create WORK $WORK" >&2; exit 2; }
  work=$WORK
else
  work=$(mktemp -d /tmp/cells.XXXX)
fi
mkdir -p "$out" "$work/inspect"
sweep=
# A stop (TERM, INT) stops the sweep too (its runs checkpoint and their JSONs say partial) and
# the inspects; nothing is packed. The work folder, checkpoints and all, goes either way.
stop() {
  [[ -n "$sweep" ]] && kill -TERM "$sweep" 2>/dev/null
  kill -TERM $(jobs -p) 2>/dev/null
  wait
  exit 143
}
trap stop TERM INT
trap 'rm -rf "$work"' EXIT
inspect() {  # CKPT OUT EXAMPLES THREADS: into OUT only when it finished (a cut one leaves nothing)
  mkdir -p "$(dirname "$2")"
  timeout $(( $(left) - 15 )) nice -n 10 "$bin" inspect "$1" --split test --examples "$3" --show 30 --threads "$4" \
    --out "$2.tmp" > /dev/null 2>> "$work/inspect/stderr.log" && mv "$2.tmp" "$2"
}
along_pass() {  # inspects every kept checkpoint not yet inspected, one at a time; THREADS
  local ck cell name out_json
  for ck in $(find "$work/screen" -regex '.*\.json\.ckpt\.step[0-9]+' 2>/dev/null | sort -V); do
    (( $(left) > 25 )) || return 0
    cell=$(basename "$(dirname "$ck")"); name=$(basename "$ck" | sed 's/\.json\.ckpt\./\./')
    out_json="$work/inspect/$cell/along/$name.inspect.json"
    [[ -e "$out_json" ]] || inspect "$ck" "$out_json" 1000 "$1"
  done
}
{
  date -u '+start %F %T UTC'
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
  "$bin" --version
} > "$work/session.txt" 2>&1
stop_opt=(); (( stop_at > 0 )) && stop_opt=(--stop-at "$stop_at")
"$bin" sweep "$plan" --out "$work/screen" --cells "$cells" ${pe:+--pe "$pe"} ${shard:+--shard "$shard"} \
  "${stop_opt[@]}" --concurrent "$concurrent" --keep-checkpoints "$keep" --time-limit $(( budget - inspect_s - 30 )) \
  > "$work/screen.log" 2>&1 &
sweep=$!
half=$(( $(nproc) / 2 )); (( half > 0 )) || half=1
if [[ "$along" == 1 ]]; then
  while kill -0 $sweep 2>/dev/null; do along_pass $half; sleep 5; done
fi
wait $sweep
rc=$?
echo "sweep rc=$rc at $(date -u '+%T') UTC" >> "$work/session.txt"
[[ "$along" == 1 ]] && along_pass $(nproc)  # the checkpoints the last pass had not seen
cks=$(find "$work/screen" -name '*.json.ckpt' | sort)
if [[ "$along" == 1 ]]; then  # a complete run's last state was inspected as its last kept step
  cks=$(for ck in $cks; do grep -q '"status": "complete"' "${ck%.ckpt}" 2>/dev/null || echo "$ck"; done)
fi
at_once=$(echo "$cks" | grep -c .); (( at_once <= 4 )) || at_once=4; (( at_once > 0 )) || at_once=1
threads=$(( $(nproc) / at_once )); (( threads > 0 )) || threads=1
for ck in $cks; do
  (( $(left) > 25 )) || break
  cell=$(basename "$(dirname "$ck")"); name=$(basename "$ck" .json.ckpt)
  n=1000; (( $(left) > inspect_s )) || n=400
  inspect "$ck" "$work/inspect/$cell/$name.inspect.json" $n $threads &
  (( $(jobs -r | wc -l) < at_once )) || wait -n
done
wait
echo "inspect done at $(date -u '+%T') UTC" >> "$work/session.txt"
# Archives are written in the work folder and moved whole, so OUT_DIR never holds a cut one.
tar czf "$work/inspect.tgz" --exclude='*.tmp' -C "$work" inspect
tar czf "$work/screen_runs.tgz" --exclude='*.ckpt*' -C "$work" screen
mv "$work/screen.log" "$work/session.txt" "$work/inspect.tgz" "$work/screen_runs.tgz" "$out/"
# Exit 3 (above) when the budget could not reach the stop. The sweep's own status when it failed
# (2: bad input, e.g. an unknown cell, with its one-line error in screen.log); 0 when it trained
# (75, stopped by the budget, is no failure here).
(( rc == 0 || rc == 75 )) || exit $rc
