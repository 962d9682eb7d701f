#!/usr/bin/env bash
# Device call of 2026-12-07 (00:01 UTC, one H100 80GB HBM3), the third call on the machine of the
# screen's calls (results/indirect_indexing/screen/stage2/device_command.sh, session of 23:46),
# whose first call passed every GPU test of this binary (h100_cuda_tests_6eda221.log), the flash
# kernels of bench/log/033 included. Binaries built from commit 6eda221, stripped and carried
# xz-compressed in .devgz/ with libgomp; PyTorch 2.11.0+cu130 on the machine. The screen's jobs had
# finished before it started. The session's device time had 140 s left, so only D 64 at T 1024
# and 4096 of bench/run_attention_bench.sh's comparison ran, each side under a 50 s limit
# (entry 033's outcome): h100_popebench_6eda221_attention_T1024_4096_D64.{json,log},
# h100_torch_attention_6eda221_T1024_4096_D64.{json,log}.
mkdir -p .devbin && for f in .devgz/popebench.xz .devgz/libgomp.so.1.xz; do
  python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$f" .devbin/$(basename "$f" .xz)
done && chmod +x .devbin/popebench
export LD_LIBRARY_PATH=$PWD/.devbin:$LD_LIBRARY_PATH
mkdir -p $OUT/att
timeout 50 .devbin/popebench bench --attention-lengths 1024 4096 --attention-head-dims 64 --iters 10 --warmup 3 \
  --out $OUT/att/popebench_attention.json > $OUT/att/popebench_attention.log 2>&1
PYTHONUNBUFFERED=1 timeout 45 python3 bench/torch_attention.py --lengths 1024 4096 --head-dims 64 --iters 10 --warmup 3 \
  --out $OUT/att/torch_attention.json > $OUT/att/torch_attention.log 2>&1
