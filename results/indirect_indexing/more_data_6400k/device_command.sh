#!/usr/bin/env bash
# How the files in this folder were made: device calls 2 and 3 of session 5 on one
# `nvidia-h200-x2` machine (2026-11-29, 18:14-18:22 UTC), commit 82cb792 (binary built on the
# development machine, carried in .device/), right after ../paper_100k/'s seed-2 runs finished in
# the same call. One run per GPU (rope on GPU 0, pope on GPU 1). Call 2 gave it --time-limit 185 (what was left of the call)
# (runs at 42k and 50k steps), call 3 --time-limit 309, in which both finished (rc 0).
# The paper preset except the training set: 6,400,000 examples instead of 1,000,000, so that the
# 100,000 steps of batch 64 (6.4M draws) see each example about once instead of 6.4 times.
# Log: reproduce.log.
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
.device/popebench reproduce indirect-indexing --preset paper --pe rope,pope --seeds 0 --n-train 6400000 \
  --gpus 2 --concurrent 1 --gpu-matmul bf16 --log-every 5000 --time-limit SECONDS --out /tmp/moredata
# Then, on the development machine:
#   popebench merge results/indirect_indexing/more_data_6400k --title "Indirect Indexing, preset paper, 6.4M training examples"
#   /usr/bin/python3 results/plot.py results/indirect_indexing/more_data_6400k
