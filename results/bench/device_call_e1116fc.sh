# Device calls of 2026-12-05 (from 01:42 UTC, one H200, driver 580.159.04, 1980 MHz), binary built from
# commit e1116fc, carried as .devbin/ with libgomp.so.1 and the binary of 1bf32c5 as the fallback.
# The script below was .devbin/s16.sh; the calls were
#   bash .devbin/s16.sh bias pope 585 gate eq      (453 s: gate passed, the half on e1116fc)
# The screen's side is in results/indirect_indexing/screen/stage1/device_command.sh (sixteenth
# session). Files: h200_cuda_tests_e1116fc.log (the gate's GPU tests, all passed: 9504 assertions
# in 26 test cases).
#!/usr/bin/env bash
# Sixteenth-session device call: results/indirect_indexing/screen/gated_call.sh with this
# checkout's binaries (.devbin/popebench at the session's HEAD; .devbin/popebench_1bf32c5 the last
# build whose GPU tests passed). Usage: bash .devbin/s16.sh CELL PE TOTAL_S [gate] [eq] [bench] [ncu] [tests]
cell=$1 pe=$2 total=$3; shift 3
export LD_LIBRARY_PATH=$PWD/.devbin
POPEBENCH=.devbin/popebench KNOWN_GOOD=.devbin/popebench_1bf32c5 \
  exec bash results/indirect_indexing/screen/gated_call.sh "$cell" "$pe" "$total" "$OUT" "$@"
