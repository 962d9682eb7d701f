#!/usr/bin/env bash
# Device call of 2026-12-03 (14:04-14:08 UTC, one H200, torch 2.11.0+cu130), the third call of the screen's
# tenth session on the same machine, after its sweep had finished (results/indirect_indexing/screen/stage1/
# device_command.sh): binary built from commit cf13662, bench/torch_ref.py of the same commit (the vmapped
# model writes its attention out), carried as .devbin/ with libgomp.so.1. popebench's batches of 4 and 8 runs
# beside the same runs trained apart on their own streams, then PyTorch's two ways of training 8 PoPE seeds.
export LD_LIBRARY_PATH=$PWD/.devbin:${LD_LIBRARY_PATH:-}
.devbin/popebench bench --batch-runs 4,8 --stream-runs 4,8 --attention-lengths 48 --iters 30 \
  --out $OUT/popebench_batch_streams.json > $OUT/popebench_batch_streams.log 2>&1
python3 -c 'import torch; print(torch.__version__)' > $OUT/torch_version.txt 2>&1
PYTHONUNBUFFERED=1 python3 bench/torch_ref.py --out $OUT/torch_replicas.json --modes --attention-lengths \
  --iters 20 --replicas 8 --replica-pes pope > $OUT/torch.log 2>&1
# (each under a timeout of what the call had left; both finished: 213 s for the call)
