#!/usr/bin/env bash
# Device call of 2026-12-07 (08:37 UTC, one H100 80GB HBM3, driver 580.159.04, a fresh machine):
# the binaries of 9394379 (attention_fwd / attention_bwd run the warpgroup kernels on Hopper;
# bench times both flash families directly), stripped and carried xz-compressed in .devgz/ with
# libgomp. Every GPU test (h100_cuda_tests_9394379_flash_wgmma.log: 1897 assertions in 7 test
# cases; h100_cuda_tests_9394379_rest.log: 12102 in 30, the two-GPU case skipped), and the
# attention benchmark at T 1024 and 4096, D 64 (h100_popebench_9394379_attention_T1024_4096_D64),
# which repeats 9c39726's numbers within 3 % for both families.
dec() { mkdir -p .devbin && for f in .devgz/*.xz; do python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$f" .devbin/$(basename "$f" .xz); done && chmod +x .devbin/popebench*; export LD_LIBRARY_PATH=$PWD/.devbin:${LD_LIBRARY_PATH:-}; }
dec; mkdir -p $OUT/t
timeout 100 .devbin/popebench_cuda_tests "[flash],[wgmma]" > $OUT/t/gpu_tests_flash_wgmma.log 2>&1
timeout 40 .devbin/popebench bench --attention-lengths 1024 4096 --attention-head-dims 64 --iters 5 --warmup 2 \
  --out $OUT/t/bench.json > $OUT/t/bench.log 2>&1
timeout $((270 - SECONDS)) .devbin/popebench_cuda_tests "~[flash]~[wgmma]" > $OUT/t/gpu_tests_rest.log 2>&1
