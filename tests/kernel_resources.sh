#!/bin/bash
# The attention kernels' registers and spills as ptxas builds them (no GPU needed). The whole-sequence ones:
# the numbers their blocks per SM rest on (bench/log/024-pope-s-backward-in-75-kb.md and
# bench/log/025-pope-s-forward-in-50-kb.md). PoPE's backward at head dim 64 within 80 registers (three blocks of 256 an
# SM), every other backward and every forward within 64 (four), none of them spilling at head
# dim 64, the paper's. A change that spills or
# raises a count past its cap costs a block an SM and fails here, before any GPU run.
# Usage: kernel_resources.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
SRC=$1 BUILD=$2
python3 "$SRC/bench/kernel_resources.py" --build "$BUILD" --json "$SRC/kernels/cuda/attention_short.cu" > "$BUILD/kernel_resources.json"
python3 - "$BUILD/kernel_resources.json" <<'PY'
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))}
bad = []
for d in (16, 32, 64):
    for pe in ("none", "rope", "pope"):
        for kind in ("fwd", "bwd"):
            name = f"attention_{kind}_short_kernel<{d}, {pe}>"
            if name not in rows:
                bad.append(f"{name}: not in ptxas's output")
                continue
            r = rows[name]
            cap = 80 if (kind, d, pe) == ("bwd", 64, "pope") else 64
            if r["registers"] > cap:
                bad.append(f"{name}: {r['registers']} registers, over {cap}")
            if d == 64 and (r["spill_stores"] or r["spill_loads"]):
                bad.append(f"{name}: spills {r['spill_stores']} / {r['spill_loads']} bytes")
            print(f"{name}: {r['registers']} registers, spills {r['spill_stores']} / {r['spill_loads']} bytes")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

# The flash kernels (bf16 tensor cores): none spills at head dim 64, and the forward's whole-tile
# softmax compiles without ALiBi's per-score term for heads without a slope (bench/log/036: a
# run-time test inside the element loop was turned into the term and a select on every score).
python3 "$SRC/bench/kernel_resources.py" --build "$BUILD" --threads 128 --json "$SRC/kernels/cuda/attention_flash.cu" > "$BUILD/kernel_resources_flash.json"
python3 "$SRC/bench/ptx_blocks.py" --build "$BUILD" --top 40 "$SRC/kernels/cuda/attention_flash.cu" "attention_fwd_flash_kernel<64, none>" > "$BUILD/ptx_blocks_fwd64.txt"
python3 - "$BUILD/kernel_resources_flash.json" "$BUILD/ptx_blocks_fwd64.txt" <<'PY'
import json, sys
bad = []
for r in json.load(open(sys.argv[1])):
    if "<64," in r["name"] and (r["spill_stores"] or r["spill_loads"]):
        bad.append(f"{r['name']}: spills {r['spill_stores']} / {r['spill_loads']} bytes")
# Rows: | block | line | instructions | mma | ex2 | opcodes |. The softmax blocks hold one ex2 a
# score (32 a lane and tile, and the two rescale factors) and no mma.
softmax = []
for line in open(sys.argv[2]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 6 and cells[3].isdigit() and int(cells[3]) == 0 and cells[4].isdigit() and int(cells[4]) >= 32:
        softmax.append(cells)
if not softmax:
    bad.append("attention_fwd_flash_kernel<64, none>: no block with the softmax's 32 ex2 in the PTX")
elif not any("cvt.rn.f32.s32" not in c[5] for c in softmax):
    bad.append("attention_fwd_flash_kernel<64, none>: every softmax block converts an int to float "
               "(ALiBi's term compiled into the path without a slope)")
print(f"flash kernels: {len(softmax)} softmax blocks in the forward at D 64; "
      f"{sum(1 for c in softmax if 'cvt.rn.f32.s32' not in c[5])} without ALiBi's term")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

# The warpgroup kernels (sm_90a): none spills, and the occupancy their entries' predictions rest on
# holds (bench/log/038: the dK dV kernel at D 64 in 3 blocks of 128 threads an SM, within 168
# registers; 039: the two-group forward at D 64 in 2 blocks of 256, within 128; 040: the overlapped
# forward at D 64 in 3 blocks of 128, within 168).
for f in fwd bwd; do
  python3 "$SRC/bench/kernel_resources.py" --build "$BUILD" --threads 128 --json "$SRC/kernels/cuda/attention_flash_wgmma_$f.cu"
done > "$BUILD/kernel_resources_wgmma.jsonl"
python3 - "$BUILD/kernel_resources_wgmma.jsonl" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
rows, dec, i = [], json.JSONDecoder(), 0
while i < len(text):  # two JSON arrays, one after the other
    if text[i].isspace():
        i += 1
        continue
    doc, i = dec.raw_decode(text, i)
    rows += doc
caps = {"attention_bwd_flash_dkdv_wgmma_kernel<64,": 168, "attention_fwd_flash_wgmma_2g_kernel<64,": 128,
        "attention_fwd_flash_wgmma_ov_kernel<64,": 168}
bad, seen = [], {k: 0 for k in caps}
for r in rows:
    if r["spill_stores"] or r["spill_loads"]:
        bad.append(f"{r['name']}: spills {r['spill_stores']} / {r['spill_loads']} bytes")
    for prefix, cap in caps.items():
        if r["name"].startswith(prefix):
            seen[prefix] += 1
            if r["registers"] > cap:
                bad.append(f"{r['name']}: {r['registers']} registers, over {cap}")
bad += [f"{p} ...>: not in ptxas's output" for p, n in seen.items() if n != 3]
print(f"warpgroup kernels: {len(rows)}, none spilling" if not bad else "\n".join(bad))
sys.exit(1 if bad else 0)
PY
