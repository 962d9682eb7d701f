# The Table 1 runs (../../paper_100k/, `reproduce --preset paper --gpu-matmul bf16`, trained at
# bed6fee before --keep-checkpoints existed) trained again with a checkpoint kept every 20,000
# steps, each inspected as it appears, so that `popebench inspect` follows Table 1's own runs
# (table1_retrain.json: one cell, the preset with --gpu-matmul bf16; one run per device command).
# Landed with `bash results/indirect_indexing/screen/ingest_half.sh OUT table1_retrain LOG_NAME`.

# --- Session of 2026-12-05 from 17:42 UTC, binary built from commit 66f16b9, carried in .devbin
# with libgomp.so.1, on one H100. RoPE seed 0 (log sweep_paper_rope_seed0.log):
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/local/cuda/lib64:/usr/local/cuda/lib
PLAN=results/indirect_indexing/screen/table1_retrain.json SHARD=0/3 STOP_AT=0 ALONG=1 \
  POPEBENCH=.devbin/popebench bash results/indirect_indexing/screen/run_cells.sh paper 560 $OUT rope
# It ran `popebench sweep results/indirect_indexing/screen/table1_retrain.json --out DIR --cells
# paper --pe rope --shard 0/3 --concurrent 4 --keep-checkpoints 20000 --time-limit 455`: 297.8
# steps/s, 100,000 steps in 6.2 minutes, then inspect of the 20k-100k checkpoints (1,000 test
# examples each). Its curve repeats the committed run (one H200, binary bed6fee) bit for bit:
/usr/bin/python3 results/same_bits.py results/indirect_indexing/paper_100k/rope_seed0.json \
  results/indirect_indexing/screen/table1_retrain/paper/rope_seed0.json --curve-only \
  --ignore input.context --ignore input.pad --ignore input.pad_attention --ignore model.abs_pos \
  --ignore model.attn_scale --ignore model.attn_temp --ignore model.init --ignore optim.pe_lr_mult \
  --ignore pe.delta_bound --ignore pe.delta_shared --ignore pe.freqs --ignore task.params.pair_draw \
  --ignore train.gpu_attention --ignore train.grad_accum
# -> "same bits: 51 curve points and 0 step-log rows, to step 100000". The ignored fields are the
# options added since bed6fee, here at their defaults (the committed run's config has none of them);
# --curve-only because runs of bed6fee kept no step log.
