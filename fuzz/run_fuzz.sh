#!/usr/bin/env bash
# One fuzz target for a bounded time (or a fixed number of runs) over the committed seed corpus (read only: new inputs go to
# a temporary folder). A crash, a sanitizer report or an exception other than the readers' own
# one-line errors fails the test; the input that did it is printed (base64) so that it can be
# added to tests/fuzz_corpus/ and to a regression test.
set -u
bin="$1" corpus="$2" seconds="$3" runs="${4:-0}" seed="${5:-0}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/new"
# runs > 0 with a fixed seed: the same inputs on every machine (CI); seed 0: libFuzzer picks one.
"$bin" -max_total_time="$seconds" -runs="$((runs > 0 ? runs : -1))" -seed="$seed" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/new" "$corpus" > "$work/log" 2>&1
rc=$?
tail -n 12 "$work/log"
if [[ $rc -ne 0 ]]; then
  for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
    [[ -f "$f" ]] || continue
    if [[ $(stat -c %s "$f") -le 8192 ]]; then echo "finding: $(basename "$f") (base64):"; base64 -w0 "$f"; echo
    else echo "finding: $(basename "$f"), $(stat -c %s "$f") bytes (too long to print)"; fi
  done
  echo "FAIL: $(basename "$bin") exited $rc"
  exit 1
fi
echo "$(basename "$bin"): no finding ($( [[ $runs -gt 0 ]] && echo "$runs runs, seed $seed" || echo "$seconds s"))"
