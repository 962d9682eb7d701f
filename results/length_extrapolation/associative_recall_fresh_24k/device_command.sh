#!/usr/bin/env bash
# How the files in this folder were made: session 5, device call 4 on one `nvidia-h200`
# (2026-11-29 18:31 UTC), commit f12ac35 (binary built on the development machine, carried in
# .device/), after the GPU tests (all passed) and the step benchmark (results/bench/device_call_f12ac35.sh,
# which is this call's whole script). The extrapolation preset except the training set: 1,536,000
# examples = 24,000 steps x batch 64, so every example is seen once (the preset's 200,000 are seen
# 7.7 times in 24k steps). One seed, five PEs trained at once. Log: associative_recall_fresh_24k.log.
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
.device/popebench extrapolate --task associative-recall --pe rope,pope,pope-delta0,alibi,none --seeds 0 --steps 24000 \
  --n-train 1536000 --concurrent 5 --log-every 6000 --time-limit 172 --out /tmp/exar
# Figures: /usr/bin/python3 results/plot.py results/length_extrapolation/associative_recall_fresh_24k
