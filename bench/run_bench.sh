#!/usr/bin/env bash
# Runs popebench's benchmark and the PyTorch reference in one command on a GPU machine, so the
# ratios compare numbers taken on the same card at the same time. Usage:
#   bench/run_bench.sh OUTDIR [POPEBENCH_BINARY]
# On the lent H200 (build here, carry the binary): see README "GPU".
set -euo pipefail
out=${1:?usage: bench/run_bench.sh OUTDIR [POPEBENCH]}
bin=${2:-build/popebench}
mkdir -p "$out"
"$bin" bench --out "$out/popebench_bench.json" --iters 50
PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/torch_ref.py" --out "$out/torch_ref.json" --iters 30 --steps 2000
