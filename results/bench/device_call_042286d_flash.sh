#!/usr/bin/env bash
# Device calls of 2026-12-07 (02:41-02:51 UTC, one H100 80GB HBM3, driver 580.159.04), on the
# machine of the screen's call (results/indirect_indexing/screen/stage2/device_command.sh, session
# of 02:41), whose GPU tests of this binary had passed (h100_cuda_tests_042286d.log). Binaries
# built from commit 042286d (the flash kernels of 6eda221), stripped and carried xz-compressed in
# .devgz/ with libgomp; PyTorch 2.11.0+cu130 on the machine. The session's device time had ~120 s
# left after the screen's run, so each call is short (bench/log/034).
dec() { mkdir -p .devbin && for f in .devgz/*.xz; do python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$f" .devbin/$(basename "$f" .xz); done && chmod +x .devbin/popebench*; export LD_LIBRARY_PATH=$PWD/.devbin:${LD_LIBRARY_PATH:-}; }
# Call 1, after the screen's job had finished: h100_ncu_042286d_flash_T4096_D64.txt.
dec; mkdir -p $OUT/ncu
timeout $((590 - SECONDS)) /usr/local/cuda/bin/ncu --set full -k regex:flash -c 12 .devbin/popebench bench \
  --attention-lengths 4096 --attention-head-dims 64 --iters 1 --warmup 0 > $OUT/ncu/h100_ncu_042286d_flash_T4096_D64.txt 2>&1
# Call 2: T 16,384, D 64 (h100_popebench_042286d_attention_T16384_D64, h100_torch_attention_042286d_T16384_D64).
dec; mkdir -p $OUT/att
timeout 45 .devbin/popebench bench --attention-lengths 16384 --attention-head-dims 64 --iters 5 --warmup 2 \
  --out $OUT/att/popebench_attention.json > $OUT/att/popebench_attention.log 2>&1
PYTHONUNBUFFERED=1 timeout $((100 - SECONDS)) python3 bench/torch_attention.py --lengths 16384 --head-dims 64 --iters 5 --warmup 2 \
  --out $OUT/att/torch_attention.json > $OUT/att/torch_attention.log 2>&1
# Call 3: D 128 (popebench's T 16,384 cut by its 28 s limit; h100_popebench_042286d_attention_T4096_D128,
# h100_torch_attention_042286d_T4096_16384_D128).
dec; mkdir -p $OUT/att
timeout 28 .devbin/popebench bench --attention-lengths 4096 16384 --attention-head-dims 128 --iters 5 --warmup 2 \
  --out $OUT/att/popebench_attention_D128.json > $OUT/att/popebench_attention_D128.log 2>&1
PYTHONUNBUFFERED=1 timeout $((58 - SECONDS)) python3 bench/torch_attention.py --lengths 4096 16384 --head-dims 128 --iters 5 --warmup 2 \
  --out $OUT/att/torch_attention_D128.json > $OUT/att/torch_attention_D128.log 2>&1
