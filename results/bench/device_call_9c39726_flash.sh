#!/usr/bin/env bash
# Device calls of 2026-12-07 (08:14-08:18 UTC, one H100 80GB HBM3, driver 580.159.04), on the
# machine of the screen's calls (results/indirect_indexing/screen/stage2/device_command.sh, session
# of 07:58), whose GPU tests of this binary had passed (h100_cuda_tests_9c39726.log). Binaries
# built from commit 9c39726 (the flash kernels of bench/log/036, the warpgroup kernels of 037)
# and from 9f7ac2d (the flash kernels of 035, before 036), stripped and carried xz-compressed in
# .devgz/ with libgomp; PyTorch 2.11.0+cu130 on the machine.
dec() { mkdir -p .devbin && for f in .devgz/*.xz; do python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$f" .devbin/$(basename "$f" .xz); done && chmod +x .devbin/popebench*; export LD_LIBRARY_PATH=$PWD/.devbin:${LD_LIBRARY_PATH:-}; }
B() { mkdir -p $OUT/att; timeout $3 $1 bench --attention-lengths $4 --attention-head-dims $5 --iters 5 --warmup 2 \
  --out $OUT/att/popebench_$2_attention.json > $OUT/att/popebench_$2_attention.log 2>&1; }
# Call 1 (118 s): 9f7ac2d at D 64, T 4096 and 16,384; 9c39726 at every length and D 64, 128; then
# PyTorch (h100_popebench_9f7ac2d_attention, h100_popebench_9c39726_attention,
# h100_torch_attention_9c39726; .json and .log).
dec
B .devbin/popebench_9f7ac2d 9f7ac2d 60 "4096 16384" "64"; B .devbin/popebench 9c39726 100 "48 1024 4096 16384" "64 128"
PYTHONUNBUFFERED=1 timeout 120 python3 bench/torch_attention.py --lengths 48 1024 4096 16384 --head-dims 64 128 --iters 5 --warmup 2 \
  --out $OUT/att/torch_attention.json > $OUT/att/torch_attention.log 2>&1
# Call 2 (56 s): Nsight Compute on one launch each of four kernels at T 4096, D 64, B 8, no PE
# (h100_ncu_9c39726_{fwd_wgmma,dq_wgmma,dkdv,fwd_mma}_T4096_D64.txt).
mkdir -p $OUT/ncu; P='\(popebench::cuda::PEKind\)'
for k in "fwd_wgmma attention_fwd_flash_wgmma_kernel<\(int\)64, ${P}0>" "dq_wgmma attention_bwd_flash_dq_wgmma_kernel<\(int\)64, ${P}0>" \
         "dkdv attention_bwd_flash_dkdv_kernel<\(int\)64, ${P}0" "fwd_mma attention_fwd_flash_kernel<\(int\)64, ${P}0"; do
  set -- $k
  timeout 85 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$2" --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section LaunchStats .devbin/popebench bench --attention-lengths 4096 \
    --attention-head-dims 64 --iters 1 --warmup 0 --out $OUT/ncu/b_$1.json > $OUT/ncu/ncu_$1.txt 2>&1
done
