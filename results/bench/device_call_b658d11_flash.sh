#!/usr/bin/env bash
# Device calls of 2026-12-06 (20:15-20:20 UTC, one H100 80GB HBM3), on the machine of the
# screen's calls (results/indirect_indexing/screen/stage2/device_command.sh, session of 19:56),
# binaries built from commit b658d11 and carried gzipped in .devgz/ with libgomp.so.1; PyTorch
# 2.11.0+cu130 on the machine. The screen's job had finished before call 1's benchmark started.
mkdir -p .devbin && for f in .devgz/*.gz; do gzip -dc "$f" > .devbin/$(basename "$f" .gz); done
chmod +x .devbin/popebench* && cp .devgz/libgomp.so.1 .devbin/
export LD_LIBRARY_PATH=$PWD/.devbin:$LD_LIBRARY_PATH
# 1. The attention comparison, popebench's kernels and PyTorch's in one command (bench/log/033,
#    "Measured before the change"): h100_popebench_b658d11_attention.{json,log},
#    h100_torch_attention_b658d11.{json,log}. The GPU tests with the angle-table fix (d940f78)
#    passed in the screen's call before it (13363 assertions in 35 test cases).
timeout 400 bash bench/run_attention_bench.sh $OUT/att .devbin/popebench 10
# 2. Nsight Compute on the flash kernels at T 4096, B 8, H 8, D 64, one forward and one backward
#    per PE (ncu fixes the clocks, so its durations are not the benchmark's):
#    h100_ncu_b658d11_flash_T4096_D64.txt.
timeout 200 /usr/local/cuda/bin/ncu --set full -k regex:flash -c 12 .devbin/popebench bench \
  --attention-lengths 4096 --attention-head-dims 64 --iters 1 --warmup 0 > $OUT/ncu_flash_full.txt 2>&1
