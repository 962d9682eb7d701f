#!/usr/bin/env bash
# Device calls of 2026-12-07 (10:38-10:47 UTC, one H100 80GB HBM3, driver 580.159.04), on the
# machine of the screen's calls of 10:20 (results/indirect_indexing/screen/stage2/device_command.sh),
# whose GPU tests of this binary had passed (h100_cuda_tests_3a9d50b.log). Binary built from commit
# 3a9d50b (the warpgroup dK dV kernel of bench/log/038 and the two-group forward of 039, both
# reached by bench and the GPU tests only), stripped and carried xz-compressed in .devgz/ with
# libgomp; PyTorch 2.11.0+cu130 on the machine.
dec() { mkdir -p .devbin && for f in .devgz/*.xz; do python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$f" .devbin/$(basename "$f" .xz); done && chmod +x .devbin/popebench*; export LD_LIBRARY_PATH=$PWD/.devbin:${LD_LIBRARY_PATH:-}; }
dec
P='\(popebench::cuda::PEKind\)'
N() {  # Nsight Compute on one launch of kernel $2 at T 4096, head dim $3 -> $OUT/ncu/$1.txt
  mkdir -p $OUT/ncu
  timeout 80 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$2" --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section LaunchStats .devbin/popebench bench --attention-lengths 4096 \
    --attention-head-dims $3 --iters 1 --warmup 0 --out $OUT/ncu/b.json > $OUT/ncu/$1.txt 2>&1
}
# Call 1 (131 s): the attention comparison, popebench then PyTorch in one command
# (h100_popebench_3a9d50b_attention, h100_torch_attention_3a9d50b; .json and .log; table:
# python3 -m tools.attention_table results/bench/h100_popebench_3a9d50b_attention.json
# results/bench/h100_torch_attention_3a9d50b.json), then Nsight Compute on the dK dV warpgroup
# kernel at D 64, no PE (h100_ncu_3a9d50b_dkdv_wgmma_T4096_D64.txt).
mkdir -p $OUT/att
timeout 150 .devbin/popebench bench --attention-lengths 48 1024 4096 16384 --attention-head-dims 64 128 \
  --iters 5 --warmup 2 --out $OUT/att/popebench_attention.json > $OUT/att/popebench_attention.log 2>&1
PYTHONUNBUFFERED=1 timeout 120 python3 bench/torch_attention.py --lengths 48 1024 4096 16384 --head-dims 64 128 \
  --iters 5 --warmup 2 --out $OUT/att/torch_attention.json > $OUT/att/torch_attention.log 2>&1
N dkdv_wgmma "attention_bwd_flash_dkdv_wgmma_kernel<\(int\)64, ${P}0>" 64
# Call 2 (73 s, after the screen's call 3 on the same machine): Nsight Compute on the forward with
# one warpgroup a block and with two, at D 64 with no PE and at D 128 with PoPE
# (h100_ncu_3a9d50b_fwd_wgmma{,_2g}_T4096_{D64_none,D128_pope}.txt).
N fwd_wgmma_2g_D64_none "attention_fwd_flash_wgmma_2g_kernel<\(int\)64, ${P}0>" 64
N fwd_wgmma_D64_none "attention_fwd_flash_wgmma_kernel<\(int\)64, ${P}0>" 64
N fwd_wgmma_2g_D128_pope "attention_fwd_flash_wgmma_2g_kernel<\(int\)128, ${P}2>" 128
N fwd_wgmma_D128_pope "attention_fwd_flash_wgmma_kernel<\(int\)128, ${P}2>" 128
