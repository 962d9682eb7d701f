#!/usr/bin/env bash
# How learned_seed0, sinusoidal_seed0 and the four *_seed1.json of Table 9's PEs were made: session
# 7, device calls 1 and 2 on one `nvidia-h200-x2` machine (2026-11-29, 22:52-23:09 UTC), commit
# e021e0d. Call 1 ran the GPU tests first (all passed: 1689 assertions), then started these two
# commands and ../../length_extrapolation/indirect_indexing_strings6-10_100k/ with setsid
# (.device/s7.sh, reproduced in that folder's device_command.sh). Two commands, so that each GPU
# trained three of the six runs (a sweep sends run k to GPU k % 2): seed 1 of four PEs, two per
# GPU, and seed 0 of two, one per GPU. Next to 13-14 small extrapolation runs per GPU for the first
# ~8 minutes: 101-103 steps/s (seed 1) and 123-126 steps/s (seed 0) over the whole run, 1,012-1,036
# and 836-860 s of wall time. No time limit: every run is complete.
# Logs: reproduce_table9_s7_seed1.log, reproduce_table9_s7_seed0.log.
B=/tmp/bin; export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64
$B/popebench reproduce indirect-indexing --preset paper --pe rope-half,alibi-half,learned,sinusoidal --seeds 1 \
  --gpus 2 --concurrent 2 --gpu-matmul bf16 --log-every 5000 --out /tmp/t9s1 &
$B/popebench reproduce indirect-indexing --preset paper --pe learned,sinusoidal --seeds 0 \
  --gpus 2 --concurrent 1 --gpu-matmul bf16 --log-every 5000 --out /tmp/t9s0 &
wait
# Then, on the development machine (the run JSONs copied here; the two summaries left behind):
#   popebench merge results/indirect_indexing/paper_100k --title "Indirect Indexing, preset paper"
#   /usr/bin/python3 results/plot.py results/indirect_indexing/paper_100k
