# Cases for cli_errors.sh: what a careless or hostile user hands popebench (issue classes of the
# audit of 2026-12-06). Sourced after cli_cases.sh, whose runs in $tmp/q it reads.

# One rule for outputs (common/files.hpp, refuse_outputs_over_inputs): no output is the same file
# as an input, whatever the spelling, through a symbolic or a hard link; refused before any work,
# the input left as it was.
run="$tmp/q/pope_seed0.json" ck="$tmp/q/pope_seed0.json.ckpt"
cp "$run" "$tmp/run_before.json"; cp "$ck" "$tmp/ck_before"
ln -s "$run" "$tmp/run_link.json"; ln "$run" "$tmp/run_hard.json"
expect_error "an output must not replace an input" export "$run" --out "$run"
expect_error "an output must not replace an input" export "$run" --out "$tmp/run_link.json"
expect_error "an output must not replace an input" export "$run" --out "$tmp/run_hard.json"
expect_error "an output must not replace an input" export "$tmp/q" --out "$tmp/q/../q/pope_seed0.json"
expect_error "an output must not replace an input" eval --checkpoint "$ck" --out "$tmp/q/./pope_seed0.json.ckpt"
expect_error "an output must not replace an input" inspect "$ck" --out "$ck"
expect_error "an output must not replace an input" inspect "$ck" --out "$tmp/insp/ok.json" --predictions "$ck"
expect_error "an output must not replace an input" merge "$tmp/q" --out "$run"
# Relative spellings of one new file (the check once compared "./r.json" and "r.json" as strings).
(cd "$tmp" && expect_error "are the same file" train --preset quick --pe rope --steps 2 --warmup 1 --checkpoint ./rel.json --out rel.json)
[[ ! -e "$tmp/rel.json" ]] || { echo "FAIL: a refused train left $tmp/rel.json"; fails=$((fails+1)); }
cmp -s "$run" "$tmp/run_before.json" && cmp -s "$ck" "$tmp/ck_before" ||
  { echo "FAIL: a refused command changed its input"; fails=$((fails+1)); }

# One bounded JSON reader (common/json_read.hpp): a document nested deeper than 64 levels, or an
# object with a repeated key, is refused with one line by every reader, never walked.
mkdir -p "$tmp/deep" "$tmp/deepx"
/usr/bin/python3 -c "print('[' * 100000 + ']' * 100000)" > "$tmp/deep/rope_seed0.json"
expect_error "nested deeper than 64 levels" merge "$tmp/deep" --out "$tmp/deep_out/summary.json"
expect_error "nested deeper than 64 levels" export "$tmp/deep/rope_seed0.json" --out "$tmp/deep_out/x.csv"
expect_error "nested deeper than 64 levels" sweep "$tmp/deep/rope_seed0.json" --out "$tmp/deep_out"
cp "$tmp/deep/rope_seed0.json" "$tmp/deepx/extrapolation.json"
expect_error "nested deeper than 64 levels" merge "$tmp/deepx" --out "$tmp/deep_out/extrapolation.json"
expect_error "nested deeper than 64 levels" reproduce indirect-indexing --preset "$tmp/deep/rope_seed0.json" --out "$tmp/deep_out"
echo '{"name": "p", "cells": [{"name": "a", "pe": ["rope"], "seeds": [0]}], "cells": []}' > "$tmp/dup_plan.json"
expect_error "the key \"cells\" appears twice in one object" sweep "$tmp/dup_plan.json" --out "$tmp/dup_out"
/usr/bin/python3 -c "
import json; r = json.load(open('$run')); t = json.dumps(r); i = t.index('\"status\"')
open('$tmp/dup_run.json', 'w').write(t[:i] + '\"status\": \"partial\", ' + t[i:])"
expect_error "the key \"status\" appears twice" export "$tmp/dup_run.json" --out "$tmp/dup_out/x.csv"
[[ ! -e "$tmp/deep_out" && ! -e "$tmp/dup_out" ]] || { echo "FAIL: a refused document left an output folder"; fails=$((fails+1)); }

# A cell name is checked by a loop, not a regular expression that recursed once per character:
# 100,000 characters end in one line, not a stack overflow.
/usr/bin/python3 -c "
import json; print(json.dumps({'cells': [{'name': 'a' * 100000, 'pe': ['rope'], 'seeds': [0]}]}))" > "$tmp/long_name.json"
expect_error "name must be 1-100 letters" sweep "$tmp/long_name.json" --out "$tmp/long_out"

# Loose parsing: a shard is two whole numbers in range (sscanf's %d once wrapped 4294967298 to 2);
# options that belong to the command, and --help, are refused inside a plan's args with one line
# of popebench's own (CLI11's "this should be caught in your main function" never reaches a user).
echo '{"cells": [{"name": "a", "pe": ["rope"], "seeds": [0, 1, 2, 3]}]}' > "$tmp/shard_plan.json"
for bad in 0/4294967298 4294967296/4294967298 -1/2 1/ /2 1/2/3 "1 /2" 0x1/2; do
  expect_error "--shard must be i/n with 0 <= i < n" sweep "$tmp/shard_plan.json" --out "$tmp/shard_out" --shard "$bad" --print-config
