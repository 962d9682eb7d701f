#!/usr/bin/env bash
# Runs screen cells to the plan's 40,000-step stop and inspects each run's last checkpoint, all
# inside one wall-clock budget, then packs what came of it (run JSONs, step logs, inspect JSONs,
# the log; no checkpoints) into OUT_DIR as two archives. For a GPU machine lent one command at a
# time with a time limit and no disk kept between commands: runs that fit one command lose nothing
# if the machine is gone before the next (a sweep over several commands loses it all). One PE's
# half of a cell (two runs, one batch) reaches the stop in ~5 minutes of one H200; a whole
# four-run cell needs ~8.5, too close to a 10-minute command with its inspect.
#   bash results/indirect_indexing/screen/run_cells.sh CELLS BUDGET_S OUT_DIR [PE]
# CELLS: screen.json cell names, comma-separated; BUDGET_S: seconds this may take in all; PE:
# rope or pope to run one PE's half only. POPEBENCH names the binary (default .devbin/popebench).
# The sweep stops its runs (resumable, their JSONs marked partial) when the budget less the
# inspect's share is spent; inspect takes what is left, 1,000 test examples when it can.
set -u
cells=${1:?CELLS} budget=${2:?BUDGET_S} out=${3:?OUT_DIR} pe=${4:-}
bin=${POPEBENCH:-.devbin/popebench}
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) )); }
work=$(mktemp -d /tmp/cells.XXXX)
mkdir -p "$out" "$work/inspect"
inspect_s=75  # up to 4 checkpoints at once, 1,000 examples, 16 cores shared: ~60 s
{
  date -u '+start %F %T UTC'
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
  "$bin" --version
} > "$work/session.txt" 2>&1
"$bin" sweep results/indirect_indexing/screen/screen.json --out "$work/screen" --cells "$cells" ${pe:+--pe "$pe"} \
  --stop-at 40000 --concurrent 4 --keep-checkpoints 20000 --time-limit $(( budget - inspect_s - 30 )) \
  > "$work/screen.log" 2>&1
rc=$?
echo "sweep rc=$rc at $(date -u '+%T') UTC" >> "$work/session.txt"
cks=$(find "$work/screen" -name '*.json.ckpt' | sort)
at_once=$(echo "$cks" | grep -c .); (( at_once <= 4 )) || at_once=4; (( at_once > 0 )) || at_once=1
threads=$(( $(nproc) / at_once )); (( threads > 0 )) || threads=1
for ck in $cks; do
  (( $(left) > 25 )) || break
  cell=$(basename "$(dirname "$ck")"); name=$(basename "$ck" .json.ckpt)
  n=1000; (( $(left) > inspect_s )) || n=400
  mkdir -p "$work/inspect/$cell"
  timeout $(( $(left) - 15 )) "$bin" inspect "$ck" --split test --examples $n --show 30 --threads $threads \
    --out "$work/inspect/$cell/$name.inspect.json" > /dev/null 2>> "$work/inspect/errors.log" &
  (( $(jobs -r | wc -l) < at_once )) || wait -n
done
wait
echo "inspect done at $(date -u '+%T') UTC" >> "$work/session.txt"
cp "$work/screen.log" "$work/session.txt" "$out/"
tar czf "$out/inspect.tgz" -C "$work" inspect
tar czf "$out/screen_runs.tgz" --exclude='*.ckpt*' -C "$work" screen
# The sweep's own status when it failed (2: bad input, e.g. an unknown cell, with its one-line
# error in screen.log); 0 when it trained (75, stopped by the budget, is no failure here).
(( rc == 0 || rc == 75 )) || exit $rc
