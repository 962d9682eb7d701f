#!/usr/bin/env bash
# How the files in this folder were made: session 5, device call 5 on one `nvidia-h200`
# (2026-11-29, right after call 4 on the same machine), commit f12ac35. The extrapolation preset
# with 60,000 steps and 3,840,000 training examples (= 60,000 x 64: each seen once), RoPE and PoPE,
# seed 0, two runs at once. No time limit was reached (88 s). Log: associative_recall_fresh_60k.log.
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
.device/popebench extrapolate --task associative-recall --pe rope,pope --seeds 0 --steps 60000 --n-train 3840000 \
  --concurrent 2 --log-every 10000 --time-limit 165 --out /tmp/exar60
# Figures: /usr/bin/python3 results/plot.py results/length_extrapolation/associative_recall_fresh_60k