done
for opt in --help --print-config; do
  echo "{\"cells\": [{\"name\": \"a\", \"pe\": [\"rope\"], \"seeds\": [0], \"args\": [\"$opt\"]}]}" > "$tmp/opt_plan.json"
  expect_error "cell a: ${opt}" sweep "$tmp/opt_plan.json" --out "$tmp/opt_out"
done

# Text that reaches JSON is UTF-8 (common/utf8.hpp): a command line argument or a file name found
# in a folder that is not is refused before any work, its bytes escaped in the message.
expect_error "argument 7 ('$tmp/\\xff.json') is not UTF-8 text" train --preset quick --pe rope --out "$tmp/$(printf '\xff').json"
[[ ! -e "$tmp/$(printf '\xff').json" ]] || { echo "FAIL: a refused non-UTF-8 --out was written"; fails=$((fails+1)); }
mkdir -p "$tmp/bytes"; cp "$tmp/q/pope_seed0.json" "$tmp/bytes/$(printf 'r\xfe').json"
expect_error "is not UTF-8 text: $tmp/bytes/r\\xfe.json" merge "$tmp/bytes" --out "$tmp/bytes_out/summary.json"
expect_error "is not UTF-8 text: $tmp/bytes/r\\xfe.json" export "$tmp/bytes" --out "$tmp/bytes_out/x.csv"
[[ ! -e "$tmp/bytes_out" ]] || { echo "FAIL: a refused non-UTF-8 name left an output folder"; fails=$((fails+1)); }

# A plan is refused whole before any run trains: a later cell whose warmup is longer than its
# steps, whose names are too long for the file system, or that asks for a device not there.
cat > "$tmp/late_plan.json" <<'JSON'
{"preset": "quick", "args": ["--steps", "3", "--eval-every", "0", "--n-train", "50", "--n-val", "8", "--n-test", "8"],
 "cells": [{"name": "good", "pe": ["rope"], "seeds": [0], "args": ["--warmup", "1", "--device", "cpu"]},
           {"name": "late", "pe": ["rope"], "seeds": [0], "args": ["--warmup", "10", "--device", "cpu"]}]}
JSON
expect_error "cell late, rope seed 0: warmup (10) is longer than the run (3 steps)" sweep "$tmp/late_plan.json" --out "$tmp/late_out"
[[ ! -e "$tmp/late_out/good/rope_seed0.json" ]] || { echo "FAIL: the good cell trained before the plan was refused"; fails=$((fails+1)); }
long=$(printf 'd%.0s' $(seq 1 300))
expect_error "a name in the path is longer than 255 bytes" sweep "$tmp/shard_plan.json" --out "$tmp/$long"
if ! nvidia-smi -L >/dev/null 2>&1; then  # a machine without a GPU, as CI's
  sed 's/"--warmup", "10", "--device", "cpu"/"--warmup", "1", "--device", "cuda"/' "$tmp/late_plan.json" > "$tmp/gpu_plan.json"
  expect_error "a run asks for --device cuda, and no CUDA device was found" sweep "$tmp/gpu_plan.json" --out "$tmp/gpu_out"
  [[ ! -e "$tmp/gpu_out/good/rope_seed0.json" ]] || { echo "FAIL: the good cell trained before a missing GPU was found"; fails=$((fails+1)); }
fi

# Documents from elsewhere are checked against what popebench can have written: accuracies in
# [0, 1], finite losses, known PEs and statuses (a run file with -3.0 once made merge print a
# negative mean, 1e308 "inf ± -nan").
for change in "r['final']['test']['acc'] = -3.0|an accuracy outside [0, 1]" "r['final']['val']['acc'] = 1e308|an accuracy outside [0, 1]" \
              "r['final']['test']['loss'] = -1|a loss that is not finite" "r['config']['pe']['kind'] = 'ropey'|unknown positional embedding" \
              "r['status'] = 'done'|unknown run status 'done'"; do
  rm -rf "$tmp/elsewhere"; mkdir -p "$tmp/elsewhere"
  /usr/bin/python3 -c "
import json; r = json.load(open('$run')); ${change%%|*}; json.dump(r, open('$tmp/elsewhere/pope_seed0.json', 'w'))"
  expect_error "${change##*|}" merge "$tmp/elsewhere" --out "$tmp/elsewhere_out/summary.json"
  expect_error "${change##*|}" export "$tmp/elsewhere/pope_seed0.json" --out "$tmp/elsewhere_out/x.csv"
done

# An error names what is wrong: a dataset of another task handed to inspect is the dataset's
# task, not the run's (inspect once said "the run's task is k-back" of an Indirect Indexing run).
expect_error "$tmp/kb holds k-back data; the checkpoint was trained on indirect-indexing" inspect "$ck" --data "$tmp/kb"
