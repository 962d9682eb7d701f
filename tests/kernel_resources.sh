#!/bin/bash
# The whole-sequence attention kernels' registers and spills as ptxas builds them (no GPU needed):
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
