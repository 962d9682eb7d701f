# Cases for cli_errors.sh, grouped by subcommand. $bin and $tmp are set by the caller.
expect_error "required" generate
expect_error "--n-train: must be an integer in [0" generate --out "$tmp/a" --n-train -5
expect_error "below min length" generate --out "$tmp/a" --min-len 30 --max-len 20
expect_error "wider than the shortest string" generate --out "$tmp/a" --max-shift 30
expect_error "exceeds the vocabulary" generate --out "$tmp/a" --alphabet 5000
expect_error "--format" generate --out "$tmp/a" --format csv
expect_error "--task" generate --out "$tmp/a" --task nope
expect_error "not expected" generate --out "$tmp/a" --bogus
expect_error "" nosuchcommand
expect_ok --help
expect_ok generate --help
expect_ok generate --out "$tmp/ok" --n-train 100 --n-val 10 --n-test 10 --seed 3
expect_ok generate --out "$tmp/oktxt" --n-train 100 --n-val 10 --n-test 10 --format text
[[ -f "$tmp/ok/manifest.json" && -f "$tmp/oktxt/train.txt" ]] || { echo "FAIL: generate wrote no files"; fails=$((fails+1)); }

# reproduce: the preset must reach the config (it once did not: default_val overwrote it).
expect_ok reproduce indirect-indexing --preset quick --pe pope --seeds 0 --steps 3 --warmup 1 --eval-every 0 --device cpu --out "$tmp/q"
if ! grep -q '"d_model": 64' "$tmp/q/pope_seed0.json" || ! grep -q '"max_len": 8' "$tmp/q/pope_seed0.json"; then
  echo "FAIL: --preset quick did not set the model and task"; fails=$((fails+1)); fi
# an option given on the command line overrides the preset
expect_ok reproduce indirect-indexing --preset quick --pe rope --seeds 1 --steps 3 --warmup 1 --eval-every 0 --d-model 32 --device cpu --out "$tmp/q2"
grep -q '"d_model": 32' "$tmp/q2/rope_seed1.json" || { echo "FAIL: --d-model did not override the preset"; fails=$((fails+1)); }
[[ -f "$tmp/q2/summary.json" && -f "$tmp/q2/summary.md" ]] || { echo "FAIL: reproduce wrote no summary"; fails=$((fails+1)); }
expect_error "unknown preset" reproduce indirect-indexing --preset huge --out "$tmp/q3"
# a preset file of the user's: its args over the defaults, its seeds; its problems named
cat > "$tmp/mine.json" <<'JSON'
{"name": "mine", "seeds": [3, 4], "args": ["--layers", "3", "--d-model", "48", "--heads", "3", "--steps", "77", "--warmup", "10"]}
JSON
expect_ok reproduce indirect-indexing --preset "$tmp/mine.json" --d-model 96 --print-config --out "$tmp/qm"
"$bin" reproduce indirect-indexing --preset "$tmp/mine.json" --d-model 96 --print-config --out "$tmp/qm" 2>/dev/null > "$tmp/mine_cfg.json"
grep -q '"n_layer": 3' "$tmp/mine_cfg.json" && grep -q '"d_model": 96' "$tmp/mine_cfg.json" && grep -q '"steps": 77' "$tmp/mine_cfg.json" &&
  grep -q 'rope_seed4.json' "$tmp/mine_cfg.json" ||
  { echo "FAIL: a preset file's args, seeds or the command line's override did not reach the runs"; fails=$((fails+1)); }
expect_error "does not exist" reproduce indirect-indexing --preset "$tmp/nosuch.json" --out "$tmp/q3"
echo '{"seeds": [0], "args": ["--layers", "2"], "steps": 5}' > "$tmp/bad_preset.json"
expect_error "unknown key 'steps'" reproduce indirect-indexing --preset "$tmp/bad_preset.json" --out "$tmp/q3"
echo '{"seeds": [], "args": []}' > "$tmp/bad_preset.json"
expect_error "seeds must be a non-empty list" reproduce indirect-indexing --preset "$tmp/bad_preset.json" --out "$tmp/q3"
echo '{"seeds": [0], "args": ["--layers", "zero"]}' > "$tmp/bad_preset.json"
expect_error "preset file $tmp/bad_preset.json: --layers" reproduce indirect-indexing --preset "$tmp/bad_preset.json" --out "$tmp/q3"
echo '{"seeds": [0], "args": ["--pe", "rope"]}' > "$tmp/bad_preset.json"
expect_error "preset file $tmp/bad_preset.json" reproduce indirect-indexing --preset "$tmp/bad_preset.json" --out "$tmp/q3"
expect_error "--seeds" reproduce indirect-indexing --preset quick --seeds 0,x --out "$tmp/q3"
# an empty item in any comma list is refused, not dropped (a seed typed wrong would be a run fewer)
for list in "0,,1" "0,1," ",0"; do
  expect_error "--seeds: an empty item in '$list'" reproduce indirect-indexing --preset quick --seeds "$list" --out "$tmp/q3"
done
expect_error "--pe: an empty item" reproduce indirect-indexing --preset quick --pe rope,,pope --out "$tmp/q3"
expect_error "--factors: an empty item" extrapolate --task k-back --factors 1,,2 --out "$tmp/q3"
expect_error "--loss-fields: an empty item" train --pe rope --preset quick --loss-fields 0, --out "$tmp/q3/r.json"
expect_error "--cells: an empty item" sweep "$(dirname "$0")/../results/indirect_indexing/screen/screen.json" --cells loss_all, --out "$tmp/q3"
expect_error "--batch-runs: an empty item" bench --batch-runs 16,,32 --out "$tmp/q3/b.json"
expect_error "--stream-runs: each R must be from 1 to 64, not 65" bench --stream-runs 2,65 --out "$tmp/q3/b.json"
[[ ! -e "$tmp/q3" ]] || { echo "FAIL: a refused list left $tmp/q3 behind"; fails=$((fails+1)); }
expect_error "unknown positional embedding" reproduce indirect-indexing --preset quick --pe rope,bogus --out "$tmp/q3"
expect_error "--shard" reproduce indirect-indexing --preset quick --shard 3/2 --out "$tmp/q3"
# --help shows the preset's values as the defaults (the extrapolation preset has 4 layers of 128)
"$bin" extrapolate --help | grep -q -- '--layers INT:INT in \[1, 1024\]=4' &&
  "$bin" reproduce --preset paper --help | grep -q -- '--layers INT:INT in \[1, 1024\]=8' &&
  "$bin" reproduce --preset quick --help | grep -q -- '--d-model INT:INT in \[1, 65536\]=64' ||
  { echo "FAIL: --help does not show the preset's defaults"; fails=$((fails+1)); }
