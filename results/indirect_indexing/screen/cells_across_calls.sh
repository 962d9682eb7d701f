#!/usr/bin/env bash
# run_cells.sh as a job that outlives the command that starts it, for work longer than one
# command of a lent GPU (10 minutes) but shorter than the session that holds the machine: a PE's
# half of batch256 (~14-17 minutes), or the three seeds of a 100,000-step continuation trained as
# one batch (~15-18 minutes, against ~19-20 one run per command). Each device command runs the same
# line; the first starts the job detached (setsid), every one then waits for it up to WAIT_S
# seconds; the command during which it finishes copies its four files (run_cells.sh's OUT_DIR) into
# its own OUT_DIR. The job lives on the machine's disk: if the machine is given back between
# commands, the job is gone with it, and the next command, on a new machine, says so and starts it
# again from scratch (its runs are deterministic).
#   bash results/indirect_indexing/screen/cells_across_calls.sh JOB WAIT_S OUT_DIR CELLS BUDGET_S [PE]
#   bash results/indirect_indexing/screen/cells_across_calls.sh JOB stop
# JOB: a name for the job (letters, digits, '.', '_', '-'); CELLS BUDGET_S PE: run_cells.sh's, its
# BUDGET_S counted from the job's start. run_cells.sh's settings (SHARD, STOP_AT, KEEP, ALONG,
# CONCURRENT, MIN_BUDGET_S, PLAN, POPEBENCH) are taken from the environment of the command that starts the job; a later
# command whose arguments or settings differ is refused (exit 2), so that one job is one thing.
# Exit status: 75 while the job runs (run the same line again); once it has finished, run_cells.sh's.
# `stop` stops the job (TERM: run_cells.sh stops its sweep and inspects, packs nothing), waits
# for it to end and records it as ended with 143, which later commands of the same JOB report
# (a new JOB name starts it again). Jobs live in JOBS_DIR (default /tmp/popebench_jobs).
set -u
job=${1:?JOB}
[[ "$job" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "cells_across_calls.sh: JOB must be letters, digits, '.', '_' or '-' (got '$job')" >&2; exit 2; }
dir=${JOBS_DIR:-/tmp/popebench_jobs}/$job
here=$(cd "$(dirname "$0")" && pwd)

if [[ "${2:-}" == stop ]]; then
  [[ -f "$dir/pid" ]] || { echo "cells_across_calls.sh: no job $job on this machine" >&2; exit 2; }
  pid=$(cat "$dir/pid")
  [[ -e "$dir/rc" ]] && { echo "job $job had already ended (rc $(cat "$dir/rc"))"; exit 0; }
  # The job is its own process group (setsid): TERM to all of it, run_cells.sh's sweep included;
  # run_cells.sh's trap stops its inspects and removes its work folder.
  kill -TERM -- -"$pid" 2>/dev/null
  while kill -0 -- -"$pid" 2>/dev/null; do sleep 1; done
  echo 143 > "$dir/rc"
  echo "job $job stopped"
  exit 0
fi

wait_s=${2:?WAIT_S} out=${3:?OUT_DIR} cells=${4:?CELLS} budget=${5:?BUDGET_S} pe=${6:-}
for v in "$wait_s" "$budget"; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "cells_across_calls.sh: '$v' is not a whole number (WAIT_S, BUDGET_S)" >&2; exit 2; }
done
# What makes the job: its arguments and run_cells.sh's settings.
spec="cells=$cells budget=$budget pe=$pe SHARD=${SHARD:-} STOP_AT=${STOP_AT:-} KEEP=${KEEP:-} ALONG=${ALONG:-} CONCURRENT=${CONCURRENT:-} MIN_BUDGET_S=${MIN_BUDGET_S:-} PLAN=${PLAN:-} POPEBENCH=${POPEBENCH:-}"
t0=$(date +%s)

if [[ -f "$dir/spec" ]]; then
  [[ "$(cat "$dir/spec")" == "$spec" ]] ||
    { echo "cells_across_calls.sh: job $job was started as '$(cat "$dir/spec")', not '$spec'" >&2; exit 2; }
  echo "job $job: running since $(date -u -d @"$(cat "$dir/start")" '+%T') UTC ($(( t0 - $(cat "$dir/start") )) s)"
else
  mkdir -p "$dir/bin" || { echo "cells_across_calls.sh: cannot create $dir" >&2; exit 2; }
  # The job runs its own copies of run_cells.sh, the binary and the shared libraries beside it: a
  # later command may carry the working tree (and a rebuilt binary) over the originals while the
  # job still reads them.
  bin=${POPEBENCH:-.devbin/popebench}
  [[ -x "$bin" ]] || { echo "cells_across_calls.sh: no binary $bin (POPEBENCH)" >&2; rm -rf "$dir"; exit 2; }
  cp -p "$here/run_cells.sh" "$dir/run_cells.sh" && cp -p "$bin" "$dir/bin/popebench" &&
    find "$(dirname "$bin")" -maxdepth 1 -name '*.so*' -exec cp -p {} "$dir/bin/" \; ||
    { echo "cells_across_calls.sh: cannot copy the job's files into $dir" >&2; rm -rf "$dir"; exit 2; }
  echo "$spec" > "$dir/spec"
  echo "$t0" > "$dir/start"
  # Detached from this command (its own session, no terminal): it goes on when the command ends.
  # The rc file is written last, so its presence means the outputs are complete.
  WORK="$dir/work" POPEBENCH="$dir/bin/popebench" LD_LIBRARY_PATH="$dir/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  setsid nohup bash -c '
    bash "$1/run_cells.sh" "$2" "$3" "$1/out" ${4:+"$4"} > "$1/run_cells.log" 2>&1
    echo $? > "$1/rc.tmp" && mv "$1/rc.tmp" "$1/rc"' _ "$dir" "$cells" "$budget" "$pe" \
    < /dev/null > /dev/null 2>&1 &
  echo $! > "$dir/pid"
  echo "job $job: started at $(date -u '+%T') UTC (no such job on this machine before)"
fi

while [[ ! -e "$dir/rc" ]] && (( $(date +%s) - t0 < wait_s )); do
  if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
    sleep 1  # its rc may be landing; a job gone without one was killed from outside
    [[ -e "$dir/rc" ]] || { echo "cells_across_calls.sh: job $job ended without a status (killed?); see $dir" >&2; exit 1; }
  fi
  sleep 2
done
if [[ ! -e "$dir/rc" ]]; then
  echo "job $job: still running after $(( $(date +%s) - $(cat "$dir/start") )) s; last sweep line:"
  tail -n 1 "$dir/work/screen.log" 2>/dev/null
  exit 75
fi
rc=$(cat "$dir/rc")
mkdir -p "$out"
# Copied beside OUT_DIR's files first and renamed into place, so a command cut mid-copy leaves no
# half-written file there.
for f in "$dir"/out/* "$dir/run_cells.log"; do
  [[ -f "$f" ]] || continue
  cp -p "$f" "$out/.$(basename "$f").part" && mv "$out/.$(basename "$f").part" "$out/$(basename "$f")" ||
    { echo "cells_across_calls.sh: cannot copy $f into $out" >&2; exit 1; }
done
echo "job $job: finished with rc $rc after $(( $(date +%s) - $(cat "$dir/start") )) s; its files copied to $out"
exit "$rc"
