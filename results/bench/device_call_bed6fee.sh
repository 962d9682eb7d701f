# Session 4 (2026-11-29, one nvidia-h200, commit bed6fee): call 1 = .device/call1.sh,
# calls 2 and 3 = .device/call2.sh 565, then .device/call2.sh 330 0,1 rope,pope 170 (with --steps 2500).
# ---- call1.sh
#!/usr/bin/env bash
# Session 4, device call 1: GPU tests of the mirror build (bed6fee), the bf16 step benchmark of
# the new and the previous build (5ebc402) in the same command, then Table 1 (seeds 0, 1: four
# 100k-step runs at once on the one H200) until the call's time is nearly up.
set -o pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
B=$PWD/.device; T0=$(date +%s); date -u; nvidia-smi -L
mkdir -p $OUT/r
$B/popebench_cuda_tests > $OUT/r/cuda_tests.log 2>&1; trc=$?
echo "cuda tests rc=$trc $(( $(date +%s)-T0 )) s"; tail -3 $OUT/r/cuda_tests.log
P=$B/popebench; [ $trc -eq 0 ] || P=$B/popebench_5ebc402
echo $P > /tmp/which_binary
$B/popebench bench --gpu-matmul bf16 --iters 30 --attention-lengths 48 --out $OUT/r/bench_bed6fee_bf16.json > $OUT/r/bench.log 2>&1; echo "bench new rc=$? $(( $(date +%s)-T0 )) s"
$B/popebench_5ebc402 bench --gpu-matmul bf16 --iters 30 --attention-lengths 48 --out $OUT/r/bench_5ebc402_bf16.json >> $OUT/r/bench.log 2>&1; echo "bench old rc=$? $(( $(date +%s)-T0 )) s"
left=$(( 570 - ($(date +%s)-T0) ))
echo "reproduce with $P for $left s"
$P reproduce indirect-indexing --preset paper --seeds 0,1 --concurrent 4 --gpu-matmul bf16 --log-every 5000 \
  --time-limit $left --out /tmp/paper >> /tmp/paper.log 2>&1
echo "reproduce rc=$? $(( $(date +%s)-T0 )) s"; tail -6 /tmp/paper.log
tar czf $OUT/paper.tgz -C /tmp --exclude='*.ckpt' paper paper.log
echo "done $(( $(date +%s)-T0 )) s"
# ---- call2.sh
#!/usr/bin/env bash
# Session 4, device calls 2, 3: continue Table 1 from its checkpoints (same binary as call 1).
# $1: seconds for reproduce; $2: seeds (default 0,1); $3: PEs (default rope,pope).
set -o pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
T0=$(date +%s); date -u
P=$(cat /tmp/which_binary); echo "binary $P"; ls /tmp/paper
$P reproduce indirect-indexing --preset paper --seeds ${2:-0,1} --pe ${3:-rope,pope} --concurrent 4 --gpu-matmul bf16 \
  --log-every 5000 --time-limit ${1:-565} --out /tmp/paper >> /tmp/paper.log 2>&1
rc=$?; echo "reproduce rc=$rc $(( $(date +%s)-T0 )) s"; tail -8 /tmp/paper.log
# $4: seconds for the PyTorch reference (torch.compile, 3,000 consecutive steps per PE) once the runs are done
if [ $rc -eq 0 ] && [ -n "$4" ]; then
  mkdir -p $OUT/r
  timeout $4 python3 .device/torch_ref.py --modes compile --iters 10 --steps 3000 --attention-lengths \
    --out $OUT/r/torch_ref_3000steps.json > $OUT/r/torch.log 2>&1; echo "torch rc=$? $(( $(date +%s)-T0 )) s"
fi
tar czf $OUT/paper.tgz -C /tmp --exclude='*.ckpt' paper paper.log
echo "done $(( $(date +%s)-T0 )) s"
