#!/bin/bash
# Fourth device call: the paper task under variations SPEC §7 asks about, 2 PEs each, 3 processes
# sharing the GPU, stopped by time limit (partial run JSONs keep their learning curves).
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
L=500
C="--seeds 0 --concurrent 2 --time-limit $L --eval-every 1000 --eval-examples 2000 --log-every 4000 --steps 14000 --warmup 1000"
./popebench reproduce indirect-indexing $C --lr 1e-3 --lr-min 1e-4 --out runs/lr1e-3 > $OUT/lr1e-3.log 2>&1 &
./popebench reproduce indirect-indexing $C --layers 4 --d-model 256 --heads 4 --lr 1e-3 --lr-min 1e-4 --out runs/small_lr1e-3 > $OUT/small.log 2>&1 &
./popebench reproduce indirect-indexing $C --out runs/paperlr_w1000 > $OUT/paperlr.log 2>&1 &
wait
for d in lr1e-3 small_lr1e-3 paperlr_w1000; do mkdir -p $OUT/$d; cp runs/$d/*.json $OUT/$d/; tail -n 4 $OUT/*.log | grep -E "step|test acc" | tail -2; done
python3 - <<'PY'
import json,glob
for f in sorted(glob.glob('runs/*/*.json')):
    r=json.load(open(f)); c=r['curve']
    print(f, r['status'], r.get('steps_done', r['config']['train']['steps']), [(p['step'], round(p['val_acc']*100,1)) for p in c[-4:]])
PY
