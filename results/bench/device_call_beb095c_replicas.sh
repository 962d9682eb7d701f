#!/usr/bin/env bash
# Device call of 2026-12-03 (12:09-12:11 UTC, one H200, torch 2.11.0+cu130), binary built from commit beb095c,
# bench/torch_ref.py of 53816e1, carried as .devbin/ with libgomp.so.1: popebench's batched step at R = 1 and 8,
# then PyTorch's two ways of training 8 PoPE seeds at once, in the same call (bench/log/016-batches-of-runs-r-runs-as-one.md).
export LD_LIBRARY_PATH=$PWD/.devbin:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/gpu.txt 2>&1
date -u +%FT%TZ > $OUT/start.txt
python3 -c 'import torch; print(torch.__version__)' > $OUT/torch_version.txt 2>&1
timeout 90 .devbin/popebench bench --batch-runs 1,8 --attention-lengths 48 --iters 30 --out $OUT/popebench_batched.json > $OUT/popebench_bench.log 2>&1
echo "popebench rc=$?" >> $OUT/popebench_bench.log
PYTHONUNBUFFERED=1 timeout ${1:-250} python3 bench/torch_ref.py --out $OUT/torch_batched.json --modes --attention-lengths \
  --iters 20 --replicas 8 --replica-pes pope > $OUT/torch.log 2>&1
echo "torch rc=$?" >> $OUT/torch.log
date -u +%FT%TZ > $OUT/end.txt
rm -rf $OUT/torch_batched.json.workers
tail -15 $OUT/popebench_bench.log; tail -8 $OUT/torch.log
# (run as `bash .devbin/replicas.sh 180`: the PyTorch part limited to 180 s.)
