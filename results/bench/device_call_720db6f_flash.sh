#!/usr/bin/env bash
# Device calls of 2026-12-07 (13:09-13:19 UTC, one H100 80GB HBM3, driver 580.159.04), calls 2 and
# 4 of the session whose call 1 ran every GPU test of this binary on the same machine
# (h100_cuda_tests_720db6f.log; results/indirect_indexing/screen/stage2/device_command.sh). Binary
# built from commit 720db6f (the overlapped forward of bench/log/040, reached by bench and the GPU
# tests only; the whole-tile dK dV path of 041, dispatched), and 3a9d50b's binary (038's) for
# 041's same-command comparison, stripped and carried xz-compressed in .devgz/ with libgomp;
# PyTorch 2.11.0+cu130 on the machine.
dec() { mkdir -p .devbin && for f in .devgz/*.xz; do python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$f" .devbin/$(basename "$f" .xz); done && chmod +x .devbin/popebench*; export LD_LIBRARY_PATH=$PWD/.devbin:${LD_LIBRARY_PATH:-}; }
[[ -x .devbin/popebench ]] || dec
P='\(popebench::cuda::PEKind\)'
N() {  # Nsight Compute on one launch of kernel $2 at T 4096, head dim 64 -> $OUT/ncu/$1.txt
  mkdir -p $OUT/ncu
  timeout 60 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$2" --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section LaunchStats .devbin/popebench bench --attention-lengths 4096 \
    --attention-head-dims 64 --iters 1 --warmup 0 --out /tmp/ncu_b.json > $OUT/ncu/$1.txt 2>&1
}
# Call 2 (376 s): 3a9d50b's binary, then 720db6f's, in one command
# (h100_popebench_{3a9d50b_beside_720db6f,720db6f_beside_3a9d50b}_attention.json, .log: bench/log/040's
# and 041's outcomes); then the step of 8 runs batched at T 48 with fp32 and with bf16 (flash)
# attention (h100_popebench_720db6f_step_r8_T48_{fp32,bf16}.json: each cut by its 60 s timeout
# before PoPE's second batched row, so "complete": false; fp32's log did not come back). Its
# PyTorch run and Nsight files did not come back (a call returns 8 files), so call 4 repeated them.
mkdir -p $OUT/att
for v in 3a9d50b new; do bin=.devbin/popebench; [[ $v == new ]] || bin=.devbin/popebench_$v
  timeout 200 $bin bench --attention-lengths 48 1024 4096 16384 --attention-head-dims 64 128 --iters 5 --warmup 2 \
    --out $OUT/att/popebench_${v}_attention.json > $OUT/att/popebench_${v}_attention.log 2>&1; done
for att in fp32 bf16; do timeout 60 .devbin/popebench bench --gpu-attention $att --batch-runs 8 --attention-lengths 48 \
  --attention-head-dims 64 --iters 30 --warmup 5 --out $OUT/att/step_r8_$att.json > $OUT/att/step_r8_$att.log 2>&1; done
# Call 4 (169 s, then the screen's wd_all_2d run: ../indirect_indexing/screen/stage1/device_command.sh):
# 720db6f's attention comparison and PyTorch in one command (h100_popebench_720db6f_attention.json,
# h100_torch_attention_720db6f.json, .log; table: python3 -m tools.attention_table
# results/bench/h100_popebench_720db6f_attention.json results/bench/h100_torch_attention_720db6f.json),
# then Nsight Compute on the overlapped forward and the dK dV kernel at D 64, no PE
# (h100_ncu_720db6f_{fwd_wgmma_ov_T4096_D64_none,dkdv_wgmma_T4096_D64}.txt); everything tarred.
OUT4=$OUT; OUT=/tmp/a4; mkdir -p $OUT/att
timeout 200 .devbin/popebench bench --attention-lengths 48 1024 4096 16384 --attention-head-dims 64 128 --iters 5 --warmup 2 \
  --out $OUT/att/popebench_new_attention.json > $OUT/att/popebench_new_attention.log 2>&1
PYTHONUNBUFFERED=1 timeout 180 python3 bench/torch_attention.py --lengths 48 1024 4096 16384 --head-dims 64 128 --iters 5 --warmup 2 \
  --out $OUT/att/torch_attention.json > $OUT/att/torch_attention.log 2>&1
N fwd_wgmma_ov "attention_fwd_flash_wgmma_ov_kernel<\(int\)64, ${P}0>"
N dkdv_wgmma "attention_bwd_flash_dkdv_wgmma_kernel<\(int\)64, ${P}0>"
tar czf $OUT4/att4.tgz -C /tmp/a4 att ncu
