#!/usr/bin/env bash
# results/lm_extrapolation's device scripts end to end on a CPU, shrunk (LM_SMOKE=1: a model of
# width 16, a few steps, windows of 32 bytes) on a corpus written here: base_call.sh for each part
# of the table, finetune_call.sh for RoPE and PoPE, the parts merged, lm_table.py's table, verdicts
# and figure, through ingest.sh. Archives hold no checkpoint; finetune_call.sh run again redoes nothing; bad input
# exits 2.
set -u
bin="$1"
src=$(cd "$(dirname "$0")/.." && pwd)
lm="$src/results/lm_extrapolation"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
mkdir -p "$tmp/corpus"
for i in $(seq 1 400); do
  for j in $(seq 1 $((i % 5 + 4))); do echo "Line $j of document $i: a byte model reads the kernel's documentation."; done \
    > "$tmp/corpus/doc$i.rst"
done
export LM_SMOKE=1 POPEBENCH="$bin"
for part in rope pope others; do
  bash "$lm/base_call.sh" "$tmp/w_$part" 1000 "$tmp/out" "$part" "$tmp/corpus" >/dev/null 2>&1 ||
    { fail "base_call.sh $part (exit $?)"; cat "$tmp/out/base_$part.log" 2>/dev/null | tail -5; }
  tar tzf "$tmp/out/base_$part.tgz" 2>/dev/null | grep -q ckpt && fail "base_$part.tgz holds a checkpoint"
done
for part in rope pope; do
  bash "$lm/finetune_call.sh" "$tmp/w_$part" "$tmp/out" "$part" "$tmp/corpus" >/dev/null 2>&1 ||
    { fail "finetune_call.sh $part (exit $?)"; tail -5 "$tmp/w_$part/finetune.log"; }
  listing=$(tar tzf "$tmp/out/finetune_$part.tgz" 2>/dev/null)
  grep -q ckpt <<< "$listing" && fail "finetune_$part.tgz holds a checkpoint"
  (( $(grep -c '\.eval\.json$' <<< "$listing") == 3 && $(grep -c '\.inspect\.json$' <<< "$listing") == 3 )) ||
    fail "finetune_$part.tgz lacks an evaluation or an inspect of the three seeds: $listing"
done
before=$(grep -c '^== .* \(fine-tune\|evaluate\|inspect\) ' "$tmp/w_rope/finetune.log")
bash "$lm/finetune_call.sh" "$tmp/w_rope" "$tmp/out" rope "$tmp/corpus" >/dev/null 2>&1 || fail "finetune_call.sh rope, again"
(( $(grep -c '^== .* \(fine-tune\|evaluate\|inspect\) ' "$tmp/w_rope/finetune.log") == before )) ||
  fail "finetune_call.sh run again redid finished steps"
bash "$lm/finetune_call.sh" "$tmp/w_others" "$tmp/out" others "$tmp/corpus" >/dev/null 2>&1; rc=$?
(( rc == 2 )) || fail "finetune_call.sh others: exit $rc, not 2"
bash "$lm/base_call.sh" "$tmp/w_x" 1000 "$tmp/out" sinusoidal "$tmp/corpus" >/dev/null 2>&1; rc=$?
(( rc == 2 )) || fail "base_call.sh with an unknown part: exit $rc, not 2"

for part in rope pope others; do
  bash "$lm/ingest.sh" "$tmp/out" "$part" "$tmp/res" > "$tmp/ingest_$part.txt" 2>&1 || { fail "ingest.sh $part"; cat "$tmp/ingest_$part.txt"; }
done
[[ -s "$tmp/res/base/extrapolation.json" && -d "$tmp/res/finetune" && -d "$tmp/res/inspect" ]] ||
  fail "ingest.sh did not merge the three parts"
bash "$lm/ingest.sh" "$tmp/out" rope "$tmp/res" >/dev/null 2>&1; rc=$?
(( rc == 2 )) || fail "ingest.sh over a part already in: exit $rc, not 2"
table=$(PYTHONPATH="$src" /usr/bin/python3 -m tools.lm_table "$tmp/res/base/extrapolation.json" "$tmp/res/finetune") || fail "lm_table.py"
for row in "| rope | 3 |" "| rope+yarn | 3 |" "| pope-delta0 | 3 |" "| alibi | 3 |" "| none | 3 |" \
           "| rope+yarn (fine-tuned at 4L) | 3 |" "| pope-delta0 (fine-tuned at 4L) | 3 |" \
           "The paper's claim" "YaRN's part"; do
  grep -qF "$row" <<< "$table" || fail "lm_table.py printed no '$row'"
done
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  PYTHONPATH="$src" /usr/bin/python3 -m tools.lm_table "$tmp/res/base/extrapolation.json" "$tmp/res/finetune" --figure "$tmp/f.png" >/dev/null &&
    [[ -s "$tmp/f.png" && -s "$tmp/f.pdf" ]] || fail "lm_table.py --figure"
fi
PYTHONPATH="$src" /usr/bin/python3 -m tools.lm_table "$tmp/res/base/extrapolation.json" "$tmp/res/base_rope" >/dev/null 2>&1; rc=$?
(( rc == 2 )) || fail "lm_table.py on a folder without evaluations: exit $rc, not 2"
(( fails == 0 )) && echo "lm_extrapolation calls: passed"
exit $(( fails > 0 ))
