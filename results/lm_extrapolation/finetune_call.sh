#!/usr/bin/env bash
# The plan's fine-tuned baselines and frequency-usage analysis for one part of the table, on the
# machine whose WORK holds that part's base runs (base_call.sh, finished): for each seed, 500
# steps at 4 L from the base checkpoint (RoPE with YaRN at factor 4, PoPE as it is), the
# fine-tuned model evaluated at the base lengths (eval --factors ... --factor-of L), and
# `popebench inspect` of the base checkpoint over the first 64 windows of its test bytes.
#   bash results/lm_extrapolation/finetune_call.sh WORK OUT_DIR PART [CORPUS]
# PART: rope or pope (ALiBi and NoPE have no frequencies and no fine-tuned baseline). What is
# finished is a file in WORK/finetune or WORK/inspect and is not done again, so the same line
# after a cut command goes on; an unfinished fine-tune resumes from its checkpoint. After each
# seed, WORK/finetune and WORK/inspect (checkpoints left out) are packed into
# OUT_DIR/finetune_PART.tgz, with the log as OUT_DIR/finetune_PART.log.
# POPEBENCH names the binary (default build/popebench). Exit 0 when every seed is done, 1 when a
# step failed (its log says which), 2 on bad input.
set -u -o pipefail
(( $# >= 3 && $# <= 4 )) || { echo "usage: finetune_call.sh WORK OUT_DIR PART [CORPUS]" >&2; exit 2; }
work=$1 out=$2 part=$3 corpus=${4:-/usr/share/doc/linux-doc-6.1/Documentation}
here=$(cd "$(dirname "$0")" && pwd)
bin=${POPEBENCH:-build/popebench}
[[ -x "$bin" ]] || { echo "finetune_call.sh: POPEBENCH $bin is not an executable" >&2; exit 2; }
source "$here/options.sh"
case $part in
  rope) base_label=rope label=rope-yarn4 pe=(--pe rope --rope-scaling yarn --rope-factor 4 --rope-train-len "$L");;
  pope) base_label=pope-delta0 label=pope-delta0 pe=(--pe pope --delta-init zero);;
  *) echo "finetune_call.sh: PART must be rope or pope (got '$part')" >&2; exit 2;;
esac
mkdir -p "$work/finetune" "$work/inspect" "$out" || { echo "finetune_call.sh: cannot create $work/finetune or $out" >&2; exit 2; }
log="$work/finetune.log"
complete() { [[ -f "$1" ]] && /usr/bin/python3 -c "import json, sys; sys.exit(json.load(open(sys.argv[1])).get('status') != 'complete')" "$1" 2>/dev/null; }
pack() {
  local tmp
  tmp=$(mktemp "$out/.finetune_$part.tgz.XXXX") &&
    tar czf "$tmp" --exclude='*.ckpt' --exclude='*.ckpt.*' -C "$work" finetune inspect && chmod 644 "$tmp" &&
    mv "$tmp" "$out/finetune_$part.tgz" && cp "$log" "$out/finetune_$part.log" ||
    { echo "finetune_call.sh: could not write $out/finetune_$part.*" >&2; exit 1; }
}
step() {  # step WHAT COMMAND...: the command's output into the log; a failure ends the script
  echo "== $(date -u +%FT%TZ) $1" >> "$log"
  "${@:2}" >> "$log" 2>&1 || { echo "finetune_call.sh: $1 failed (exit $?; $log)" >&2; pack; exit 1; }
}
{ echo "== $(date -u +%FT%TZ) finetune_call.sh $part on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null; } >> "$log"
for seed in 0 1 2; do
  base_run="$work/runs/${base_label}_seed$seed.json"
  complete "$base_run" && [[ -f "$base_run.ckpt" ]] ||
    { echo "finetune_call.sh: $base_run is not a finished base run with its checkpoint (base_call.sh first)" >&2; exit 2; }
  ft="$work/finetune/${label}_seed$seed.json"
  complete "$ft" ||
    step "fine-tune $label seed $seed" "$bin" train "${finetune[@]}" "${pe[@]}" --seed "$seed" --init-from "$base_run.ckpt" \
      --resume --out "$ft"
  [[ -f "${ft%.json}.eval.json" ]] ||
    step "evaluate $label seed $seed" "$bin" eval --checkpoint "$ft.ckpt" "${finetune_eval[@]}" --out "${ft%.json}.eval.json"
  inspect="$work/inspect/${base_label}_seed$seed.inspect.json"
  [[ -f "$inspect" ]] ||
    step "inspect $base_label seed $seed" "$bin" inspect "$base_run.ckpt" --examples "$inspect_windows" --out "$inspect"
  pack
done
echo "finetune_call.sh: $part done"
