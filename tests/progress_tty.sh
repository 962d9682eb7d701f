#!/usr/bin/env bash
# Runs that share a terminal each print whole lines (CTest: progress_tty): two runs rewriting one
# line with '\r' overwrote each other, and the pool's "finished" lines were glued onto theirs. The
# terminal is script(1)'s; without script the test reports skipped (exit 77).
set -u
bin="$1"
command -v script >/dev/null || { echo "script(1) not found: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
script -qfec "'$bin' reproduce indirect-indexing --preset quick --pe rope,pope --seeds 0 --steps 400 --warmup 10 \
  --eval-every 100 --device cpu --concurrent 2 --out '$tmp/r'" "$tmp/typescript" >/dev/null 2>&1 ||
  { echo "FAIL: the run under script(1) failed"; cat "$tmp/typescript"; exit 1; }
/usr/bin/python3 - "$tmp/typescript" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
lines = [l[:-1] if l.endswith("\r") else l for l in text.split("\n")]
bad = [l for l in lines if "\r" in l or l.count("step ") > 1 or ("finished" in l and not l.startswith("popebench:"))]
progress = [l for l in lines if "/0: step " in l]
if bad or not progress:
    print("FAIL: lines overwritten or glued together:" if bad else "FAIL: no progress lines", *bad[:5], sep="\n")
    sys.exit(1)
print(f"progress_tty: {len(progress)} whole progress lines, none overwritten")
PY
