#!/usr/bin/env bash
# How the seed-1 and seed-2 files in this folder were made (seed 0: device_command.sh): session 6,
# device calls 1 and 2 on one `nvidia-h200-x2` machine (2026-11-29, 20:41-21:00 UTC), commit
# 827cb1c (binary built on the development machine, carried in .device/, copied to /tmp/bin there).
# GPU tests first (all passed: 1689 assertions). Started with setsid beside
# ../../length_extrapolation/associative_recall_pairs2-8_100k/ (27 small runs on the same two GPUs
# for the first 12.6 minutes), two runs per GPU (run k on GPU k % 2: rope and pope seed 1 on GPU 0,
# seed 2 on GPU 1), 94-98 steps/s each on average, 1,066-1,105 s of wall time per run. No time
# limit: every run is complete. Log: reproduce_seeds12.log.
B=/tmp/bin; export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64
$B/popebench reproduce indirect-indexing --preset paper --pe rope,pope --seeds 1,2 --n-train 6400000 \
  --gpus 2 --concurrent 2 --gpu-matmul bf16 --log-every 5000 --out /tmp/moredata
# Then, on the development machine, with the run JSONs copied here beside seed 0's:
#   popebench merge results/indirect_indexing/more_data_6400k --title "Indirect Indexing, preset paper, 6.4M training examples"
#   /usr/bin/python3 results/plot.py results/indirect_indexing/more_data_6400k