# batches of runs need a GPU: refused before anything is written
expect_error "--batch-runs needs the GPU" reproduce indirect-indexing --preset quick --batch-runs 2 --device cpu --out "$tmp/qb"
[[ ! -e "$tmp/qb" ]] || { echo "FAIL: a refused --batch-runs left its output folder"; fails=$((fails+1)); }
expect_error "auto or a count of runs from 1 to 64, not '0'" reproduce indirect-indexing --preset quick --batch-runs 0 --out "$tmp/qb"
expect_error "auto or a count of runs from 1 to 64, not 'two'" reproduce indirect-indexing --preset quick --batch-runs two --out "$tmp/qb"
expect_error "needs --device cuda or auto" reproduce indirect-indexing --preset quick --gpus 2 --device cpu --out "$tmp/q3"
expect_error "--gpus" reproduce indirect-indexing --preset quick --gpus 0 --out "$tmp/q3"
expect_error "--gpus 64: " reproduce indirect-indexing --preset quick --gpus 64 --out "$tmp/q3"
expect_error "unknown positional embedding" train --pe bogus --out "$tmp/t.json"
expect_error "does not divide" train --pe rope --heads 3 --out "$tmp/t.json"
expect_error "no dataset at" train --pe rope --data "$tmp/none" --out "$tmp/t.json"
expect_error "cannot be combined with --data" train --pe rope --data "$tmp/ok" --max-len 30 --out "$tmp/t.json"
expect_error "not a popebench checkpoint" eval --checkpoint "$tmp/ok/manifest.json"
expect_error "not a popebench run JSON" merge "$tmp/ok"
# inspect: a checkpoint's diagnostics; bad input named
expect_ok inspect "$tmp/q/pope_seed0.json.ckpt" --examples 20 --out "$tmp/insp/p.json"
grep -q '"schema": "popebench.inspect"' "$tmp/insp/p.json" || { echo "FAIL: inspect wrote no inspect JSON"; fails=$((fails+1)); }
expect_ok inspect "$tmp/q/pope_seed0.json.ckpt" --examples 20 --out "$tmp/insp/p2.json" --predictions "$tmp/insp/pred/p.csv"
[[ $(wc -l < "$tmp/insp/pred/p.csv") -eq 21 ]] && head -1 "$tmp/insp/pred/p.csv" | grep -q '^index,example,' ||
  { echo "FAIL: inspect --predictions wrote no header and 20 rows"; fails=$((fails+1)); }
