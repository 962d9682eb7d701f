# Device calls of 2026-12-05 (from 01:42 UTC, one H200, driver 580.159.04, 1980 MHz), binary built from
# commit e1116fc, carried as .devbin/ with libgomp.so.1 and the binary of 1bf32c5 as the fallback.
# The script below was .devbin/s16.sh; the calls were
#   bash .devbin/s16.sh bias pope 585 gate eq      (453 s: gate passed, the half on e1116fc)
# then, on a fresh machine 55 minutes later (every start in between refused),
#   bash .devbin/s16.sh delta_shared pope 520 bench (418 s: no gate there, so the half ran on
#                                                    1bf32c5's binary; bench_fp32 of e1116fc)
#   bash .devbin/s16.sh - pope 140 ncu; LD_LIBRARY_PATH=$PWD/.devbin timeout 100 .devbin/popebench \
#     bench --attention-lengths 48 --iters 30 --batch-runs 8 --gpu-attention tf32 \
#     --out $OUT/bench_tf32.json > $OUT/bench_tf32.log 2>&1                     (84 s)
#   LD_LIBRARY_PATH=$PWD/.devbin timeout 150 .devbin/popebench bench --attention-lengths 48 --iters 30 \
#     --batch-runs 16 --gpu-attention fp32 --out $OUT/bench_fp32_r16.json > $OUT/bench_fp32_r16.log 2>&1  (127 s)
# The screen's side is in results/indirect_indexing/screen/stage1/device_command.sh (sixteenth
# session). Files: h200_cuda_tests_e1116fc.log (the gate's GPU tests, all passed: 9504 assertions
# in 26 test cases), h200_popebench_e1116fc_attention_{fp32,tf32}.json and .log,
# h200_popebench_e1116fc_batched_16_fp32.json and .log, h200_ncu_e1116fc_attention_bwd_short_rope.txt
# (ncu's --launch-count 2 caught RoPE's backward, launched first by bench's step benchmark).
#!/usr/bin/env bash
# Sixteenth-session device call: results/indirect_indexing/screen/gated_call.sh with this
# checkout's binaries (.devbin/popebench at the session's HEAD; .devbin/popebench_1bf32c5 the last
# build whose GPU tests passed). Usage: bash .devbin/s16.sh CELL PE TOTAL_S [gate] [eq] [bench] [ncu] [tests]
cell=$1 pe=$2 total=$3; shift 3
export LD_LIBRARY_PATH=$PWD/.devbin
POPEBENCH=.devbin/popebench KNOWN_GOOD=.devbin/popebench_1bf32c5 \
  exec bash results/indirect_indexing/screen/gated_call.sh "$cell" "$pe" "$total" "$OUT" "$@"
