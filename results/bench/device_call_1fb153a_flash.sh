#!/usr/bin/env bash
# Device call of 2026-12-07 (16:00-16:02 UTC, one H100 80GB HBM3, driver 580.159.04), call 3 of the
# session whose call 1 ran every GPU test of this binary on the same machine
# (h100_cuda_tests_1fb153a.log; results/indirect_indexing/screen/stage2/device_command.sh) and whose
# calls 1-2 trained budget_200k's PoPE seed 0 (nothing else on the GPU during this call). Binary
# built from commit 1fb153a (the kernels of 720db6f, the forward's dispatch of 6b96a04; bench times
# what --gpu-attention bf16 runs, key bf16_flash_dispatch, since c28c1b1), stripped and carried
# xz-compressed in .devgz/ with libgomp; PyTorch 2.11.0+cu130 on the machine.
# Files: h100_popebench_1fb153a_attention.json (.log), h100_torch_attention_1fb153a.json (.log),
# h100_ncu_1fb153a_{dkdv,dq}_wgmma_T4096_D64_none.txt. Table:
#   /usr/bin/python3 -m tools.attention_table results/bench/h100_popebench_1fb153a_attention.json \
#     results/bench/h100_torch_attention_1fb153a.json
# The two Nsight runs were meant for PoPE's backward kernels (<64, 2>): `set -- $k` split the
# kernel's name at its space, so the regex ended at "<(int)64," and matched the first launch of
# each kernel, which is the no-PE one (<64, 0>, as the files' first lines say). They are kept under
# the name of what they measured; the loop below is the one that ran.
dec() { mkdir -p .devbin && for f in .devgz/*.xz; do python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$f" .devbin/$(basename "$f" .xz); done && chmod +x .devbin/popebench*; export LD_LIBRARY_PATH=$PWD/.devbin:${LD_LIBRARY_PATH:-}; }
[[ -x .devbin/popebench ]] || dec
mkdir -p /tmp/att
timeout 200 .devbin/popebench bench --attention-lengths 48 1024 4096 16384 --attention-head-dims 64 128 --iters 5 --warmup 2 \
  --out /tmp/att/popebench_attention.json > /tmp/att/popebench_attention.log 2>&1   # 151 s
PYTHONUNBUFFERED=1 timeout 180 python3 bench/torch_attention.py --lengths 48 1024 4096 16384 --head-dims 64 128 --iters 5 --warmup 2 \
  --out /tmp/att/torch_attention.json > /tmp/att/torch_attention.log 2>&1            # 29 s
P='\(popebench::cuda::PEKind\)'
for k in "dkdv_wgmma_pope attention_bwd_flash_dkdv_wgmma_kernel<\(int\)64, ${P}2>" "dq_wgmma_pope attention_bwd_flash_dq_wgmma_kernel<\(int\)64, ${P}2>"; do
  set -- $k; timeout 60 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$2" --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section LaunchStats .devbin/popebench bench --attention-lengths 4096 --attention-head-dims 64 --iters 1 --warmup 0 \
    --out /tmp/ncu_b.json > /tmp/att/ncu_$1.txt 2>&1; done
tar czf $OUT/att.tgz -C /tmp att

# A fourth call of the same session (16:09-16:11 UTC, a fresh H100 80GB HBM3, the same binary), with the
# device time left: Nsight Compute on PoPE's two backward kernels at T 4096, D 64, the regex kept whole
# (h100_ncu_1fb153a_{dkdv,dq}_wgmma_T4096_D64_pope.txt), then the bench at T 16,384, D 64 alone with 20
# iterations (h100_popebench_1fb153a_attention_T16384_D64_iters20.json, .log), because at 5 iterations the
# dispatched backward (4.94 ms) and the dK dV path timed directly (4.56) disagreed there; at 20 they agree
# (4.805 against 4.762 without a PE).
P='\(popebench::cuda::PEKind\)'
for pair in "dkdv attention_bwd_flash_dkdv_wgmma_kernel" "dq attention_bwd_flash_dq_wgmma_kernel"; do
  read -r n k <<< "$pair"
  timeout 60 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:${k}<\(int\)64, ${P}2>" --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section LaunchStats .devbin/popebench bench --attention-lengths 4096 --attention-head-dims 64 --iters 1 --warmup 0 \
    --out /tmp/ncu_b.json > $OUT/x/ncu_${n}_pope.txt 2>&1; done
timeout 120 .devbin/popebench bench --attention-lengths 16384 --attention-head-dims 64 --iters 20 --warmup 3 \
  --out $OUT/x/bench_T16384_D64.json > $OUT/x/bench_T16384_D64.log 2>&1
