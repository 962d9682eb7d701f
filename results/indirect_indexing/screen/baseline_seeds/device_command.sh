#!/usr/bin/env bash
# How the files in baseline_seeds/ were made: the recipe as written (baseline_seeds.json, PLAN.md
# change of 2026-12-06, committed before any of these runs), seeds 3-5 of both PEs to 100,000
# steps, so that the baseline has 6 seeds per PE for solve counts.
#
# --- Session of 2026-12-06, 07:14-07:27 UTC, calls 2 and 3 of the session in
# ../stage2/device_command.sh (one NVIDIA H100 80GB HBM3, driver 580.159.04, commit 016907c, the
# gated binary built at 016907c). The device time left allowed one seed of each PE: seed 3, PoPE
# and RoPE trained at once in one process (SHARD=0/3 of the run list pope 3, 4, 5, rope 3, 4, 5
# picks pope 3 and rope 3); 100,000 steps in 695 s (PoPE ~149 steps/s, RoPE ~159); an inspect of
# each last checkpoint (1,000 test examples); log sweep_paper_seed3.log.
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/local/cuda/lib64
S=results/indirect_indexing/screen
B() { PLAN=$S/baseline_seeds.json SHARD=0/3 CONCURRENT=2 STOP_AT=0 ALONG=0 MIN_BUDGET_S=0 POPEBENCH=.devbin/popebench \
  bash $S/cells_across_calls.sh base_seed3 "$1" $OUT/base paper 900; }
B 1
B $((585 - SECONDS))   # call 2 (after depth_4's job delivered, ../stage2/device_command.sh)
B 420                  # call 3: delivered the files
# Landed with: bash $S/ingest_half.sh FILES_DIR baseline_seeds paper_seed3
