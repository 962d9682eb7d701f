#!/usr/bin/env bash
# Device call of 2026-12-03 (08:23-08:25 UTC, one H200), binary built from commit 9f72de6 (CUDA backend
# split into models/cuda/, the PE registry, the ModelDescription, the typed trainer state), carried
# as .devbin/ with libgomp.so.1: the GPU tests (h200_cuda_tests_9f72de6.log: all 23 test cases,
# 7845 assertions, in 24 s), then the step benchmark (h200_popebench_9f72de6_after_split.json).
# Device call: the GPU tests alone (log to $OUT), then the listing's GPU column.
export LD_LIBRARY_PATH=$PWD/.devbin:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt 2>&1
date -u +%FT%TZ > $OUT/start.txt
s=$(date +%s)
(cd .devbin && timeout ${1:-200} ./popebench_cuda_tests > $OUT/cuda_tests.log 2>&1; echo "rc=$?" >> $OUT/cuda_tests.log)
echo "tests took $(( $(date +%s) - s )) s" >> $OUT/cuda_tests.log
tail -5 $OUT/cuda_tests.log; grep -B2 -A8 FAILED $OUT/cuda_tests.log | head -60
.devbin/popebench list | grep -i "cpu only"
# Then the step benchmark (the split CUDA backend against the last numbers then in the benchmark notes, now bench/log/).
.devbin/popebench bench --out $OUT/bench.json --iters 50 --batch-runs 1,4 > $OUT/bench.log 2>&1; echo "bench rc=$?" >> $OUT/bench.log
tail -8 $OUT/bench.log
