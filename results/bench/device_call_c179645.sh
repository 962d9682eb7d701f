#!/usr/bin/env bash
# Session 3, device call A (nvidia-h200-x2): GPU tests (incl. --gpus over 2 GPUs); benchmark of the
# whole-sequence attention kernels (GPU 0) beside the PyTorch reference (GPU 1); then the paper's
# Table 1 reproduction (3 RoPE + 3 PoPE, 100k steps, bf16 GEMMs) on both GPUs until the time limit.
set -o pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
B=$PWD/.device
nvidia-smi -L; date -u
T0=$(date +%s)
timeout 200 $B/popebench_cuda_tests > $OUT/cuda_tests.log 2>&1; rc=$?
echo "cuda tests rc=$rc $(( $(date +%s)-T0 )) s"; tail -4 $OUT/cuda_tests.log
if [ $rc -ne 0 ]; then grep -B3 -A25 -m6 "FAILED" $OUT/cuda_tests.log | head -200; exit 1; fi
( CUDA_VISIBLE_DEVICES=1 PYTHONUNBUFFERED=1 timeout 200 python3 $B/torch_ref.py --out $OUT/torch_ref.json --iters 30 \
    --steps 1000 --attention-lengths 48 1024 > $OUT/torch.log 2>&1; echo "torch rc=$? $(( $(date +%s)-T0 )) s" ) &
( export CUDA_VISIBLE_DEVICES=0
  timeout 90 $B/popebench bench --gpu-matmul bf16 --out $OUT/bench_bf16.json --iters 50 --attention-lengths 48 512 1024 4096 > $OUT/bench.log 2>&1; echo "bench bf16 rc=$?"
  timeout 60 $B/popebench bench --out $OUT/bench_tf32.json --iters 50 --attention-lengths 48 >> $OUT/bench.log 2>&1; echo "bench tf32 rc=$? $(( $(date +%s)-T0 )) s" )
wait
cat $OUT/bench.log; tail -8 $OUT/torch.log
TL=$(( 600 - ($(date +%s)-T0) - 60 ))
echo "reproduce time limit $TL s"
mkdir -p /tmp/paper
$B/popebench reproduce indirect-indexing --preset paper --gpus 2 --concurrent 3 --gpu-matmul bf16 --log-every 5000 \
  --time-limit $TL --out /tmp/paper >> /tmp/paper.log 2>&1
echo "reproduce rc=$? $(( $(date +%s)-T0 )) s"; tail -8 /tmp/paper.log
tar czf $OUT/paper.tgz -C /tmp --exclude='*.ckpt' paper paper.log
