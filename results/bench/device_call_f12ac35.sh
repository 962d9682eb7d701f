#!/usr/bin/env bash
# Session 5 device call 4 (commit f12ac35; .device/popebench_82cb792 is the previous build): $1 = seconds for the whole call. GPU tests of the new build, the bf16
# step benchmark of the new build and of 82cb792 in the same command, then associative recall
# with fresh training data (each example seen once) through `extrapolate`, one seed, five PEs.
set -o pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
B=$PWD/.device; T0=$(date +%s); date -u; nvidia-smi -L; mkdir -p $OUT/r
$B/popebench_cuda_tests > $OUT/r/cuda_tests.log 2>&1; trc=$?
echo "cuda tests rc=$trc $(( $(date +%s)-T0 )) s"; tail -3 $OUT/r/cuda_tests.log
P=$B/popebench; [ $trc -eq 0 ] || P=$B/popebench_82cb792
for i in 1 2; do
  $B/popebench bench --gpu-matmul bf16 --iters 30 --attention-lengths 48 --out $OUT/r/bench_new_$i.json >> $OUT/r/bench.log 2>&1; echo "bench new rc=$? $(( $(date +%s)-T0 )) s"
  $B/popebench_82cb792 bench --gpu-matmul bf16 --iters 30 --attention-lengths 48 --out $OUT/r/bench_82cb792_$i.json >> $OUT/r/bench.log 2>&1; echo "bench old rc=$? $(( $(date +%s)-T0 )) s"
done
left=$(( $1 - 15 - ($(date +%s)-T0) ))
echo "extrapolate with $P for $left s"
$P extrapolate --task associative-recall --pe rope,pope,pope-delta0,alibi,none --seeds 0 --steps 24000 \
  --n-train 1536000 --concurrent 5 --log-every 6000 --time-limit $left --out /tmp/exar > /tmp/exar.log 2>&1
echo "extrapolate rc=$? $(( $(date +%s)-T0 )) s"; tail -22 /tmp/exar.log
tar czf $OUT/exar.tgz -C /tmp --exclude='*.ckpt' exar exar.log
echo "done $(( $(date +%s)-T0 )) s"
