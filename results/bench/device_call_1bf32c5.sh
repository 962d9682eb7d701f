# Device calls of 2026-12-04 (20:32-21:00 UTC, one H200, driver 580.159.04), binary built from commit
# 1bf32c5, carried as .devbin/ with libgomp.so.1. The script below was .devbin/s15.sh; the calls were
#   bash .devbin/s15.sh tie_embeddings rope 590 tests eq   (378 s)
#   bash .devbin/s15.sh tie_embeddings pope 590 eq         (353 s)
#   bash .devbin/s15.sh bias rope 590 bench                (419 s)
#   bash .devbin/s15.sh delta_project pope 530             (339 s)
# and, in the session's last device time,
#   .devbin/popebench bench --attention-lengths 48 --iters 30 --batch-runs 8 --gpu-attention tf32 \
#     --out $OUT/bench_tf32.json > $OUT/bench_tf32.log 2>&1                                  (73 s)
# The screen's side is in results/indirect_indexing/screen/stage1/device_command.sh (fifteenth
# session). Files: h200_cuda_tests_1bf32c5.log (all GPU tests passed: 9487 assertions in 25 test
# cases), h200_popebench_1bf32c5_attention_{fp32,tf32}.json and .log.
#!/usr/bin/env bash
# Fifteenth-session device call: one PE's half of a screen cell (run_cells.sh), then extras in what
# is left of TOTAL_S: tests (all GPU tests), eq (abs_pos_learned's PE half to 2,000 steps, to set its
# step log against the committed one: the angle-per-channel change 804e6f3 should keep the bits),
# bench (attention 48 and R=8, fp32). Extras go to $OUT/extras.tgz.
#   bash .devbin/s15.sh CELL PE TOTAL_S [tests] [eq] [bench]
set -u
cell=$1 pe=$2 total=$3; shift 3
t0=$(date +%s); left() { echo $(( total - ($(date +%s) - t0) )); }
export LD_LIBRARY_PATH=$PWD/.devbin
reserve=0
for x in "$@"; do case $x in tests) reserve=$((reserve+150));; eq) reserve=$((reserve+50));; bench) reserve=$((reserve+100));; esac; done
POPEBENCH=.devbin/popebench bash results/indirect_indexing/screen/run_cells.sh "$cell" $(( total - reserve )) "$OUT" "$pe"
echo "run_cells rc=$? after $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/extras
for x in "$@"; do
  l=$(left); (( l > 30 )) || break
  case $x in
    tests) (cd .devbin && timeout $(( l - 20 > 150 ? 150 : l - 20 )) ./popebench_cuda_tests) > /tmp/extras/cuda_tests.log 2>&1
           echo "tests rc=$? left $(left)";;
    eq) timeout $(( l - 10 )) .devbin/popebench sweep results/indirect_indexing/screen/screen.json --out /tmp/extras/eq_$pe \
          --cells abs_pos_learned --pe $pe --stop-at 2000 --concurrent 2 > /tmp/extras/eq_$pe.log 2>&1
        echo "eq rc=$? left $(left)";;
    bench) timeout $(( l - 10 )) .devbin/popebench bench --attention-lengths 48 --iters 30 --batch-runs 8 --gpu-attention fp32 \
             --out /tmp/extras/bench_fp32.json > /tmp/extras/bench.log 2>&1
           echo "bench rc=$? left $(left)";;
  esac
done
tar czf $OUT/extras.tgz --exclude='*.ckpt*' -C /tmp extras
echo "done after $(( $(date +%s) - t0 )) s"
