#!/usr/bin/env bash
# Runs `popebench inspect` on every checkpoint a screen sweep left in SWEEP_DIR (each run's last
# checkpoint and the kept RUN.json.ckpt.stepN ones), JOBS at a time, and writes the JSONs into
# OUT_DIR/<cell>/<run>[.stepN].inspect.json. PATTERN (a find -name pattern) picks which, e.g.
# '*.json.ckpt' for each run's last checkpoint only. On the device machine, after the sweep:
#   bash results/indirect_indexing/screen/inspect_runs.sh /tmp/screen $OUT/inspect 4 2000 '*.json.ckpt'
set -u
sweep=${1:?SWEEP_DIR} out=${2:?OUT_DIR} jobs=${3:-4} examples=${4:-2000} pattern=${5:-*.json.ckpt*}
bin=${POPEBENCH:-.devbin/popebench}
threads=$(( $(nproc) / jobs ))
(( threads > 0 )) || threads=1
find "$sweep" -name "$pattern" | sort | while read -r ck; do
  cell=$(basename "$(dirname "$ck")")
  name=$(basename "$ck" | sed 's/\.json\.ckpt//')
  echo "$ck $out/$cell/$name.inspect.json"
done | xargs -P "$jobs" -n 2 sh -c '"$0" inspect "$1" --split test --examples '"$examples"' --show 30 --threads '"$threads"' --out "$2"' "$bin"
