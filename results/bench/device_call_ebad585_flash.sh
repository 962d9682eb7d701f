#!/usr/bin/env bash
# Device call of 2026-12-06 (14:18 UTC, one H100 80GB HBM3, driver 580.159.04), binary built from
# commit ebad585 and carried as .devbin/ with libgomp.so.1; torch on the machine. The session's
# first call gated the binary: every GPU test passed, the flash-attention cases among them
# (12976 assertions in 34 test cases; results/indirect_indexing/screen/stage2/device_command.sh).
# The first flash kernels (bench/log/031) beside the fp32 tiled kernels and torch SDPA, one
# command, same card (64 s). T 1024 / 4096 / 16384 at 32,768 tokens (B 32 / 8 / 2), H 8, D 64.
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
timeout 70 .devbin/popebench bench --attention-lengths 1024 4096 16384 --iters 10 --warmup 3 \
  --out $OUT/bench_flash.json > $OUT/bench_flash.log 2>&1
timeout 45 python3 bench/torch_ref.py --out $OUT/torch_ref.json --iters 10 --warmup 3 \
  --attention-lengths 1024 4096 16384 --modes eager > $OUT/torch_ref.log 2>&1
# Files: h100_popebench_ebad585_flash.{json,log}, h100_torch_ref_ebad585_sdpa.{json,log}.
# (An earlier call of the same two commands, one each, on the same warm machine gave the same
# numbers within 3 %; these are the ones of the single command.)
