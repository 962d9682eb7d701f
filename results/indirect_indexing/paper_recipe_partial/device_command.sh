#!/bin/bash
# Third device call: GPU tests after the attention change, benchmark, PyTorch measured steps,
# then the paper experiment (6 runs concurrently) for the rest of the time, to read its speed
# and early learning curves.
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1
T0=$(date +%s)
timeout 200 ./popebench_cuda_tests > $OUT/cuda_tests.log 2>&1; echo "cuda tests rc=$?"; tail -2 $OUT/cuda_tests.log
timeout 100 ./popebench bench --out $OUT/bench.json --iters 50 2>&1
timeout 150 python3 torch_ref.py --out $OUT/torch_steps.json --iters 30 --steps 2000 --modes compile --attention-lengths 2>&1 | grep -v Warn
left=$(( 560 - ($(date +%s) - T0) ))
echo "paper runs for $left s"
timeout $((left + 30)) ./popebench reproduce indirect-indexing --preset paper --concurrent 6 --time-limit $((left - 20)) --eval-every 2000 --eval-examples 2000 --out runs/paper --log-every 2000 2>&1 | tail -20
mkdir -p $OUT/paper; cp runs/paper/*.json $OUT/paper/ 2>/dev/null; ls -la runs/paper
