#!/usr/bin/env bash
# One device command of the plan's base models (PLAN.md, "Runs"), one part of the table at a time,
# so that each part (its runs, evaluations and the fine-tunes that start from its checkpoints)
# finishes within the session that trains it: checkpoints do not come back from the device.
#   bash results/lm_extrapolation/base_call.sh WORK BUDGET_S OUT_DIR PART [CORPUS]
# PART: rope (RoPE, evaluated also with PI, NTK and YaRN), pope (PoPE with delta initialised to
# zero) or others (ALiBi and NoPE); seeds 0-2 of each PE trained at once, one batch per PE.
# WORK, BUDGET_S and OUT_DIR as results/length_extrapolation/extrapolate_call.sh takes them (the
# job goes on where the last command stopped; OUT_DIR/base_PART.tgz holds WORK, checkpoints left
# out). CORPUS: default Debian's linux-doc-6.1 Documentation folder. POPEBENCH names the binary.
# Exit status: extrapolate_call.sh's (0 done, 75 run the line again, 2 bad input).
set -u
(( $# >= 4 && $# <= 5 )) || { echo "usage: base_call.sh WORK BUDGET_S OUT_DIR PART [CORPUS]" >&2; exit 2; }
work=$1 budget=$2 out=$3 part=$4 corpus=${5:-/usr/share/doc/linux-doc-6.1/Documentation}
here=$(cd "$(dirname "$0")" && pwd)
case $part in
  rope) pes=rope n=3;;
  pope) pes=pope-delta0 n=3;;
  others) pes=alibi,none n=6;;
  *) echo "base_call.sh: PART must be rope, pope or others (got '$part')" >&2; exit 2;;
esac
source "$here/options.sh"
bash "$here/../length_extrapolation/extrapolate_call.sh" "$work" "$budget" "$out" "base_$part" "${base[@]}" --pe "$pes" \
  --concurrent "$n"
