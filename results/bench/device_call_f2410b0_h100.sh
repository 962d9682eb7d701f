#!/usr/bin/env bash
# Device calls of 2026-12-05 (from 15:10 UTC, one H100 80GB HBM3, driver 580.159.04, 1980 MHz),
# binary built from commit f2410b0 (its kernels are e1116fc's), carried as .devbin/ with
# libgomp.so.1; torch 2.11.0+cu130 on the machine. The session's first two calls ran the Indirect
# Indexing 10x job and the screen (results/length_extrapolation/indirect_indexing_d128_h8_10x/
# device_command.sh, results/indirect_indexing/screen/stage1/device_command.sh); the GPU tests of
# the second, run alone, all passed: h100_cuda_tests_f2410b0.log (9648 assertions in 26 test cases).
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/local/cuda/lib64:/usr/local/cuda/lib
# Call 3 (547 s, cut by its 540 s limit): the whole R curve and PyTorch at R = 8 and 16.
timeout 540 bash bench/run_batch_bench.sh $OUT .devbin/popebench > $OUT/batch_bench.log 2>&1
# popebench's curve reached the RoPE batch of 32 (its log: h100_batch_bench_f2410b0_curve_cut.log,
# R = 1-32 RoPE and 1-16 PoPE, as batches; the streams come after the batches and were not reached);
# the limit stopped it before its JSON was written
# and before PyTorch ran. On this H100 the whole curve takes longer than one 10-minute command
# (the H200's did not either: h200_popebench_5046a6d_batched_1_16_cut.log), so the script's split
# by R is the way to run it on a lent GPU.
# Call 4 (313 s): R = 1 and 8 and PyTorch's R = 8 in one command, what the targets compare.
BATCH_R=1,8 STREAM_R=none timeout 330 bash bench/run_batch_bench.sh $OUT .devbin/popebench 8 \
  > $OUT/batch_bench_r8.log 2>&1
# Files: h100_popebench_f2410b0_batched_1_8.json, h100_torch_f2410b0_batched_8.json, the log
# h100_batch_bench_f2410b0_r1_8.log. (torch_ref.py then left its workers' hand-shake files in
# $OUT/torch_batched.json.workers/; they live in a scratch folder since.)
