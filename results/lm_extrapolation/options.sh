# The plan's options (PLAN.md), in one place for base_call.sh and finetune_call.sh; sourced, with
# $corpus set. LM_SMOKE=1 shrinks the model, the steps and the evaluation bytes so that
# tests/lm_extrapolation_calls.sh runs the scripts' every step on a CPU in seconds (never for a
# result: the run JSONs record the options used).
L=256                                    # the training window, bytes
factors=1,2,4,6,8,10                     # evaluation windows, multiples of L
eval_bytes=1000000                       # the first bytes of the test stream, scored at every length
model=(--layers 4 --d-model 256 --heads 4)   # timing/timing.json: the plan's rule picked 4 x 256
base_steps=() ft_steps=(--steps 500 --warmup 20) device=(--device cuda) inspect_windows=64
if [[ "${LM_SMOKE:-0}" == 1 ]]; then
  L=32 factors=1,2,4 eval_bytes=3000 model=(--layers 1 --d-model 16 --heads 2)
  base_steps=(--steps 6 --warmup 2 --eval-every 3 --checkpoint-every 3) ft_steps=(--steps 3 --warmup 1) device=(--device cpu)
  inspect_windows=4
fi
# Base models: the extrapolation preset (10,000 steps of 64 windows, lr 1e-3 warmed up over 500
# steps, cosine to 1e-4) with the loss on every next byte; validation on 100,000 bytes and the
# run's own test on the evaluation's bytes (PLAN.md, change 1).
base=(--task text --corpus "$corpus" --min-len "$L" --max-len "$L" --loss all --n-val 100000 --n-test "$eval_bytes"
      "${model[@]}" "${base_steps[@]}" --factors "$factors" --bucket-examples "$eval_bytes" --rope-variants pi,ntk,yarn
      --seeds 0,1,2 "${device[@]}")
# Fine-tuned baselines: 500 steps at 4 L from each base checkpoint, lr 6e-5 held, 20 warmup steps.
finetune=(--preset extrapolation --task text --corpus "$corpus" --min-len $((4 * L)) --max-len $((4 * L)) --loss all
          --n-val 100000 --n-test "$eval_bytes" "${model[@]}" "${ft_steps[@]}" --lr 6e-5 --lr-min 6e-5
          --eval-every 100 "${device[@]}")
finetune_eval=(--factors "$factors" --factor-of "$L" --bucket-examples "$eval_bytes" --rope-variants none "${device[@]}")
