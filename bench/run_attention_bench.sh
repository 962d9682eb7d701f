#!/usr/bin/env bash
# The long-sequence attention comparison in one command on a GPU machine (the ratios compare
# numbers taken on the same card at the same time): popebench's kernels (fp32 tiled or
# whole-sequence, TF32 where it exists, bf16 flash) and PyTorch's (SDPA for none, RoPE's rotation
# then SDPA, PoPE materialised then SDPA), T 48 / 1024 / 4096 / 16384 at 32,768 tokens, head dims
# 64 and 128, 8 heads, forward and backward.
#   bash bench/run_attention_bench.sh OUT_DIR [POPEBENCH] [ITERS]
# Writes OUT_DIR/popebench_attention.json and torch_attention.json, and a log of each.
set -u -o pipefail
out=${1:?usage: bench/run_attention_bench.sh OUT_DIR [POPEBENCH] [ITERS]}
bin=${2:-build/popebench} iters=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
[[ -x "$bin" ]] || { echo "run_attention_bench.sh: no popebench binary at $bin" >&2; exit 2; }
[[ "$iters" =~ ^[1-9][0-9]*$ ]] || { echo "run_attention_bench.sh: ITERS must be a whole number >= 1 (got '$iters')" >&2; exit 2; }
mkdir -p "$out" || exit 2
rc=0
"$bin" bench --attention-lengths 48 1024 4096 16384 --attention-head-dims 64 128 --iters "$iters" --warmup 3 \
  --out "$out/popebench_attention.json" > "$out/popebench_attention.log" 2>&1 || rc=1
PYTHONUNBUFFERED=1 python3 "$here/torch_attention.py" --lengths 48 1024 4096 16384 --head-dims 64 128 \
  --iters "$iters" --warmup 3 --out "$out/torch_attention.json" > "$out/torch_attention.log" 2>&1 || rc=1
grep -h "^attention\|^torch" "$out/popebench_attention.log" "$out/torch_attention.log"
exit $rc
