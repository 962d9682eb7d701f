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
#
# --- Session of 2026-12-06, 10:22-10:47 UTC (one NVIDIA H100 80GB HBM3, driver 580.159.04, commit
# 8ca4045, the binary built at 8ca4045 and carried in .devbin). Call 1 gated it while seed 4
# trained: every GPU test passed (11,176 assertions in 30 test cases; the 2-GPU test reported
# itself skipped) and abs_pos_learned's PoPE half, rerun to 2,000 steps, repeated the committed
# runs bit for bit (gated_call.sh ... gate eq). Seeds 4 and 5, each PoPE and RoPE trained at once
# in one process (SHARD=1/3 picks pope 4 and rope 4, SHARD=2/3 pope 5 and rope 5), one job after
# the other: 768 s and 729 s with the inspect of each last checkpoint (1,000 test examples);
# ~147 steps/s each. Logs sweep_paper_seed4.log and sweep_paper_seed5.log.
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/local/cuda/lib64
S=results/indirect_indexing/screen
B() { PLAN=$S/baseline_seeds.json SHARD=$1 CONCURRENT=2 STOP_AT=0 ALONG=0 MIN_BUDGET_S=0 POPEBENCH=.devbin/popebench \
  bash $S/cells_across_calls.sh "$2" "$3" $OUT/"$2" paper 900; }
# call 1
B 1/3 base_seed4 1
GATE_TESTS_S=400 POPEBENCH=.devbin/popebench bash $S/gated_call.sh - pope 480 $OUT/gate gate eq
B 1/3 base_seed4 $((585 - SECONDS))
# call 2: seed 4 delivered, seed 5 started
B 1/3 base_seed4 300
B 2/3 base_seed5 $((585 - SECONDS))
# call 3: seed 5 delivered (then the text task's timing run, results/lm_extrapolation/timing/)
B 2/3 base_seed5 450
# Landed with: bash $S/ingest_half.sh FILES_DIR baseline_seeds paper_seed4 (and paper_seed5)
