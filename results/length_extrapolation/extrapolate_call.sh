#!/usr/bin/env bash
# One device command of a `popebench extrapolate` job on a lent GPU (one command at a time, at most
# 10 minutes, files back only through OUT_DIR, at most 16 MiB each). The job's folder WORK stays
# on the machine's disk between the commands of one session: `extrapolate --time-limit` leaves
# every finished run and evaluation as a file and every unfinished run checkpointed, so running
# the same line again on the same machine goes on where the last command stopped (exit 75 until
# the job is done). A machine given back between commands takes WORK with it; the next command
# then starts from scratch, and its runs are the same bits (deterministic). Unlike
# results/sweep_part.sh, no state is carried between machines: 21 checkpoints of a d-128 model
# (~5 MB each) are more than a device command can carry in.
#
# Each command packs WORK, checkpoints left out, into OUT_DIR/NAME.tgz (written beside, then
# moved in whole) and copies the job's log, every command's part of it, to OUT_DIR/NAME.log.
#   bash results/length_extrapolation/extrapolate_call.sh WORK BUDGET_S OUT_DIR NAME [extrapolate options...]
# BUDGET_S: the seconds given to `extrapolate --time-limit` in this command; pass every option
# but --out and --time-limit, the same ones in every command of the job (the first command's are
# kept in WORK/options and a later command with other options is refused, so one WORK is one
# job). POPEBENCH names the binary (default build/popebench).
# Exit status: extrapolate's (0: done; 75: stopped by the time limit, run the line again), 2 on
# bad input, 1 when the archive cannot be written.
set -u -o pipefail
usage="usage: extrapolate_call.sh WORK BUDGET_S OUT_DIR NAME [extrapolate options...]"
(( $# >= 4 )) || { echo "extrapolate_call.sh: $usage" >&2; exit 2; }
work=$1 budget=$2 out=$3 name=$4
shift 4
[[ "$budget" =~ ^[1-9][0-9]*$ ]] || { echo "extrapolate_call.sh: BUDGET_S must be a positive number of seconds (got '$budget')" >&2; exit 2; }
[[ "$name" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "extrapolate_call.sh: NAME must be letters, digits, '.', '_' or '-' (got '$name')" >&2; exit 2; }
for a in "$@"; do
  case $a in
    --out|--out=*|--time-limit|--time-limit=*)
      echo "extrapolate_call.sh: $a is set by the script (WORK and BUDGET_S)" >&2; exit 2;;
  esac
done
bin=${POPEBENCH:-build/popebench}
[[ -x "$bin" ]] || { echo "extrapolate_call.sh: POPEBENCH $bin is not an executable" >&2; exit 2; }

mkdir -p "$work" "$out" || { echo "extrapolate_call.sh: cannot create $work or $out" >&2; exit 2; }
options=$(printf '%q ' "$@")
if [[ -f "$work/options" ]]; then
  [[ "$(cat "$work/options")" == "$options" ]] ||
    { echo "extrapolate_call.sh: $work holds a job with other options ($(cat "$work/options")); use another WORK" >&2; exit 2; }
else
  printf '%s' "$options" > "$work/options"
fi

log="$work/extrapolate.log"
{ echo "== $(date -u +%FT%TZ) extrapolate_call.sh: --time-limit $budget on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null; } >> "$log"
"$bin" extrapolate "$@" --out "$work" --time-limit "$budget" >> "$log" 2>&1
rc=$?
echo "== extrapolate exit status $rc" >> "$log"

# Checkpoints (RUN.ckpt, kept RUN.ckpt.stepN) stay on the machine: they are only needed to resume.
tmp=$(mktemp "$out/.$name.tgz.XXXX") || { echo "extrapolate_call.sh: cannot write in $out" >&2; exit 1; }
if ! tar czf "$tmp" --exclude='*.ckpt' --exclude='*.ckpt.*' --exclude=options -C "$(dirname "$work")" "$(basename "$work")"; then
  rm -f "$tmp"; echo "extrapolate_call.sh: could not archive $work" >&2; exit 1
fi
chmod 644 "$tmp" && mv "$tmp" "$out/$name.tgz" && cp "$log" "$out/$name.log" || { echo "extrapolate_call.sh: could not write $out/$name.*" >&2; exit 1; }
exit $rc