expect_error "are the same file" inspect "$tmp/q/pope_seed0.json.ckpt" --out "$tmp/insp/same" --predictions "$tmp/insp/same"
expect_error "not a popebench checkpoint" inspect "$tmp/q/pope_seed0.json"
expect_error "--split" inspect "$tmp/q/pope_seed0.json.ckpt" --split train
expect_error "--examples" inspect "$tmp/q/pope_seed0.json.ckpt" --examples -1
# the screen's model options refuse what they cannot do
expect_error "untied head" train --pe rope --tie-embeddings --init scaled-embedding --out "$tmp/t.json"
expect_error "is one already" train --pe learned --abs-pos learned --out "$tmp/t.json"
expect_error "pope only" train --pe rope --delta-bound project --out "$tmp/t.json"
expect_error "--grad-accum" train --pe rope --grad-accum 0 --out "$tmp/t.json"
expect_error "unknown batch sampling" train --pe rope --sampling bootstrap --out "$tmp/t.json"
# --pe all runs the paper's baselines too; each gets its paper value in the summary
expect_ok reproduce indirect-indexing --preset quick --pe all --seeds 0 --steps 2 --warmup 1 --eval-every 0 --n-val 16 --n-test 16 --device cpu --out "$tmp/all"
[[ $(ls "$tmp/all"/*_seed0.json | wc -l) -eq 6 ]] && grep -q '"alibi-half"' "$tmp/all/summary.json" || { echo "FAIL: --pe all did not run the six PEs"; fails=$((fails+1)); }
# The summary and every run record the command line as typed (their provenance).
python3 - "$tmp/all" <<'PY' || { echo "FAIL: the sweep's files do not record its command line"; fails=$((fails+1)); }
import glob, json, sys
want = "reproduce indirect-indexing --preset quick --pe all --seeds 0"
assert want in json.load(open(sys.argv[1] + "/summary.json"))["command"]
for f in glob.glob(sys.argv[1] + "/*_seed0.json"):
    assert want in json.load(open(f))["environment"]["command"], f
PY

# the other tasks, and options that belong to one task only
expect_ok generate --task k-back --out "$tmp/kb" --n-train 50 --n-val 5 --n-test 5
expect_ok generate --task associative-recall --out "$tmp/ar" --n-train 50 --n-val 5 --n-test 5 --values 10
grep -q '"k_hist"' "$tmp/kb/manifest.json" || { echo "FAIL: k-back manifest has no k histogram"; fails=$((fails+1)); }
expect_error "applies to k-back only" generate --out "$tmp/a" --max-k 3
expect_error "applies to indirect-indexing only" generate --task k-back --out "$tmp/a" --max-shift 3
expect_error "text format exists for indirect-indexing only" generate --task k-back --out "$tmp/a" --format text
expect_error "reaches before the shortest string" generate --task k-back --out "$tmp/a" --max-k 30
# The tasks' own options come from their declarations (generators/task_option.hpp): one flag for
# the tasks that share it, its help naming each task with the default its config starts from.
help=$("$bin" generate --help | tr -s ' \n' ' ')
for want in "k-back: k in [1, max] (default 15)" \
            "indirect-indexing: distinct symbols (default 52); associative-recall: distinct key symbols (default 52); k-back: symbols, drawn with replacement (default 52)" \
            "associative-recall: pairs 10" "text: window in bytes 256"; do
  [[ "$help" == *"$want"* ]] || { echo "FAIL: generate --help lacks '$want'"; fails=$((fails+1)); }
done
[[ $(grep -o -- '--alphabet' <<< "$help" | wc -l) -eq 1 ]] || { echo "FAIL: --alphabet is not one option"; fails=$((fails+1)); }

# extrapolate: a tiny CPU run end to end, then the refusals
expect_ok extrapolate --preset quick --task k-back --min-len 4 --max-len 6 --max-k 2 --steps 3 --warmup 1 --eval-every 0 \
  --n-train 100 --n-val 10 --n-test 10 --factors 1,3 --bucket-examples 20 --pe rope,pope-delta0 --seeds 0 --device cpu --out "$tmp/ex"
[[ -f "$tmp/ex/extrapolation.json" && -f "$tmp/ex/eval/rope+pi_seed0.json" && -f "$tmp/ex/eval/pope-delta0_seed0.json" ]] ||
  { echo "FAIL: extrapolate wrote no table or evaluations"; fails=$((fails+1)); }
grep -q '"max_len": 18' "$tmp/ex/extrapolation.json" || { echo "FAIL: the 3x bucket is not lengths 13-18"; fails=$((fails+1)); }
# --eval-gpu-attention: the evaluations' attention, recorded in the table's settings and part of
# each evaluation's cache key (so they run again; the runs are reused); on the CPU the same numbers
cp -r "$tmp/ex" "$tmp/ex_bf16"
expect_ok extrapolate --preset quick --task k-back --min-len 4 --max-len 6 --max-k 2 --steps 3 --warmup 1 --eval-every 0 \
  --n-train 100 --n-val 10 --n-test 10 --factors 1,3 --bucket-examples 20 --pe rope,pope-delta0 --seeds 0 --device cpu \
  --eval-gpu-attention bf16 --out "$tmp/ex_bf16"
/usr/bin/python3 - "$tmp/ex/extrapolation.json" "$tmp/ex_bf16/extrapolation.json" "$tmp/ex_bf16/eval/rope_seed0.json" <<'PY' ||
import json, sys
before, after, ev = (json.load(open(p)) for p in sys.argv[1:])
assert "gpu_attention" not in before["extrapolation"], before["extrapolation"]
assert after["extrapolation"]["gpu_attention"] == "bf16", after["extrapolation"]
assert ev["key"]["extrapolation"]["gpu_attention"] == "bf16", ev["key"]
assert [r["acc"] for r in before["rows"]] == [r["acc"] for r in after["rows"]]
PY
  { echo "FAIL: extrapolate --eval-gpu-attention is not recorded, or changed a CPU evaluation"; fails=$((fails+1)); }
expect_error "--eval-gpu-attention: x not in" extrapolate --task k-back --eval-gpu-attention x --out "$tmp/q4"
# eval --factors on an extrapolate run's checkpoint: the same buckets, the same numbers
expect_ok eval --checkpoint "$tmp/ex/runs/rope_seed0.json.ckpt" --factors 1,3 --bucket-examples 20 --rope-variants pi \
  --device cpu --out "$tmp/ex_eval.json"
/usr/bin/python3 - "$tmp/ex_eval.json" "$tmp/ex/eval/rope_seed0.json" "$tmp/ex/eval/rope+pi_seed0.json" <<'PY' ||
import json, sys
rows = json.load(open(sys.argv[1]))["extrapolation"]["rows"]
assert len(rows) == 2, rows
for row, path in zip(rows, sys.argv[2:]):
    x = json.load(open(path))
    assert (row["label"], row["acc"], row["loss"]) == (x["label"], x["acc"], x["loss"]), (row, x)
PY
  { echo "FAIL: eval --factors differs from extrapolate's evaluation of the same checkpoint"; fails=$((fails+1)); }
# a model trained at lengths 4-6 evaluated at up to 5x (rebuilt for the longest bucket); a learned
# position table refused, before any evaluation
expect_ok train --pe rope --task k-back --min-len 4 --max-len 6 --max-k 2 --steps 2 --warmup 1 --eval-every 0 --n-train 50 \
  --n-val 8 --n-test 8 --layers 1 --d-model 16 --heads 2 --device cpu --out "$tmp/evf/run.json"
expect_ok eval --checkpoint "$tmp/evf/run.json.ckpt" --factors 1,2,5 --bucket-examples 10 --device cpu
expect_ok train --task k-back --min-len 4 --max-len 6 --max-k 2 --pe learned --steps 2 --warmup 1 --eval-every 0 \
  --n-train 50 --n-val 8 --n-test 8 --layers 1 --d-model 16 --heads 2 --device cpu --out "$tmp/evl/run.json"
expect_error "learned position table has 10 rows; the longest bucket needs 16" eval --checkpoint "$tmp/evl/run.json.ckpt" \
  --factors 1,2 --device cpu
expect_error "--rope-variants applies with --factors only" eval --checkpoint "$tmp/evf/run.json.ckpt" --rope-variants pi
expect_error "factors must increase" eval --checkpoint "$tmp/evf/run.json.ckpt" --factors 2,1
# merge: two extrapolate commands (another seed; then other buckets) into one table, and refusals
expect_ok extrapolate --preset quick --task k-back --min-len 4 --max-len 6 --max-k 2 --steps 3 --warmup 1 --eval-every 0 \
  --n-train 100 --n-val 10 --n-test 10 --factors 1,3 --bucket-examples 20 --pe rope --seeds 1 --device cpu --out "$tmp/ex_s1"
expect_ok merge "$tmp/ex" "$tmp/ex_s1" --out "$tmp/exm/extrapolation.json"
/usr/bin/python3 - "$tmp/exm/extrapolation.json" <<'PY' || { echo "FAIL: merged extrapolation table"; fails=$((fails+1)); }
import json, os, sys
d = json.load(open(sys.argv[1]))
rope = [r for r in d["table"] if r["label"] == "rope"][0]
assert rope["seeds"] == [0, 1] and len(d["merged_from"]) == 2, (rope["seeds"], d["merged_from"])
assert all(os.path.exists(os.path.join(os.path.dirname(sys.argv[1]), r["run"])) for r in d["rows"])
PY
expect_error "rope seed 0 is in more than one input" merge "$tmp/ex" "$tmp/ex" --out "$tmp/exm2/extrapolation.json"
expect_error "--out is needed" merge "$tmp/ex" "$tmp/ex_s1"
expect_error "run folders and extrapolation folders do not mix" merge "$tmp/ex" "$tmp/q" --out "$tmp/exm2/x.json"
expect_ok extrapolate --preset quick --task k-back --min-len 4 --max-len 6 --max-k 2 --steps 3 --warmup 1 --eval-every 0 \
  --n-train 100 --n-val 10 --n-test 10 --factors 1,2 --bucket-examples 20 --pe rope --seeds 2 --device cpu --out "$tmp/ex_f2"
expect_error "differ in buckets" merge "$tmp/ex" "$tmp/ex_f2" --out "$tmp/exm2/extrapolation.json"
[[ ! -e "$tmp/exm2" ]] || { echo "FAIL: a refused merge wrote its output (or made its folder)"; fails=$((fails+1)); }
mkdir -p "$tmp/exbad" && echo '{"schema": "popebench.extrapolation", "schema_version": 1}' > "$tmp/exbad/extrapolation.json"
expect_error "exbad/extrapolation.json: no 'rows' (not as" merge "$tmp/ex" "$tmp/exbad" --out "$tmp/exm2/extrapolation.json"
expect_error "test-time RoPE variants are not trained" extrapolate --pe rope+pi --out "$tmp/ex2"
expect_error "factors must increase" extrapolate --factors 3,2 --out "$tmp/ex2"
expect_error "unknown RoPE variant 'longrope' (known: pi, ntk, yarn)" extrapolate --rope-variants longrope --out "$tmp/ex2"
expect_error "--rope-variants: ntk is listed twice" extrapolate --rope-variants ntk,ntk --out "$tmp/ex2"
expect_error "--rope-variants: an empty item in 'pi,,ntk'" extrapolate --rope-variants pi,,ntk --out "$tmp/ex2"
expect_error "'none' stands alone" extrapolate --rope-variants pi,none --out "$tmp/ex2"
expect_error "--data is not supported" extrapolate --data "$tmp/ok" --out "$tmp/ex2"
expect_error "unknown GPU matmul mode" train --pe rope --gpu-matmul fp16 --out "$tmp/t.json"
expect_error "unknown GPU attention products 'fp16'" train --pe rope --gpu-attention fp16 --out "$tmp/t.json"

# the screen's options on the command line, recorded in the run JSON
expect_ok reproduce indirect-indexing --preset quick --pe pope --seeds 0 --steps 3 --warmup 1 --eval-every 0 --device cpu \
  --pe-freqs increasing --attn-scale qk_dim --context 9 --pad left --pad-attention masked --attn-temp learned \
  --weight-decay-on all-2d --pe-lr-mult 2 --pair-draw shift-first --gpu-attention tf32 --out "$tmp/scr"
/usr/bin/python3 - "$tmp/scr/pope_seed0.json" <<'PY' || { echo "FAIL: the screen's options are not in the run JSON"; fails=$((fails+1)); }
import json, sys
c = json.load(open(sys.argv[1]))["config"]
assert c["pe"]["freqs"] == "increasing" and c["model"]["attn_scale"] == "qk_dim", c
assert c["input"] == {"context": 9, "pad": "left", "pad_attention": "masked"}, c["input"]
assert c["model"]["attn_temp"] == "learned", c["model"]
assert c["optim"]["weight_decay_on"] == "all-2d" and c["optim"]["pe_lr_mult"] == 2, c["optim"]
assert c["task"]["params"]["pair_draw"] == "shift-first", c["task"]
assert c["train"]["gpu_attention"] == "tf32", c["train"]
PY
expect_error "attention scale 'x'" train --pe rope --attn-scale x --out "$tmp/t.json"
expect_error "unknown frequency order" train --pe-freqs up --out "$tmp/t.json"
expect_error "applies to rope, rope-interleaved, pope and rope-half" train --pe alibi --pe-freqs increasing --out "$tmp/t.json"
expect_error "unknown padding side" train --pe rope --pad top --out "$tmp/t.json"
expect_error "needs --pad left" train --pe rope --pad-attention masked --out "$tmp/t.json"
expect_error "unknown pad attention 'none'" train --pe rope --pad left --pad-attention none --out "$tmp/t.json"
expect_error "unknown attention temperature 'fast'" train --pe rope --attn-temp fast --out "$tmp/t.json"
expect_error "unknown pair draw" train --pe rope --pair-draw other --out "$tmp/t.json"
expect_error "(--loss all)" train --pe rope --loss-fields 2 --out "$tmp/t.json"
expect_error "--loss-fields: 'x'" train --pe rope --loss all --loss-fields 2,x --out "$tmp/t.json"
expect_error "loss fields must be distinct" train --pe rope --loss all --loss-fields 2,2 --out "$tmp/t.json"
expect_ok train --preset quick --pe rope --steps 3 --warmup 1 --eval-every 0 --device cpu --loss all --loss-fields 0,2 --out "$tmp/lf.json"
/usr/bin/python3 -c "import json, sys; t = json.load(open(sys.argv[1]))['config']['train']; assert t['loss_fields'] == [0, 2] and t['loss'] == 'every_next_token', t" "$tmp/lf.json" ||
  { echo "FAIL: --loss-fields is not in the run JSON"; fails=$((fails+1)); }
expect_error "applies to indirect-indexing only" train --pe rope --task k-back --pair-draw shift-first --out "$tmp/t.json"
expect_error "unknown weight decay scope" train --pe rope --weight-decay-on all --out "$tmp/t.json"

# sweep: a plan file of cells, each its own folder and summary; then the refusals
cat > "$tmp/plan.json" <<'JSON'
{"name": "cli test", "preset": "quick", "args": ["--steps", "3", "--warmup", "1", "--eval-every", "0", "--device", "cpu",
  "--n-train", "200", "--n-val", "16", "--n-test", "16"],
 "cells": [{"name": "base", "pe": ["rope", "pope"], "seeds": [0]},
           {"name": "inc", "why": "Eq. 4", "args": ["--pe-freqs", "increasing"], "pe": ["pope"], "seeds": [0, 1]}]}
JSON
expect_ok sweep "$tmp/plan.json" --out "$tmp/sw"
[[ -f "$tmp/sw/base/rope_seed0.json" && -f "$tmp/sw/inc/pope_seed1.json" && -f "$tmp/sw/inc/summary.json" ]] ||
  { echo "FAIL: sweep wrote no cell folders or summaries"; fails=$((fails+1)); }
grep -q '"freqs": "increasing"' "$tmp/sw/inc/pope_seed0.json" && ! grep -q '"freqs": "increasing"' "$tmp/sw/base/pope_seed0.json" ||
  { echo "FAIL: a cell's args did not reach (only) its runs"; fails=$((fails+1)); }
expect_ok sweep "$tmp/plan.json" --out "$tmp/sw" --cells inc
# --pe: only those PEs of each cell; the cell's summary waits for its other PEs
expect_ok sweep "$tmp/plan.json" --out "$tmp/swp" --pe rope
[[ -f "$tmp/swp/base/rope_seed0.json" && ! -e "$tmp/swp/base/pope_seed0.json" && ! -e "$tmp/swp/inc" && ! -e "$tmp/swp/base/summary.json" ]] ||
  { echo "FAIL: sweep --pe rope trained other PEs, or summarised a cell it did not finish"; fails=$((fails+1)); }
expect_ok sweep "$tmp/plan.json" --out "$tmp/swp" --cells base
[[ -f "$tmp/swp/base/pope_seed0.json" && -f "$tmp/swp/base/summary.json" ]] ||
  { echo "FAIL: the rest of a --pe sweep did not complete the cell and its summary"; fails=$((fails+1)); }
# --shard i/n: each run in exactly one part (cells, then PEs, then seeds); merge sums a cell up as
# the unsharded sweep did (same runs, deterministic)
expect_ok sweep "$tmp/plan.json" --out "$tmp/sws" --shard 0/2
[[ -f "$tmp/sws/base/rope_seed0.json" && ! -e "$tmp/sws/base/pope_seed0.json" && -f "$tmp/sws/inc/pope_seed0.json" &&
   ! -e "$tmp/sws/inc/pope_seed1.json" && ! -e "$tmp/sws/base/summary.json" ]] ||
  { echo "FAIL: sweep --shard 0/2 trained the wrong runs or summarised a split cell"; fails=$((fails+1)); }
expect_ok sweep "$tmp/plan.json" --out "$tmp/sws" --shard 1/2
expect_ok merge "$tmp/sws/base" --out "$tmp/sws/base/summary.json"
/usr/bin/python3 -c "
import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a['rows'] == b['rows'], (a['rows'], b['rows'])" "$tmp/sw/base/summary.json" "$tmp/sws/base/summary.json" ||
  { echo "FAIL: the merged shards' summary differs from the unsharded sweep's"; fails=$((fails+1)); }
expect_error "--shard must be i/n" sweep "$tmp/plan.json" --out "$tmp/swb" --shard 2/2
expect_error "no chosen cell trains 'alibi'" sweep "$tmp/plan.json" --out "$tmp/swb" --pe alibi
expect_error "--batch-runs needs the GPU" sweep "$tmp/plan.json" --out "$tmp/swb" --batch-runs 3
[[ ! -e "$tmp/swb" ]] || { echo "FAIL: a refused --batch-runs left its output folder"; fails=$((fails+1)); }
expect_error "no chosen cell trains 'rope'" sweep "$tmp/plan.json" --out "$tmp/swb" --cells inc --pe rope
expect_error "--pe: pope is listed twice" sweep "$tmp/plan.json" --out "$tmp/swb" --pe pope,pope
echo '{"cells": [{"name": "x", "pe": ["rope"], "seeds": [0, 0]}]}' > "$tmp/plan_bad.json"
expect_error "a seed is listed twice" sweep "$tmp/plan_bad.json" --out "$tmp/swb"
echo '{"cells": [{"name": "x", "pe": ["rope"], "seeds": [0], "arg": []}]}' > "$tmp/plan_bad.json"
expect_error "unknown key 'arg'" sweep "$tmp/plan_bad.json" --out "$tmp/swb"
echo '{"cells": [{"name": "x", "args": ["--lr", "-1"], "pe": ["rope"], "seeds": [0]}]}' > "$tmp/plan_bad.json"
expect_error "cell x: need 0 <= lr_min <= lr" sweep "$tmp/plan_bad.json" --out "$tmp/swb"
echo '{"cells": [{"name": "../x", "pe": ["rope"], "seeds": [0]}]}' > "$tmp/plan_bad.json"
expect_error "it names the cell's folder" sweep "$tmp/plan_bad.json" --out "$tmp/swb"
expect_error "no cell named 'zzz'" sweep "$tmp/plan.json" --out "$tmp/swb" --cells zzz
echo 'not json' > "$tmp/plan_bad.json"
expect_error "plan_bad.json: not valid JSON" sweep "$tmp/plan_bad.json" --out "$tmp/swb"
[[ ! -e "$tmp/swb" ]] || { echo "FAIL: a refused sweep made its output folder"; fails=$((fails+1)); }

# Values: NaN and inf never pass; integers that would saturate or wrap are refused; given-but-empty
# lists are errors, not the defaults; a repeated seed or PE would count one run twice.
for opt in --lr --lr-min --weight-decay --init-std --beta1 --beta2 --grad-clip --pe-base --adam-eps --pe-lr-mult; do
  for v in nan inf -inf; do expect_error "finite" train --pe rope "$opt" "$v" --out "$tmp/t.json"; done
done
expect_error "--steps: must be an integer" train --pe rope --steps 99999999999999999999 --out "$tmp/t.json"
expect_error "--seed: must be an integer" train --pe rope --seed -1 --out "$tmp/t.json"
expect_error "--seed: must be an integer" generate --seed -1 --out "$tmp/g"
expect_error "--threads: must be an integer in [0, 1024]" train --pe rope --threads 100000 --out "$tmp/t.json"
expect_error "--batch: must be an integer" train --pe rope --batch 1.5 --out "$tmp/t.json"
expect_error "--n-val: must be an integer" generate --n-val 99999999999999999999 --out "$tmp/g"
expect_error "--seeds: is empty" reproduce --preset quick --seeds "" --out "$tmp/e"
expect_error "--seeds: 0 is listed twice" reproduce --preset quick --seeds 0,1,0 --out "$tmp/e"
expect_error "--pe: rope is listed twice" reproduce --preset quick --pe rope,pope,rope --out "$tmp/e"
expect_error "--pe: rope is listed twice" extrapolate --pe rope,rope --out "$tmp/e"
expect_error "--factors: is empty" extrapolate --factors "" --out "$tmp/e"
expect_error "--data: is empty" train --pe rope --data "" --out "$tmp/t.json"
expect_error "--out: is empty" train --pe rope --out ""
# Summaries: one run given twice (a folder and a file in it), runs of different settings in one
# table, and a run tested on no examples are refused.
expect_error "is in more than one input" merge "$tmp/q" "$tmp/q/pope_seed0.json" --out "$tmp/m1/summary.json"
expect_error "different settings" merge "$tmp/q/pope_seed0.json" "$tmp/q2/rope_seed1.json" --out "$tmp/m1/summary.json"
expect_error "the test split is empty" reproduce indirect-indexing --preset quick --n-test 0 --device cpu --out "$tmp/e"
expect_error "the validation split is empty" train --pe rope --n-val 0 --out "$tmp/t.json"
mkdir -p "$tmp/empty_test"  # a run file from elsewhere (an older version, a hand-made one) tested on no examples
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r["final"]["test"]["n"]=0; r["final"]["test"]["acc"]=0; json.dump(r,open(sys.argv[2],"w"))' \
  "$tmp/q/pope_seed0.json" "$tmp/empty_test/pope_seed0.json"
expect_error "tested on no examples" merge "$tmp/empty_test/pope_seed0.json" --out "$tmp/m1/summary.json"
[[ ! -e "$tmp/e" && ! -e "$tmp/m1" ]] || { echo "FAIL: a refused command made its output folder"; fails=$((fails+1)); }

# Stops: --stop-at exits 75 (unfinished, rerun to continue); a SIGINT or SIGTERM during a sweep
# checkpoints the run in flight and starts no other run (exit 128 + signal).
"$bin" reproduce indirect-indexing --preset quick --pe rope --seeds 0 --steps 20 --warmup 2 --eval-every 0 --stop-at 5 --device cpu --out "$tmp/st" >/dev/null 2>&1
rc=$?; [[ $rc -eq 75 ]] || { echo "FAIL: --stop-at exit code $rc, wanted 75"; fails=$((fails+1)); }
for sig in INT TERM; do
  rm -rf "$tmp/sig"
  "$bin" reproduce indirect-indexing --preset quick --pe rope --seeds 0,1,2 --steps 100000 --warmup 2 --eval-every 0 \
    --concurrent 1 --threads 1 --device cpu --out "$tmp/sig" >/dev/null 2>"$tmp/sig.log" &
  pid=$!
  for _ in $(seq 1 100); do grep -q "rope_seed0.json" "$tmp/sig.log" 2>/dev/null && break; sleep 0.1; done
  sleep 1; kill -s $sig $pid; wait $pid; rc=$?
  want=$([[ $sig == INT ]] && echo 130 || echo 143)
  [[ $rc -eq $want ]] || { echo "FAIL: SIG$sig during a sweep: exit $rc, wanted $want"; fails=$((fails+1)); }
  [[ -f "$tmp/sig/rope_seed0.json.ckpt" && ! -e "$tmp/sig/rope_seed1.json" && ! -e "$tmp/sig/rope_seed2.json" ]] ||
    { echo "FAIL: SIG$sig: the run in flight did not checkpoint, or another run started"; ls "$tmp/sig"; fails=$((fails+1)); }
  grep -q "rerun the same command" "$tmp/sig.log" && ! grep -q -- "--resume" "$tmp/sig.log" ||
    { echo "FAIL: SIG$sig: the message does not say to rerun the sweep"; fails=$((fails+1)); }
done

# Paths: outputs are regular files or new names, checked before any work; no refused command
# leaves a folder or a stray checkpoint behind; eval and merge make their output's folders.
if [[ -c /dev/null ]]; then
  expect_error "exists and is not a regular file" train --pe rope --steps 2 --warmup 1 --out /dev/null
  [[ -c /dev/null ]] || { echo "FAIL: /dev/null is no longer a device"; fails=$((fails+1)); }
fi
expect_error "are the same file" train --pe rope --out "$tmp/p/run.json" --checkpoint "$tmp/p/./run.json"
expect_error "is not a folder" train --pe rope --out "$tmp/ok/manifest.json/run.json"
expect_error "names a folder, not a file" train --pe rope --out "$tmp/p/"
expect_error "no dataset at" train --pe rope --data "$tmp/none" --out "$tmp/p2/run.json"
# A relative output path whose first folder does not exist yet is made in the working folder
# (train and sweep once refused "runs/a.json" with "runs is not a folder"); a relative path under
# a file is still refused.
mkdir -p "$tmp/rel" && pushd "$tmp/rel" > /dev/null
expect_ok train --pe rope --preset quick --steps 2 --warmup 1 --eval-every 0 --n-train 50 --n-val 8 --n-test 8 --device cpu --out new/sub/run.json
[[ -f new/sub/run.json ]] || { echo "FAIL: train --out new/sub/run.json (relative) wrote no run"; fails=$((fails+1)); }
printf '{"name": "r", "preset": "quick", "args": ["--steps", "2", "--warmup", "1", "--eval-every", "0", "--n-train", "50", "--n-val", "8", "--n-test", "8", "--device", "cpu"], "cells": [{"name": "c", "pe": ["rope"], "seeds": [0]}]}' > plan.json
expect_ok sweep plan.json --out swept
[[ -f swept/c/rope_seed0.json ]] || { echo "FAIL: sweep --out swept (relative) wrote no run"; fails=$((fails+1)); }
touch afile
expect_error "is not a folder" train --pe rope --out afile/run.json
popd > /dev/null
[[ ! -e "$tmp/p" && ! -e "$tmp/p2" ]] || { echo "FAIL: a refused train left a folder behind"; ls -R "$tmp/p" "$tmp/p2"; fails=$((fails+1)); }
mkfifo "$tmp/fifo.json"
expect_error "not a regular file" merge "$tmp/fifo.json" --out "$tmp/m3/summary.json"
rm -f "$tmp/fifo.json"
expect_ok merge "$tmp/q" --out "$tmp/new/deeper/summary.json"
[[ -f "$tmp/new/deeper/summary.json" ]] || { echo "FAIL: merge did not make its output folder"; fails=$((fails+1)); }
expect_ok train --pe rope --steps 2 --warmup 1 --eval-every 0 --n-train 50 --n-val 8 --n-test 8 --min-len 5 --max-len 8 --max-shift 2 \
  --alphabet 8 --layers 1 --d-model 16 --heads 2 --device cpu --out "$tmp/tr/run.json"
expect_ok eval --checkpoint "$tmp/tr/run.json.ckpt" --device cpu --out "$tmp/ev/a/b.json"
[[ -f "$tmp/ev/a/b.json" ]] || { echo "FAIL: eval did not make its output folder"; fails=$((fails+1)); }
# --gpu-attention overrides the checkpoint's setting for the evaluation and is recorded beside the
# checkpoint's config, which stays as trained.
expect_ok eval --checkpoint "$tmp/tr/run.json.ckpt" --device cpu --gpu-attention bf16 --out "$tmp/ev/bf16.json"
python3 - "$tmp/ev/a/b.json" "$tmp/ev/bf16.json" <<'PY' || { echo "FAIL: eval --gpu-attention is not recorded as given"; fails=$((fails+1)); }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["gpu_attention"] == "fp32" and b["gpu_attention"] == "bf16", (a["gpu_attention"], b["gpu_attention"])
assert b["config"]["train"]["gpu_attention"] == "fp32", b["config"]["train"]
PY
expect_ok generate --task k-back --out "$tmp/kb" --n-train 20 --n-val 5 --n-test 5
expect_error "holds k-back data; the checkpoint was trained on indirect-indexing" eval --checkpoint "$tmp/tr/run.json.ckpt" --data "$tmp/kb" --device cpu
expect_error "--time-limit: must be a number" reproduce --preset quick --time-limit nan --out "$tmp/e"
expect_error "--stop-at: must be an integer" train --pe rope --stop-at -3 --out "$tmp/t.json"
expect_error "--bucket-examples: must be an integer" extrapolate --bucket-examples 0 --out "$tmp/e"
# A run that diverges before its first checkpoint says so (it once claimed a checkpoint was kept).
expect_error "no checkpoint had been written yet" train --pe rope --lr 1e30 --lr-min 0 --steps 50 --warmup 1 --eval-every 0 --n-train 50 \
  --n-val 8 --n-test 8 --min-len 5 --max-len 8 --max-shift 2 --alphabet 8 --layers 1 --d-model 16 --heads 2 --device cpu --log-every 0 --out "$tmp/div/run.json"
grep -q '"status": "diverged"' "$tmp/div/run.json" || { echo "FAIL: a diverged run wrote no run JSON"; fails=$((fails+1)); }

# --print-config: every run's resolved config and parameter count as JSON; nothing trained or written
"$bin" reproduce indirect-indexing --preset quick --pe rope,pope --seeds 0,1 --d-model 32 --print-config --out "$tmp/pc" > "$tmp/pc.json" 2>/dev/null \
  || { echo "FAIL: reproduce --print-config failed"; fails=$((fails+1)); }
/usr/bin/python3 - "$tmp/pc.json" "$tmp/pc" <<'PY' || { echo "FAIL: reproduce --print-config output"; fails=$((fails+1)); }
import json, os, sys
runs = json.load(open(sys.argv[1]))
assert [(r["config"]["pe"]["kind"], r["config"]["train"]["seed"]) for r in runs] == [("rope", 0), ("rope", 1), ("pope", 0), ("pope", 1)], runs
assert all(r["config"]["model"]["d_model"] == 32 and r["parameters"] > 0 for r in runs), runs
assert runs[2]["parameters"] > runs[0]["parameters"]  # PoPE's delta
assert runs[0]["out"].endswith("pc/rope_seed0.json"), runs[0]["out"]
assert not os.path.exists(sys.argv[2]), "print-config made the output directory"
PY
"$bin" train --pe rope --data "$tmp/ok" --layers 1 --print-config --out "$tmp/pc1.json" > "$tmp/pc1.txt" 2>/dev/null \
  || { echo "FAIL: train --print-config failed"; fails=$((fails+1)); }
/usr/bin/python3 - "$tmp/pc1.txt" "$tmp/ok/manifest.json" "$tmp/pc1.json" <<'PY' || { echo "FAIL: train --print-config with --data"; fails=$((fails+1)); }
import json, os, sys
[run] = json.load(open(sys.argv[1]))
manifest = json.load(open(sys.argv[2]))
assert run["config"]["train"]["data_seed"] == 3 and run["config"]["model"]["n_layer"] == 1, run["config"]
assert run["config"]["task"]["n_train"] == 100, run["config"]["task"]  # the dataset's, from its manifest
assert not os.path.exists(sys.argv[3])
PY

# reproduce without --preset, training on the CPU: the quick preset, with a notice
"$bin" reproduce indirect-indexing --device cpu --pe rope --seeds 0 --print-config --out "$tmp/auto" > "$tmp/auto.json" 2> "$tmp/auto.err" \
  || { echo "FAIL: reproduce --device cpu --print-config failed"; fails=$((fails+1)); }
grep -q "the quick preset" "$tmp/auto.err" || { echo "FAIL: no notice that the quick preset was chosen"; fails=$((fails+1)); }
grep -q '"d_model": 64' "$tmp/auto.json" || { echo "FAIL: reproduce on the CPU without --preset did not run the quick preset"; fails=$((fails+1)); }
"$bin" reproduce indirect-indexing --device cpu --preset paper --pe rope --seeds 0 --print-config --out "$tmp/auto" 2> "$tmp/auto.err" | grep -q '"d_model": 512' \
  || { echo "FAIL: --preset paper on the CPU is not the paper model"; fails=$((fails+1)); }
[[ ! -s "$tmp/auto.err" ]] || { echo "FAIL: a notice with --preset given"; fails=$((fails+1)); }

# progress: after each run, the time left for the whole command; none after the last
"$bin" reproduce indirect-indexing --preset quick --pe rope --seeds 0,1 --steps 3 --warmup 1 --eval-every 0 --n-val 16 \
  --n-test 16 --device cpu --out "$tmp/eta" > /dev/null 2> "$tmp/eta.err"
grep -q "(1 of 2 runs finished, .* min since the first started; about .* min left for the command)" "$tmp/eta.err" &&
  grep -q "(2 of 2 runs finished, [0-9.]* min since the first started)" "$tmp/eta.err" ||
  { echo "FAIL: no estimate of the time left, or one after the last run"; cat "$tmp/eta.err"; fails=$((fails+1)); }
# export: run JSONs (folders searched recursively, other JSON skipped) into one CSV
expect_ok export "$tmp/q" "$tmp/scr" --out "$tmp/csv/runs.csv"
expect_ok export "$tmp/q" --curves --out "$tmp/csv/curves.csv"
/usr/bin/python3 - "$tmp/csv/runs.csv" "$tmp/csv/curves.csv" "$tmp/q/pope_seed0.json" <<'PY' || { echo "FAIL: export's CSV"; fails=$((fails+1)); }
import csv, json, sys
runs = list(csv.DictReader(open(sys.argv[1])))
assert len(runs) == 2, runs  # q's run and scr's; summary.json files skipped
q = json.load(open(sys.argv[3]))
row = next(r for r in runs if r["file"].endswith("q/pope_seed0.json"))
assert float(row["test_acc"]) == q["final"]["test"]["acc"] and row["config.model.d_model"] == "64", row
assert next(r for r in runs if "scr" in r["file"])["config.model.attn_temp"] == "learned"
curves = list(csv.DictReader(open(sys.argv[2])))
assert len(curves) == len(q["curve"]) and curves[-1]["step"] == str(q["curve"][-1]["step"]), curves
PY
expect_error "no run JSON among the inputs" export "$tmp/csv" --out "$tmp/csv/none.csv"
# export --extrapolation: the tiny extrapolate table above (rope, rope+pi, rope+ntk, pope-delta0 at 1x and 3x)
expect_ok export "$tmp/ex" --extrapolation --out "$tmp/csv/ex.csv"
[[ $(wc -l < "$tmp/csv/ex.csv") -eq 9 ]] || { echo "FAIL: export --extrapolation: not 8 rows and a header"; fails=$((fails+1)); }
# found by fuzz_run_json: a run whose task has a misspelt field crashed the summary's task reader
expect_error "found_unreadable_task.json: its task is not one this version reads" merge \
  "$(dirname "${BASH_SOURCE[0]}")/fuzz_corpus/run_json/found_unreadable_task.json" --out "$tmp/fz/summary.json"
expect_error "no extrapolation JSON among the inputs" export "$tmp/q" --extrapolation --out "$tmp/csv/none.csv"
expect_error "different tables: give one" export "$tmp/ex" --extrapolation --curves --out "$tmp/csv/none.csv"
expect_error "no such file or directory" export "$tmp/nothing_here" --out "$tmp/csv/none.csv"
expect_error "not a popebench run JSON" export "$tmp/q/summary.json" --out "$tmp/csv/none.csv"

# list: the presets (with their options), PEs and tasks, as text and as JSON
expect_ok list
"$bin" list | grep -q '^  quick  .*' && "$bin" list | grep -q 'options: --min-len 5 --max-len 8' &&
  "$bin" list | grep -q '^  pope ' && "$bin" list | grep -q '^  k-back ' ||
  { echo "FAIL: list does not show the presets' options, the PEs and the tasks"; fails=$((fails+1)); }
"$bin" list --json | /usr/bin/python3 -c "
import json, sys; j = json.load(sys.stdin)
assert [p['name'] for p in j['presets']] == ['extrapolation', 'paper', 'quick'], j['presets']
names = [p['name'] for p in j['positional_embeddings']]
assert {'none', 'rope', 'pope', 'rope-half', 'alibi', 'alibi-half', 'sinusoidal', 'learned'} <= set(names), names
assert len(set(names)) == len(names) and all(isinstance(p['gpu'], bool) for p in j['positional_embeddings'])
assert [t['name'] for t in j['tasks']] == ['indirect-indexing', 'associative-recall', 'k-back', 'text'], j['tasks']" ||
  { echo "FAIL: list --json"; fails=$((fails+1)); }

# train --preset: one run from a preset (shipped or a file), options on the command line over it
"$bin" train --preset quick --pe rope --steps 10 --warmup 2 --print-config --out "$tmp/tp.json" 2>/dev/null > "$tmp/tp_cfg.json"
grep -q '"d_model": 64' "$tmp/tp_cfg.json" && grep -q '"steps": 10' "$tmp/tp_cfg.json" && grep -q '"kind": "rope"' "$tmp/tp_cfg.json" ||
  { echo "FAIL: train --preset quick did not start from the preset"; fails=$((fails+1)); }
"$bin" train --pe rope --preset "$tmp/mine.json" --print-config --out "$tmp/tp.json" 2>/dev/null | grep -q '"n_layer": 3' ||
  { echo "FAIL: train --preset FILE did not start from the file"; fails=$((fails+1)); }
expect_error "unknown preset 'huge'" train --preset huge --out "$tmp/tp.json"


# train asks for the PE and the output it writes (no neutral default), prints configs without an
# output, and says before a run that would train on the CPU for hours how long it would take.
expect_error "train needs --pe (one of none, rope" train --out "$tmp/t.json"
expect_error "--out is required" train --pe rope
"$bin" train --pe rope --print-config 2>/dev/null | grep -q '"kind": "rope"' ||
  { echo "FAIL: train --print-config without --out"; fails=$((fails+1)); }
"$bin" train --pe rope --device cpu --n-train 100 --n-val 10 --n-test 10 --stop-at 1 --out "$tmp/long/r.json" 2>"$tmp/long.err" >/dev/null
grep -q "this run trains on the CPU: 100000 steps of a 25242112-parameter model, about .* hours" "$tmp/long.err" ||
  { echo "FAIL: no warning before a paper-model run on the CPU: $(head -2 "$tmp/long.err")"; fails=$((fails+1)); }
"$bin" train --pe rope --preset quick --device cpu --n-train 100 --n-val 10 --n-test 10 --stop-at 1 --out "$tmp/short/r.json" 2>"$tmp/short.err" >/dev/null
! grep -q "this run trains on the CPU" "$tmp/short.err" || { echo "FAIL: a warning before a quick run"; fails=$((fails+1)); }

# export: --steps concatenates the runs' step logs; a run written before runs recorded their
# origin takes it from its command.
expect_ok train --pe rope --preset quick --steps 4 --warmup 1 --eval-every 0 --n-train 50 --n-val 8 --n-test 8 --step-log 2 --device cpu --out "$tmp/sl/run.json"
expect_ok export "$tmp/sl" --steps --out "$tmp/sl.csv"
/usr/bin/python3 -c "
import csv, sys; rows = list(csv.DictReader(open('$tmp/sl.csv')))
assert [r['step'] for r in rows] == ['2', '4'], rows
assert rows[0]['origin.preset'] == 'quick' and rows[0]['pe'] == 'rope' and float(rows[0]['loss']) > 0, rows[0]" ||
  { echo "FAIL: export --steps"; fails=$((fails+1)); }
expect_ok train --pe rope --preset quick --steps 4 --warmup 1 --eval-every 0 --n-train 50 --n-val 8 --n-test 8 --step-log 0 --device cpu --out "$tmp/sl0/run.json"
expect_error "no run has a step log" export "$tmp/sl0" --steps --out "$tmp/sl2.csv"
expect_error "different tables: give one" export "$tmp/q" --steps --curves --out "$tmp/sl2.csv"
mkdir -p "$tmp/fb"
/usr/bin/python3 -c "
import json; r = json.load(open('$tmp/q/pope_seed0.json')); r.pop('origin', None); json.dump(r, open('$tmp/fb/pope_seed0.json', 'w'))"
expect_ok export "$tmp/fb" --out "$tmp/fb.csv"
/usr/bin/python3 -c "
import csv; rows = list(csv.DictReader(open('$tmp/fb.csv'))); assert rows[0]['origin.preset'] == 'quick', rows[0]" ||
  { echo "FAIL: export took no origin from an older run's command"; fails=$((fails+1)); }

# text: a missing corpus, a non-text task given a corpus, an alphabet for bytes, a window the
# corpus cannot hold; a small corpus of two folders generates and trains on a CPU (loss on every
# next byte).
expect_error "is not a folder" generate --task text --corpus "$tmp/no_corpus" --out "$tmp/tx0"
[[ ! -e "$tmp/tx0/manifest.json" ]] || { echo "FAIL: a refused text corpus left a manifest"; fails=$((fails+1)); }
expect_error "--corpus applies to text only" generate --task k-back --corpus "$tmp" --out "$tmp/tx1"
expect_error "--alphabet applies to indirect-indexing, associative-recall and k-back only (the task is text)" generate --task text --alphabet 30 --out "$tmp/tx1"
mkdir -p "$tmp/corpus/a" "$tmp/corpus/b"
# 200 documents: at the default 5 % shares each evaluation split gets ~10 of them
for i in $(seq 1 200); do
  for j in $(seq 1 $((i % 7 + 3))); do echo "Paragraph $j of document $i of a small corpus, for a byte model."; done \
    > "$tmp/corpus/$([[ $((i % 2)) == 0 ]] && echo a || echo b)/doc$i.rst"
done
gzip "$tmp/corpus/a/doc2.rst"
# the evaluation splits are too small for the window: refused before the training split is drawn
expect_error "hold no window" generate --task text --corpus "$tmp/corpus" --max-len 5000 --min-len 5000 --n-train 100000000 --out "$tmp/tx2"
expect_ok generate --task text --corpus "$tmp/corpus" --min-len 32 --max-len 32 --n-train 200 --n-val 400 --n-test 400 --out "$tmp/tx3"
expect_ok train --data "$tmp/tx3" --preset quick --loss all --pe pope --steps 4 --warmup 1 --eval-every 2 --device cpu --out "$tmp/tx3/run.json"
# extrapolate on text: the table is of bits per byte at every window length, the same test bytes each
"$bin" extrapolate --preset quick --task text --corpus "$tmp/corpus" --min-len 32 --max-len 32 --loss all --pe rope,pope \
  --seeds 0 --steps 6 --warmup 2 --eval-every 3 --n-train 200 --n-val 400 --n-test 400 --factors 1,3 --bucket-examples 700 \
  --rope-variants none --device cpu --out "$tmp/tx4" >/dev/null 2>&1 || { echo "FAIL: extrapolate --task text"; fails=$((fails+1)); }
grep -q "bits per byte (lower is better)" "$tmp/tx4/extrapolation.md" 2>/dev/null &&
/usr/bin/python3 -c "
import json, math; t = json.load(open('$tmp/tx4/extrapolation.json'))
assert t['metric'].startswith('test bits per byte'), t['metric']
for row in t['rows']:
    assert len(row['bits_per_byte']) == 2 and all(0 < b < math.log2(270) + 1 for b in row['bits_per_byte']), row
assert [r['metric'] for r in t['table']] == ['bits_per_byte'] * 2, t['table']
run = json.load(open('$tmp/tx4/' + t['rows'][0]['run']))
assert t['corpus']['digest'].startswith('fnv1a64:') and run['data']['corpus'] == t['corpus'], (t['corpus'], run['data'])" ||
  { echo "FAIL: extrapolate --task text did not report bits per byte and its corpus"; fails=$((fails+1)); }
# the corpus changed in place (one document longer) after that table: another seed on it does
# not merge with it, since the tables' corpus digests differ (no later case reads the corpus)
txr=(train --preset quick --task text --corpus "$tmp/corpus" --min-len 32 --max-len 32 --loss all --pe rope --steps 2 --warmup 1
     --eval-every 0 --n-train 50 --n-val 100 --n-test 100 --device cpu)
expect_ok "${txr[@]}" --seed 0 --out "$tmp/tx7/a.json"
# inspect on a text model: which frequencies attention uses, over the first windows of the test bytes
expect_ok inspect "$tmp/tx7/a.json.ckpt" --examples 2 --out "$tmp/tx7/a.inspect.json"
/usr/bin/python3 -c "
import json; r = json.load(open('$tmp/tx7/a.inspect.json'))
fu = r['result']['frequency_usage']
assert r['result']['n'] == 2 and fu['positions'] == 2 * 32 and len(fu['layers']) == r['config']['model']['n_layer'], fu.keys()
assert r['data']['corpus']['digest'].startswith('fnv1a64:') and 'acc' not in r['result'], r['data']" ||
  { echo "FAIL: inspect on a text model"; fails=$((fails+1)); }
expect_error "--predictions lists Indirect Indexing examples" inspect "$tmp/tx7/a.json.ckpt" --predictions "$tmp/tx7/p.csv"
echo "One more line." >> "$tmp/corpus/b/doc1.rst"
expect_ok "${txr[@]}" --seed 1 --out "$tmp/tx7/b.json"
expect_error "different settings" merge "$tmp/tx7/a.json" "$tmp/tx7/b.json" --out "$tmp/tx7/summary.json"
"$bin" extrapolate --preset quick --task text --corpus "$tmp/corpus" --min-len 32 --max-len 32 --loss all --pe rope \
  --seeds 1 --steps 2 --warmup 1 --eval-every 0 --n-train 200 --n-val 400 --n-test 400 --factors 1,3 --bucket-examples 700 \
  --rope-variants none --device cpu --out "$tmp/tx5" >/dev/null 2>&1 || { echo "FAIL: extrapolate --task text (seed 1)"; fails=$((fails+1)); }
expect_error "read different text corpora" merge "$tmp/tx4" "$tmp/tx5" --out "$tmp/tx6/extrapolation.json"

# --init-from (fine-tuning): a run that starts from another's checkpoint computes, before any real
# update (a learning rate of 1e-12), exactly the source's test loss; at a longer length it trains;
# another model, or no checkpoint, is refused in one line.
ftb=(--preset quick --alphabet 20 --eval-every 0 --n-train 200 --n-val 20 --n-test 20 --device cpu)
ft=("${ftb[@]}" --pe rope)
expect_ok train "${ft[@]}" --steps 20 --warmup 2 --out "$tmp/ft/a.json"
expect_ok train "${ft[@]}" --steps 1 --warmup 1 --lr 1e-12 --lr-min 1e-12 --init-from "$tmp/ft/a.json.ckpt" --out "$tmp/ft/b.json"
/usr/bin/python3 -c "
import json; a = json.load(open('$tmp/ft/a.json')); b = json.load(open('$tmp/ft/b.json'))
assert a['final']['test']['loss'] == b['final']['test']['loss'], (a['final'], b['final'])
assert b['init_from']['step'] == 20 and b['init_from']['checkpoint'].endswith('a.json.ckpt'), b['init_from']
assert b['config']['train']['init_from'].endswith('a.json.ckpt')" ||
  { echo "FAIL: --init-from did not start from the checkpoint's parameters"; fails=$((fails+1)); }
expect_ok train "${ft[@]}" --steps 3 --warmup 1 --max-len 16 --init-from "$tmp/ft/a.json.ckpt" --out "$tmp/ft/c.json"
expect_error "only the maximum length may differ" train "${ftb[@]}" --pe pope --steps 1 --warmup 1 --init-from "$tmp/ft/a.json.ckpt" --out "$tmp/ft/d.json"
expect_error "--init-from: cannot read" train "${ft[@]}" --steps 1 --warmup 1 --init-from "$tmp/ft/none.ckpt" --out "$tmp/ft/e.json"
# Fine-tuning RoPE with YaRN at twice the length (the paper's YaRN baseline); the scaling is RoPE's only.
expect_ok train "${ft[@]}" --steps 3 --warmup 1 --max-len 16 --init-from "$tmp/ft/a.json.ckpt" --rope-scaling yarn \
  --rope-factor 2 --rope-train-len 10 --out "$tmp/ft/y.json"
grep -q '"rope_scaling": "yarn"' "$tmp/ft/y.json" || { echo "FAIL: the YaRN fine-tune's config lacks its scaling"; fails=$((fails+1)); }
expect_error "applies to" train "${ftb[@]}" --pe pope --steps 1 --warmup 1 --rope-scaling yarn --rope-factor 2 --rope-train-len 10 --out "$tmp/ft/z.json"
expect_error "needs the training length" train "${ft[@]}" --steps 1 --warmup 1 --rope-scaling yarn --rope-factor 2 --out "$tmp/ft/z.json"
# eval --factor-of: a model fine-tuned at twice the length evaluated at its base model's lengths
expect_ok eval --checkpoint "$tmp/ft/c.json.ckpt" --factors 1,2 --factor-of 8 --bucket-examples 20 --out "$tmp/ft/ce.json"
/usr/bin/python3 -c "
import json; e = json.load(open('$tmp/ft/ce.json'))['extrapolation']
assert [b['max_len'] for b in e['buckets']] == [8, 16] and e['config']['base_len'] == 8, e['buckets']" ||
  { echo "FAIL: eval --factor-of did not set the buckets' lengths"; fails=$((fails+1)); }
expect_error "--factor-of applies with --factors only" eval --checkpoint "$tmp/ft/c.json.ckpt" --factor-of 8
