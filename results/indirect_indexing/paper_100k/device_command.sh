#!/usr/bin/env bash
# How the files in this folder were made: three consecutive device calls on one `nvidia-h200`
# machine (2026-11-29, 15:55-16:18 UTC), commit bed6fee, the binary built on the development
# machine (cmake -DCMAKE_BUILD_TYPE=Release, CUDA arch 90) and carried in .device/.
# Call 1 ran the GPU tests first (all passed: 1662 assertions in 17 test cases) and the step
# benchmark (results/bench/h200_popebench_bed6fee_bf16.json), then the command below with
# --time-limit 552; call 2 the same command with --time-limit 565 (resuming every run from its
# checkpoint); call 3 with --time-limit 330, in which all four runs finished (rc 0) and the
# summary was written; then the PyTorch reference (results/bench/h200_torch_ref_2500steps_bed6fee.json).
# The log of all three calls is reproduce.log.
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
.device/popebench reproduce indirect-indexing --preset paper --seeds 0,1 --pe rope,pope --concurrent 4 \
  --gpu-matmul bf16 --log-every 5000 --time-limit SECONDS --out /tmp/paper
# Figures: /usr/bin/python3 results/plot.py results/indirect_indexing/paper_100k
