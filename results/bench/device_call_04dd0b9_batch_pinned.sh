#!/usr/bin/env bash
# Device call of 2026-12-03 (17:32-17:36 UTC, one H200), the fourth call of the screen's eleventh
# session on the same machine, after its loss_all sweep had finished
# (results/indirect_indexing/screen/stage1/device_command.sh): binary built from commit 04dd0b9,
# carried as .devbin/ with libgomp.so.1. Batches of 4 and 8 runs with their products on a run
# alone's algorithms ("as_run_alone", the default since e444b23) and on the batch heuristic's,
# beside the same runs trained apart on their own streams. No PyTorch in this call (its numbers for
# 8 PoPE seeds are those of device_call_cf13662_batch_streams.sh; nothing it runs changed since).
export LD_LIBRARY_PATH=$PWD/.devbin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
timeout 380 .devbin/popebench bench --batch-runs 4,8 --stream-runs 4,8 --attention-lengths 48 --iters 30 \
  --out $OUT/popebench_batch_pinned.json > $OUT/popebench_batch_pinned.log 2>&1
# (163 s for the call)
