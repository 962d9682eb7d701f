#!/usr/bin/env bash
# Batches of runs (`--batch-runs`) against PyTorch's two ways of training several seeds at once,
# in one command on one GPU, so that the ratios compare numbers taken on the same card at the
# same time (bench/log/016-batches-of-runs-r-runs-as-one.md). Usage:
#   bench/run_batch_bench.sh OUTDIR [POPEBENCH_BINARY] [R ...]
# popebench times batches of R = 1, 2, 4, 8, 16, 32 and the same runs on separate streams
# (R = 2, 4, 8, 16); PyTorch the R given (default 8 16, the targets' R):
# each R compiles a vmapped model and starts R compiled processes, about a minute or two each.
# To fit a command limit (the lent H200s stop a command at 10 minutes), split the curve by R:
# BATCH_R (default 1,2,4,8,16,32) and STREAM_R (default 2,4,8,16; "none" for none) set popebench's
# R, the arguments PyTorch's, e.g. BATCH_R=8 STREAM_R=8 bench/run_batch_bench.sh OUT build/popebench 8
set -euo pipefail
out=${1:?usage: bench/run_batch_bench.sh OUTDIR [POPEBENCH] [R ...]}
bin=${2:-build/popebench}
shift $(( $# >= 2 ? 2 : $# ))
replicas=("${@:-8 16}")
mkdir -p "$out"
batch_r=${BATCH_R:-1,2,4,8,16,32} stream_r=${STREAM_R:-2,4,8,16}
[[ $batch_r =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "run_batch_bench.sh: BATCH_R must be a comma list of R (got '$batch_r')" >&2; exit 2; }
[[ $stream_r == none || $stream_r =~ ^[0-9]+(,[0-9]+)*$ ]] ||
  { echo "run_batch_bench.sh: STREAM_R must be a comma list of R or none (got '$stream_r')" >&2; exit 2; }
streams=()
[[ $stream_r == none ]] || streams=(--stream-runs "$stream_r")
"$bin" bench --batch-runs "$batch_r" "${streams[@]}" --attention-lengths 48 --iters 30 --out "$out/popebench_batched.json"
# shellcheck disable=SC2068
PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/torch_ref.py" --out "$out/torch_batched.json" --modes compile \
  --attention-lengths --iters 20 --replicas ${replicas[@]}
