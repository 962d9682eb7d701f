#!/usr/bin/env bash
# One part of a `popebench sweep` on a machine that keeps no disk between commands (a lent GPU
# that runs one command at a time under a time limit): restores the sweep's folder from the
# archive a previous part wrote in STATE_IN (`-`: a fresh start), trains until BUDGET_S seconds
# (`--time-limit`: every unfinished run checkpoints), then writes the whole folder, checkpoints
# included, to STATE_OUT as sweep.tgz.part-aa, -ab, ... of at most 15 MiB each, and the part's log
# as sweep.log. Carried back to the machine as the next command's STATE_IN, the archive lets that
# command continue every run exactly where this one stopped (a resumed run is the uninterrupted
# one: tests/test_training.cpp), so a machine lost between commands costs one command's steps,
# not the sweep. For small models only: the archive holds every run's checkpoint (the quick
# model's are ~1-5 MB; the paper model's 300 MB are beyond any carry).
#   bash results/sweep_part.sh PLAN BUDGET_S STATE_IN STATE_OUT [sweep options...]
# Exit status: the sweep's (0: every run finished, 75: stopped by the time limit, rerun to go on).
# POPEBENCH names the binary (default build/popebench).
set -u -o pipefail
plan=${1:?PLAN} budget=${2:?BUDGET_S} state_in=${3:?STATE_IN} state_out=${4:?STATE_OUT}
shift 4
bin=${POPEBENCH:-build/popebench}
work=$(mktemp -d /tmp/sweep_part.XXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sweep" "$work/parts"
if [[ "$state_in" != - ]]; then
  compgen -G "$state_in/sweep.tgz.part-*" > /dev/null ||
    { echo "sweep_part.sh: $state_in holds no sweep.tgz.part-* (use - for a fresh start)" >&2; exit 2; }
  cat "$state_in"/sweep.tgz.part-* | tar xzf - -C "$work" ||
    { echo "sweep_part.sh: $state_in/sweep.tgz.part-* is not a whole archive" >&2; exit 2; }
fi
mkdir -p "$state_out"
"$bin" sweep "$plan" --out "$work/sweep" --time-limit "$budget" "$@" > "$state_out/sweep.log" 2>&1
rc=$?
echo "sweep exit status $rc" >> "$state_out/sweep.log"
# Kept step checkpoints (--keep-checkpoints) are not needed to resume and stay out of the archive.
# The parts are written beside and moved in whole, so STATE_OUT never holds a cut archive.
tar czf - --exclude='*.ckpt.step*' -C "$work" sweep | split -b 15M - "$work/parts/sweep.tgz.part-" ||
  { echo "sweep_part.sh: could not archive the sweep" >&2; exit 1; }
rm -f "$state_out"/sweep.tgz.part-*
mv "$work"/parts/sweep.tgz.part-* "$state_out"/
exit $rc
