#!/usr/bin/env bash
# Session 3, device calls B, C, ...: continue the Table 1 reproduction from its checkpoints.
set -o pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
B=$PWD/.device
T0=$(date +%s); date -u
ls /tmp/paper
$B/popebench reproduce indirect-indexing --preset paper --gpus 2 --concurrent 3 --gpu-matmul bf16 --log-every 5000 \
  --time-limit ${1:-540} --out /tmp/paper >> /tmp/paper.log 2>&1
echo "reproduce rc=$? $(( $(date +%s)-T0 )) s"; tail -12 /tmp/paper.log
tar czf $OUT/paper.tgz -C /tmp --exclude='*.ckpt' paper paper.log
