#!/usr/bin/env bash
# How the seed-2 files in this folder were made (the seed 0 and 1 runs: device_command.sh):
# three consecutive device calls on one `nvidia-h200-x2` machine (2026-11-29, 17:58-18:22 UTC),
# commit 82cb792, the binary built on the development machine (Release, CUDA arch 90) and carried
# in .device/. Call 1 ran the GPU tests first (all passed: 1679 assertions in 17 test cases), then
# the command below with --time-limit 550 (all six runs at 58-64k steps); call 2 the same command
# with --time-limit 560, in which all six finished (rc 0, 375 s into the call) and the summary was
# written; the rest of call 2 and call 3 ran ../more_data_6400k/. Log: reproduce_seed2.log.
# The six runs: Table 1 (rope, pope) and v3 Table 9 (rope-half, alibi-half, learned, sinusoidal),
# three at once on each GPU (run k on GPU k % 2, recorded as environment.gpu_index).
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64
.device/popebench reproduce indirect-indexing --preset paper --pe all --seeds 2 --gpus 2 --concurrent 3 \
  --gpu-matmul bf16 --log-every 5000 --time-limit SECONDS --out /tmp/paper2
# Then, on the development machine, with the run JSONs copied here beside seeds 0 and 1:
#   popebench merge results/indirect_indexing/paper_100k --title "Indirect Indexing, preset paper"
#   /usr/bin/python3 results/plot.py results/indirect_indexing/paper_100k
