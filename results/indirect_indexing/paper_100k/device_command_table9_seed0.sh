#!/usr/bin/env bash
# How rope-half_seed0.json and alibi-half_seed0.json were made: session 6, device call 3 on one
# `nvidia-h200-x2` machine (2026-11-29, 21:00-21:06 UTC), right after the calls of
# ../more_data_6400k/device_command_seeds12.sh on the same machine (GPU tests passed there first,
# 1689 assertions), commit 827cb1c. One run per GPU (rope-half on GPU 0, alibi-half on GPU 1):
# 317 and 340 steps/s, 348 and 326 s of wall time. The time limit was not reached (rc 0).
# Log: reproduce_table9_seed0.log. The session's device time did not allow the other six Table 9
# runs (learned and sinusoidal seed 0, all four seed 1).
B=/tmp/bin; export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64
$B/popebench reproduce indirect-indexing --preset paper --pe rope-half,alibi-half --seeds 0 --gpus 2 --concurrent 1 \
  --gpu-matmul bf16 --log-every 5000 --time-limit 500 --out /tmp/t9s0
# Then, on the development machine:
#   popebench merge results/indirect_indexing/paper_100k --title "Indirect Indexing, preset paper"
#   /usr/bin/python3 results/plot.py results/indirect_indexing/paper_100k
