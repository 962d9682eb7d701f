#!/usr/bin/env bash
# Batches of runs (`--batch-runs`) against PyTorch's two ways of training several seeds at once,
# in one command on one GPU, so that the ratios compare numbers taken on the same card at the
# same time (bench/NOTES.md, "Batches of runs"). Usage:
#   bench/run_batch_bench.sh OUTDIR [POPEBENCH_BINARY] [R ...]
# popebench times batches of R = 1, 2, 4, 8, 16, 32 and the same runs on separate streams
# (R = 2, 4, 8, 16); PyTorch the R given (default 8 16, the targets' R):
# each R compiles a vmapped model and starts R compiled processes, about a minute or two each.
set -euo pipefail
out=${1:?usage: bench/run_batch_bench.sh OUTDIR [POPEBENCH] [R ...]}
bin=${2:-build/popebench}
shift $(( $# >= 2 ? 2 : $# ))
replicas=("${@:-8 16}")
mkdir -p "$out"
"$bin" bench --batch-runs 1,2,4,8,16,32 --stream-runs 2,4,8,16 --attention-lengths 48 --iters 30 --out "$out/popebench_batched.json"
# shellcheck disable=SC2068
PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/torch_ref.py" --out "$out/torch_batched.json" --modes compile \
  --attention-lengths --iters 20 --replicas ${replicas[@]}
