#!/usr/bin/env bash
# Session 6 device call 4 on one `nvidia-h200` (2026-11-29 21:22 UTC): the GPU tests of commit
# a0796e0 (CUDA backend refactor: buffers in one pool, a block's products defined once; all
# passed, 1672 assertions: cuda_tests_a0796e0.log), then the bf16 step benchmark of a0796e0 and of
# the previous build 827cb1c alternating, twice, in the same command. Binaries built on the
# development machine (Release, CUDA arch 90) and carried in .device/.
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64; B=.device; mkdir -p $OUT
$B/popebench_cuda_tests_a0796e0 > $OUT/cuda_tests_a0796e0.log 2>&1
for i in 1 2; do
  $B/popebench_a0796e0 bench --gpu-matmul bf16 --iters 30 --attention-lengths 48 --out $OUT/bench_a0796e0_$i.json
  $B/popebench bench --gpu-matmul bf16 --iters 30 --attention-lengths 48 --out $OUT/bench_827cb1c_$i.json  # 827cb1c
done
