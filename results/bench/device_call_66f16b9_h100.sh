#!/usr/bin/env bash
# Device calls of 2026-12-05 (from 17:42 UTC, one H100 80GB HBM3, driver 580.159.04), binary built
# from commit 66f16b9 (its kernels are e1116fc's), carried as .devbin/ with libgomp.so.1. Calls 1-3
# trained screen and Table 1 runs (results/indirect_indexing/screen/stage1/device_command.sh and
# table1_retrain/device_command.sh); the GPU tests ran in call 1 after its run, alone on the GPU,
# and all passed: h100_cuda_tests_66f16b9.log (9648 assertions in 26 test cases).
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/local/cuda/lib64:/usr/local/cuda/lib
# Call 4 (200 s, the 200 s left of the session's device time): batches of 16 and 32 runs, to see
# bench's JSON written after every measurement (59d0993) come back from a command cut by its limit.
timeout 200 .devbin/popebench bench --batch-runs 16,32 --attention-lengths 48 --iters 30 \
  --out $OUT/popebench_batched_16_32.json > $OUT/bench.log 2>&1
# The limit stopped it in the PoPE batch of 32 (exit 124). The JSON came back with "complete":
# false and the four R = 16 rows and the single steps it had measured:
# h100_popebench_66f16b9_batched_16_32_cut.json, its log h100_batch_bench_66f16b9_16_32_cut.log.
