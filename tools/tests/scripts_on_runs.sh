#!/usr/bin/env bash
# tools/plot.py, tools/compare_seeds.py, tools/plot_inspect.py and the screen's table and overview on the JSON that real runs write: the figures
# appear, the seed comparison counts the runs of a merged extrapolation table, bad input exits 2.
set -u
bin="$1"
src=$(cd "$(dirname "$0")/../.." && pwd)
# From the repository root: the tools run as modules of its tools package (python3 -m tools.NAME).
cd "$src" || exit 1
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
script_argv() {  # a results script by its path: a module of the tools package, else the file
  if [[ $1 == tools/*.py ]]; then local m=${1#tools/}; echo "-m tools.${m%.py}"; else echo "$src/$1"; fi
}
check() {  # description, command...
  local what="$1"; shift
  if ! "$@" >"$tmp/out" 2>&1; then echo "FAIL: $what"; cat "$tmp/out"; fails=$((fails+1)); fi
}
tiny=(--preset quick --task k-back --min-len 4 --max-len 6 --max-k 2 --steps 3 --warmup 1 --eval-every 2
      --n-train 100 --n-val 10 --n-test 10 --factors 1,2 --bucket-examples 20 --rope-variants none --device cpu)
check "extrapolate seeds 0,1" "$bin" extrapolate "${tiny[@]}" --pe rope,pope --seeds 0,1 --out "$tmp/a"
check "extrapolate seed 2" "$bin" extrapolate "${tiny[@]}" --pe rope,pope --seeds 2 --out "$tmp/b"
check "merge" "$bin" merge "$tmp/a" "$tmp/b" --out "$tmp/m/extrapolation.json"
check "reproduce" "$bin" reproduce indirect-indexing --preset quick --pe rope,pope --seeds 0 --steps 3 --warmup 1 \
  --eval-every 2 --n-val 16 --n-test 16 --device cpu --out "$tmp/r"

check "plot.py" "$py" -m tools.plot "$tmp/a" "$tmp/m" "$tmp/r"
check "plot.py --learned-above" "$py" -m tools.plot "$tmp/m" --learned-above 40
"$py" -m tools.plot "$tmp/m" --learned-above lots >/dev/null 2>&1 &&
  { echo "FAIL: plot.py accepted --learned-above lots"; fails=$((fails+1)); }
for f in a/extrapolation.png a/curves.png m/extrapolation.png r/accuracy.png r/curves.png; do
  [[ -s "$tmp/$f" ]] || { echo "FAIL: plot.py wrote no $f"; fails=$((fails+1)); }
done
# Legends list runs in the summary tables' order (the paper's Table 1, then Table 9, then by name).
check "plot.py legend order" "$py" -c "
from tools import plot
got = sorted(['none', 'sinusoidal', 'pope', 'alibi', 'rope', 'learned', 'rope-half', 'alibi-half'], key=plot.table_rank)
assert got == ['rope', 'pope', 'rope-half', 'alibi-half', 'learned', 'sinusoidal', 'alibi', 'none'], got"
# The merged folder holds no runs: compare_seeds.py finds the three seeds through its rows.
check "compare_seeds.py paired" "$py" -m tools.compare_seeds "$tmp/m" pope rope
grep -q "(2 df)" "$tmp/out" || { echo "FAIL: compare_seeds.py did not pair three seeds"; cat "$tmp/out"; fails=$((fails+1)); }
check "compare_seeds.py --above" "$py" -m tools.compare_seeds "$tmp/m" pope rope --above -1
grep -q "pope 3 of 3, rope 3 of 3; two-sided Fisher exact p = 1" "$tmp/out" ||
  { echo "FAIL: compare_seeds.py --above -1 did not count every run"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -m tools.compare_seeds "$tmp/m" pope alibi >/dev/null 2>&1
[[ $? -eq 2 ]] || { echo "FAIL: compare_seeds.py with a PE that has no runs did not exit 2"; fails=$((fails+1)); }
# One PE under two configs: PE_B's runs from another folder (the reproduce runs below the merged table).
check "compare_seeds.py --dir-b" "$py" -m tools.compare_seeds "$tmp/m" rope rope --dir-b "$tmp/r" --above -1
grep -q "rope ($tmp/m) 3 of 3, rope ($tmp/r) 1 of 1; two-sided Fisher exact p = 1" "$tmp/out" ||
  { echo "FAIL: compare_seeds.py --dir-b did not count each folder's runs"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -m tools.compare_seeds "$tmp/m" rope rope --dir-b "$tmp/none" >/dev/null 2>&1
[[ $? -eq 2 ]] || { echo "FAIL: compare_seeds.py with a missing --dir-b did not exit 2"; fails=$((fails+1)); }
# The Fisher p against a hand count: 5 of 10 against 0 of 10 is twice C(10,5) / C(20,5) = 2 * 252 / 15504.
check "compare_seeds.py Fisher p" "$py" -c "
from tools import compare_seeds as c
p = c.fisher_two_sided_p(5, 10, 0, 10)
assert abs(p - 2 * 252 / 15504) < 1e-12, p
assert abs(c.fisher_two_sided_p(3, 3, 0, 3) - 0.1) < 1e-12"
"$py" -m tools.plot "$tmp/none" >/dev/null 2>&1 && { echo "FAIL: plot.py accepted a missing folder"; fails=$((fails+1)); }
# inspect on the reproduce run's checkpoint, and its figure.
check "inspect" "$bin" inspect "$tmp/r/pope_seed0.json.ckpt" --examples 16 --show 2 --out "$tmp/i/pope.json"
check "plot_inspect.py" "$py" -m tools.plot_inspect "$tmp/i/pope.json"
[[ -s "$tmp/i/pope.png" ]] || { echo "FAIL: plot_inspect.py wrote no pope.png"; fails=$((fails+1)); }
# The frequency-usage figure from the same inspect JSON (PoPE: mu per frequency and delta).
check "frequency_usage.py" "$py" -m tools.frequency_usage "$tmp/i/pope.json" --out "$tmp/i/fu.png"
[[ -s "$tmp/i/fu.png" && -s "$tmp/i/fu.pdf" ]] || { echo "FAIL: frequency_usage.py wrote no fu.png and fu.pdf"; fails=$((fails+1)); }
"$py" -m tools.frequency_usage "$tmp/r/pope_seed0.json" --out "$tmp/i/x.png" >"$tmp/out" 2>&1
[[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] || { echo "FAIL: frequency_usage.py did not refuse a run JSON in one line"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -m tools.plot_inspect "$tmp/r/pope_seed0.json" >/dev/null 2>&1
[[ $? -eq 2 ]] || { echo "FAIL: plot_inspect.py accepted a run JSON"; fails=$((fails+1)); }
# The screen's table and overview figure on the committed screen (the baseline row first); a
# missing folder and a stray argument are refused.
scr="$src/results/indirect_indexing/screen"
check "screen_table.py" "$py" "$scr/screen_table.py"
grep -q "^| baseline (paper_100k) | pope | 0/1/2 | 100k |" "$tmp/out" || { echo "FAIL: screen_table.py lost the baseline row"; fails=$((fails+1)); }
# screen_verdict.py: PLAN.md's rules on the committed runs, then on made-up cells that reach each
# verdict the committed runs do not (a reproduction, a PE that moves only at 100,000, a pending
# 40k stop, a PoPE-only cell continued on the baseline's RoPE, one whose plan lists RoPE runs not
# yet trained): each made from loss_all's complete runs (copied, their curves and final
# accuracies rewritten).
check "screen_verdict.py" "$py" "$scr/screen_verdict.py"
for want in "Bars: a cell moves PoPE at 100,000 steps with test accuracy >= 30.57 %, RoPE with >= 46.87 %" \
            "| loss_all | 2 of 3 | moves: escape before 40k (seed 0 at 28k, seed 2 at 24k) | 2 of 3 | moves: escape before 40k (seed 0 at 38k, seed 1 at 36k) | yes | no: PoPE 96.79 %, RoPE 94.84 % |" \
            "| base_100 | 1 of 3 | no move at 100k (best 18.11 % < 30.57 %) | 1 of 3 | moves: escape before 40k (seed 0 at 24k) | yes | no: PoPE 10.84 %, RoPE 36.25 % |" \
            "| attn_qk_dim | 0 of 2 | no move, stopped at 40k | - | baseline's runs stand | no | no (stopped at 40k) |"; do
  grep -qF "$want" "$tmp/out" || { echo "FAIL: screen_verdict.py lacks '$want'"; cat "$tmp/out"; fails=$((fails+1)); }
done
"$py" - "$scr/stage1/loss_all" "$tmp/verdict" <<'PY'
import copy, json, os, sys
src, out = sys.argv[1], sys.argv[2]
def make(cell, pe, seed, escape, test, steps_done=None, steps=None):
    r = json.load(open(os.path.join(src, f"{pe}_seed{seed}.json")))
    if steps is not None:  # a longer schedule (budget_200k): its stop is at the same share, 80k
        r["config"]["train"]["steps"] = steps
    for p in r["curve"]:
        p["val_acc"] = 0.05 if escape is None or p["step"] < escape else max(test, 0.06)
    r["final"]["test"]["acc"] = test
    if steps_done is not None:  # a run stopped early: no final result yet
        r["status"], r["steps_done"] = "stopped", steps_done
        r["curve"] = [p for p in r["curve"] if p["step"] <= steps_done]
    os.makedirs(os.path.join(out, cell), exist_ok=True)
    json.dump(r, open(os.path.join(out, cell, f"{pe}_seed{seed}.json"), "w"))
for s in range(3):  # PoPE learns at 100k, RoPE escapes early and ends low: the paper's Table 1
    make("repro", "pope", s, 60000, 0.95)
    make("repro", "rope", s, 30000 if s == 0 else None, 0.15)
    make("early", "pope", s, 38000 if s == 0 else 70000, 0.40 if s == 1 else 0.05)  # seed 0 escapes before 40k
    make("early", "rope", s, None, 0.05)
    make("slow", "pope", s, 40000 if s == 0 else 90000, 0.35 if s == 2 else 0.08)  # escape at exactly 40k: continues, moves at 100k
    make("slow", "rope", s, None, 0.05)
    make("popeonly", "pope", s, 20000 if s == 1 else None, 0.50)
    make("ropeplanned", "pope", s, 20000 if s == 1 else None, 0.50)  # its plan lists RoPE, not run yet
json.dump({"cells": [{"name": "ropeplanned", "pe": ["pope", "rope"], "seeds": [0, 1, 2]}]},
          open(os.path.join(out, "stage2.json"), "w"))
for s in range(2):  # 200,000-step schedules stopped at 80k: an escape at 60k is before their stop
    make("long", "pope", s, 60000 if s == 1 else None, 0.05, steps_done=80000, steps=200000)
    make("long_flat", "pope", s, None, 0.05, steps_done=80000, steps=200000)
for s in range(2):  # stopped short of the 40k stop: pending
    make("short", "pope", s, None, 0.05, steps_done=30000)
    make("short", "rope", s, None, 0.05, steps_done=40000)
PY
"$py" "$scr/screen_verdict.py" "$tmp/verdict" >"$tmp/out" 2>&1 || { echo "FAIL: screen_verdict.py on made-up cells"; cat "$tmp/out"; fails=$((fails+1)); }
for want in "| repro | 0 of 3 | moves: test 95.00 % >= 30.57 % | 1 of 3 | moves: escape before 40k (seed 0 at 30k) | yes | yes: PoPE 95.00 %, RoPE 15.00 % |" \
            "| early | 1 of 3 | moves: escape before 40k (seed 0 at 38k) | 0 of 3 | no move at 100k (best 5.00 % < 46.87 %) | yes | no: PoPE 16.67 %, RoPE 5.00 % |" \
            "| slow | 1 of 3 | moves: test 35.00 % >= 30.57 % | 0 of 3 | no move at 100k (best 5.00 % < 46.87 %) | yes | no: PoPE 17.00 %, RoPE 5.00 % |" \
            "| popeonly | 1 of 3 | moves: escape before 40k (seed 1 at 20k) | - | baseline's runs stand | yes | no: PoPE 50.00 %, RoPE 18.88 % |" \
            "| ropeplanned | 1 of 3 | moves: escape before 40k (seed 1 at 20k) | - | pending (not run yet) | yes | pending |" \
            "| short | 0 of 2 | pending (40k not reached) | 0 of 2 | no move, stopped at 40k | no | pending |" \
            "| long | 1 of 2 | moves: escape before 80k (seed 1 at 60k) | - | baseline's runs stand | yes | pending |" \
            "| long_flat | 0 of 2 | no move, stopped at 80k | - | baseline's runs stand | no | no (stopped at 80k) |"; do
  grep -qF "$want" "$tmp/out" || { echo "FAIL: screen_verdict.py lacks '$want'"; cat "$tmp/out"; fails=$((fails+1)); }
done
"$py" "$scr/screen_verdict.py" "$tmp/none" >"$tmp/out" 2>&1
[[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] || { echo "FAIL: screen_verdict.py took a missing folder"; cat "$tmp/out"; fails=$((fails+1)); }
# solve_counts.py: k of n at >= 50 % on a copy of the screen's committed stage 1 (the baseline's
# seeds 0-2 alone, whatever baseline seeds the screen has gained since), then with made-up seeds 3-5
# in that copy (PoPE solving two of three, RoPE none), whose counts and Fisher p it
# must add to the committed seeds 0-2; a missing folder is refused in one line.
mkdir -p "$tmp/solve"
cp -r "$scr/stage1" "$tmp/solve/"
check "solve_counts.py" "$py" "$scr/solve_counts.py" "$tmp/solve"
for want in "| recipe as written | pope | 0/1/2 | 100k | 0 of 3 | 4.73 / 10.57 / 9.02 | 8.11 ± 3.03 |" \
            "| loss_all | 3 of 3 | 3 of 3 | 1 | 1 |" "| recipe as written | 0 of 3 | 0 of 3 | 1 | 0.1 |"; do
  grep -qF "$want" "$tmp/out" || { echo "FAIL: solve_counts.py lacks '$want'"; cat "$tmp/out"; fails=$((fails+1)); }
done
"$py" - "$scr/../paper_100k" "$tmp/solve/baseline_seeds/paper" <<'PY'
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
for pe in ("pope", "rope"):
    for seed, acc in zip((3, 4, 5), (0.97, 0.60, 0.05) if pe == "pope" else (0.05, 0.30, 0.10)):
        r = json.load(open(os.path.join(src, f"{pe}_seed0.json")))
        r["config"]["train"]["seed"], r["final"]["test"]["acc"] = seed, acc
        json.dump(r, open(os.path.join(out, f"{pe}_seed{seed}.json"), "w"))
PY
check "solve_counts.py with seeds 3-5" "$py" "$scr/solve_counts.py" "$tmp/solve"
# Fisher by hand: 2 of 6 against 0 of 6, the tables as likely or less are 2 and 0 solved of 6 on either
# side: 2 C(6,2) / C(12,2) = 30/66 = 0.455; 2 of 6 against 3 of 3: (C(6,2) C(3,3) + C(6,5) C(3,0)) / C(9,5) = 21/126
for want in "| recipe as written | pope | 0/1/2/3/4/5 | 100k | 2 of 6 | 4.73 / 10.57 / 9.02 / 97.00 / 60.00 / 5.00 |" \
            "| recipe as written | 2 of 6 | 0 of 6 | 0.455 | 0.167 |"; do
  grep -qF "$want" "$tmp/out" || { echo "FAIL: solve_counts.py lacks '$want'"; cat "$tmp/out"; fails=$((fails+1)); }
done
"$py" "$scr/solve_counts.py" "$tmp/none" >"$tmp/out" 2>&1
[[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] || { echo "FAIL: solve_counts.py took a missing folder"; cat "$tmp/out"; fails=$((fails+1)); }
check "screen_overview.py" "$py" "$scr/screen_overview.py" --out "$tmp/overview.png"
[[ -s "$tmp/overview.png" ]] || { echo "FAIL: screen_overview.py wrote no figure"; fails=$((fails+1)); }
for bad in "$tmp/none" "--bogus"; do
  "$py" "$scr/screen_overview.py" "$bad" --out "$tmp/bad.png" >/dev/null 2>&1 &&
    { echo "FAIL: screen_overview.py accepted $bad"; fails=$((fails+1)); }
done
[[ ! -e "$tmp/bad.png" ]] || { echo "FAIL: screen_overview.py wrote a figure for bad input"; fails=$((fails+1)); }
# same_bits.py: a run stopped early against the whole run (equal), against a run of another seed
# (refused, 2), against a copy with one curve value or one step-log value changed (1).
sb=(train --preset quick --task indirect-indexing --steps 6 --warmup 1 --eval-every 2 --step-log 1 --n-val 16
    --n-test 16 --device cpu --pe pope)
mkdir -p "$tmp/sb"
"$bin" "${sb[@]}" --out "$tmp/sb/a.json" >/dev/null 2>&1
"$bin" "${sb[@]}" --stop-at 4 --out "$tmp/sb/b.json" >/dev/null 2>&1
"$bin" "${sb[@]}" --seed 1 --out "$tmp/sb/c.json" >/dev/null 2>&1
check "same_bits.py" "$py" -m tools.same_bits "$tmp/sb/a.json" "$tmp/sb/b.json"
grep -q "^same bits: 3 curve points and 4 step-log rows, to step 4$" "$tmp/out" ||
  { echo "FAIL: same_bits.py did not compare 3 points and 4 rows"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -m tools.same_bits "$tmp/sb/a.json" "$tmp/sb/c.json" >/dev/null 2>&1
[[ $? -eq 2 ]] || { echo "FAIL: same_bits.py compared runs of different seeds"; fails=$((fails+1)); }
"$py" -c "
import json, sys
r = json.load(open(sys.argv[1])); r['curve'][1]['val_loss'] += 1e-12; json.dump(r, open(sys.argv[2], 'w'))
r = json.load(open(sys.argv[1])); r['step_log']['file'] = 'e.steps.csv'; json.dump(r, open(sys.argv[3], 'w'))
rows = open(sys.argv[4]).read().split('\n'); rows[3] = rows[3].rsplit(',', 1)[0] + ',0.999'
open(sys.argv[5], 'w').write('\n'.join(rows))" "$tmp/sb/b.json" "$tmp/sb/d.json" "$tmp/sb/e.json" "$tmp/sb/b.steps.csv" "$tmp/sb/e.steps.csv"
cp "$tmp/sb/b.steps.csv" "$tmp/sb/d.steps.csv"
# A run stopped between evaluations (step 5; curve to 4): its last step-log row is compared too,
# and a change there is found.
"$bin" "${sb[@]}" --stop-at 5 --out "$tmp/sb/f.json" >/dev/null 2>&1
check "same_bits.py (stopped between evaluations)" "$py" -m tools.same_bits "$tmp/sb/a.json" "$tmp/sb/f.json"
grep -q "^same bits: 3 curve points to step 4 and 5 step-log rows to step 5$" "$tmp/out" ||
  { echo "FAIL: same_bits.py did not compare the step log past the last curve point"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -c "
import json, sys
r = json.load(open(sys.argv[1])); r['step_log']['file'] = 'g.steps.csv'; json.dump(r, open(sys.argv[2], 'w'))
rows = open(sys.argv[3]).read().rstrip('\n').split('\n'); rows[-1] = rows[-1].rsplit(',', 1)[0] + ',0.999'
open(sys.argv[4], 'w').write('\n'.join(rows) + '\n')" "$tmp/sb/f.json" "$tmp/sb/g.json" "$tmp/sb/f.steps.csv" "$tmp/sb/g.steps.csv"
for m in d e g; do
  "$py" -m tools.same_bits "$tmp/sb/a.json" "$tmp/sb/$m.json" >"$tmp/out" 2>&1
  [[ $? -eq 1 ]] && grep -q "^differ: " "$tmp/out" || { echo "FAIL: same_bits.py missed a changed value ($m)"; cat "$tmp/out"; fails=$((fails+1)); }
done
# --ignore: a run whose config differs only in a field that does not enter what is compared
# (model.max_len, as between a sweep's run and extrapolate's) is refused without it, equal with it.
"$py" -c "
import json, sys
r = json.load(open(sys.argv[1])); r['config']['model']['max_len'] += 90; r['step_log']['file'] = 'h.steps.csv'
json.dump(r, open(sys.argv[2], 'w'))" "$tmp/sb/b.json" "$tmp/sb/h.json"
cp "$tmp/sb/b.steps.csv" "$tmp/sb/h.steps.csv"
"$py" -m tools.same_bits "$tmp/sb/a.json" "$tmp/sb/h.json" >"$tmp/out" 2>&1
[[ $? -eq 2 ]] && grep -q "differ at config.model.max_len" "$tmp/out" || { echo "FAIL: same_bits.py compared runs of different max_len"; cat "$tmp/out"; fails=$((fails+1)); }
check "same_bits.py --ignore model.max_len" "$py" -m tools.same_bits "$tmp/sb/a.json" "$tmp/sb/h.json" --ignore model.max_len
grep -q "^same bits: 3 curve points and 4 step-log rows, to step 4$" "$tmp/out" || { echo "FAIL: same_bits.py --ignore"; cat "$tmp/out"; fails=$((fails+1)); }
# A run written before a section's options existed has no such section: ignoring every field of
# the other run's section compares them; ignoring only some of it does not.
"$py" -c "
import json, sys
r = json.load(open(sys.argv[1])); sec = r['config'].pop('input'); json.dump(r, open(sys.argv[2], 'w'))
print(' '.join('--ignore input.' + k for k in sec))" "$tmp/sb/a.json" "$tmp/sb/old.json" > "$tmp/sb/ign"
cp "$tmp/sb/a.steps.csv" "$tmp/sb/old.steps.csv"
[[ $(wc -w < "$tmp/sb/ign") -ge 4 ]] || { echo "FAIL: the run JSON's input section has under 2 fields"; fails=$((fails+1)); }
check "same_bits.py (a section the older run lacks)" "$py" -m tools.same_bits "$tmp/sb/old.json" "$tmp/sb/b.json" $(cat "$tmp/sb/ign")
grep -q "^same bits: 3 curve points and 4 step-log rows, to step 4$" "$tmp/out" || { echo "FAIL: same_bits.py with a section missing"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -m tools.same_bits "$tmp/sb/old.json" "$tmp/sb/b.json" $(cut -d' ' -f1-2 "$tmp/sb/ign") >"$tmp/out" 2>&1
[[ $? -eq 2 ]] && grep -q "differ at config.input" "$tmp/out" || { echo "FAIL: same_bits.py compared a half-ignored section"; cat "$tmp/out"; fails=$((fails+1)); }
# A run without a step log (written before they existed) against one with: refused, unless
# --curve-only, which compares the curves alone.
"$py" -c "
import json, sys
r = json.load(open(sys.argv[1])); r.pop('step_log'); json.dump(r, open(sys.argv[2], 'w'))" "$tmp/sb/a.json" "$tmp/sb/nolog.json"
"$py" -m tools.same_bits "$tmp/sb/nolog.json" "$tmp/sb/b.json" >"$tmp/out" 2>&1
[[ $? -eq 2 ]] && grep -q "only one of the runs has a step log" "$tmp/out" || { echo "FAIL: same_bits.py compared a run without a step log"; cat "$tmp/out"; fails=$((fails+1)); }
check "same_bits.py --curve-only" "$py" -m tools.same_bits "$tmp/sb/nolog.json" "$tmp/sb/b.json" --curve-only
grep -q "^same bits: 3 curve points and 0 step-log rows, to step 4$" "$tmp/out" || { echo "FAIL: same_bits.py --curve-only"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -m tools.same_bits "$tmp/sb/a.json" "$tmp/sb/d.json" --curve-only >"$tmp/out" 2>&1
[[ $? -eq 1 ]] || { echo "FAIL: same_bits.py --curve-only missed a changed curve value"; cat "$tmp/out"; fails=$((fails+1)); }
# eval_extrapolation.py: two seeds' checkpoints evaluated at 1x and 2x become one row each per
# label (RoPE with its scalings), with a figure; other buckets, or a plain eval, refused.
ee=(--preset quick --task k-back --min-len 4 --max-len 6 --max-k 2 --steps 3 --warmup 1 --eval-every 0 --n-train 100
    --n-val 10 --n-test 10 --device cpu --pe rope)
mkdir -p "$tmp/ee"
for s in 0 1; do
  "$bin" train "${ee[@]}" --seed $s --out "$tmp/ee/r$s.json" >/dev/null 2>&1
  "$bin" eval --checkpoint "$tmp/ee/r$s.json.ckpt" --factors 1,2 --rope-variants pi --out "$tmp/ee/e$s.json" >/dev/null 2>&1
done
"$bin" eval --checkpoint "$tmp/ee/r0.json.ckpt" --factors 1,3 --out "$tmp/ee/other.json" >/dev/null 2>&1
"$bin" eval --checkpoint "$tmp/ee/r0.json.ckpt" --out "$tmp/ee/plain.json" >/dev/null 2>&1
check "eval_extrapolation.py" "$py" -m tools.eval_extrapolation "$tmp/ee/e0.json" "$tmp/ee/e1.json" --figure "$tmp/ee/x.png"
[[ $(grep -cE "^\| rope(\+pi)? \| [01] \| [0-9.]+ \| [0-9.]+ \|$" "$tmp/out") -eq 4 && -s "$tmp/ee/x.png" ]] ||
  { echo "FAIL: eval_extrapolation.py did not give 4 rows (rope, rope+pi x 2 seeds) and a figure"; cat "$tmp/out"; fails=$((fails+1)); }
touch "$tmp/ee/afile"
"$py" -m tools.eval_extrapolation "$tmp/ee/e0.json" --figure "$tmp/ee/afile/x.png" >"$tmp/out" 2>&1
[[ $? -eq 2 ]] && grep -q "^eval_extrapolation.py: cannot write the figure" "$tmp/out" ||
  { echo "FAIL: eval_extrapolation.py did not refuse a figure under a file"; cat "$tmp/out"; fails=$((fails+1)); }
for bad in "$tmp/ee/other.json" "$tmp/ee/plain.json" "$tmp/ee/e0.json"; do
  "$py" -m tools.eval_extrapolation "$tmp/ee/e0.json" "$bad" >"$tmp/out" 2>&1
  [[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] || { echo "FAIL: eval_extrapolation.py took $bad beside e0.json"; cat "$tmp/out"; fails=$((fails+1)); }
done
# The screen's progress (cells done, committed runs) as the report and the top-level README state
# it: a count gone stale there fails here.
check "screen_progress.py --check" "$py" "$scr/screen_progress.py" --check
grep -q "^stage-1 cells done: [0-9]* of [0-9]*$" "$tmp/out" || { echo "FAIL: screen_progress.py printed no cell count"; fails=$((fails+1)); }
"$py" "$scr/screen_progress.py" --bogus >/dev/null 2>&1 && { echo "FAIL: screen_progress.py accepted --bogus"; fails=$((fails+1)); }
# A half whose runs stopped short of the 40,000-step stop is no half done until they reach it.
mkdir -p "$tmp/sp/stage1/c"
echo '{"cells": [{"name": "c", "pe": ["pope"], "seeds": [0, 1]}, {"name": "d", "pe": ["rope"], "seeds": [0, 1]}]}' > "$tmp/sp/screen.json"
echo '{"status": "partial", "steps_done": 40000}' > "$tmp/sp/stage1/c/pope_seed0.json"
echo '{"status": "partial", "steps_done": 39868}' > "$tmp/sp/stage1/c/pope_seed1.json"
sp_counts() { "$py" -c "import sys; sys.path.insert(0, sys.argv[1]); from screen_progress import progress
p = progress(sys.argv[2]); print(len(p['done']), len(p['short']), ','.join(p['todo']), p['runs'])" "$scr" "$tmp/sp"; }
[[ "$(sp_counts)" == "0 1 d 2" ]] || { echo "FAIL: screen_progress.py counted a run short of the stop: $(sp_counts)"; fails=$((fails+1)); }
echo '{"status": "complete", "steps_done": 100000}' > "$tmp/sp/stage1/c/pope_seed1.json"
[[ "$(sp_counts)" == "1 0 d 2" ]] || { echo "FAIL: screen_progress.py missed a cell done: $(sp_counts)"; fails=$((fails+1)); }
# The report's plateau numbers: every class and attention row, over the committed checkpoints.
check "plateau_summary.py" "$py" "$scr/plateau_summary.py"
for want in "^1. Plateau checkpoints inspected: [1-9]" "^| source, wrong sign | [0-9.]*-[0-9.]* |" "^| query to source | max " \
            "^2. Answer-only screen runs on the plateau at 40k: [1-9]" "^3. Closest to the 6 % line"; do
  grep -q "$want" "$tmp/out" || { echo "FAIL: plateau_summary.py printed no line matching '$want'"; fails=$((fails+1)); }
done
"$py" "$scr/plateau_summary.py" "$tmp/none" >/dev/null 2>&1
[[ $? -ne 0 ]] || { echo "FAIL: plateau_summary.py accepted a folder without inspect/"; fails=$((fails+1)); }
# choose_setup.py: the extrapolation setup sweep's rule on the committed runs (the choice the
# results README states), then on made-up runs: a tie broken by the parameter counts of the logs,
# a tie with no counts refused, no cell qualifying, a missing run.
cs=(-m tools.choose_setup)
check "choose_setup.py" "$py" "${cs[@]}"
grep -q "^chosen: d128_h8 " "$tmp/out" || { echo "FAIL: choose_setup.py did not choose d128_h8 from the committed runs"; cat "$tmp/out"; fails=$((fails+1)); }
mkdir -p "$tmp/cs/runs/x" "$tmp/cs/runs/y"
echo '{"cells": [{"name": "x", "pe": ["rope", "pope"], "seeds": [0, 1]}, {"name": "y", "pe": ["rope", "pope"], "seeds": [0, 1]}]}' > "$tmp/cs/plan.json"
cs_run() { echo "{\"status\": \"complete\", \"final\": {\"test\": {\"acc\": $2, \"n\": 1000}}}" > "$tmp/cs/runs/$1.json"; }
cs_run x/rope_seed0 0.95; cs_run x/rope_seed1 0.90; cs_run x/pope_seed0 0.2; cs_run x/pope_seed1 0.899
cs_run y/rope_seed0 0.1; cs_run y/rope_seed1 0.1; cs_run y/pope_seed0 0.99; cs_run y/pope_seed1 1.0
printf 'popebench: x/rope/0: 500 parameters (1 layers x 8, 2 heads) on cpu\npopebench: y/pope/0: 400 parameters (1 layers x 8, 2 heads) on cpu\n' > "$tmp/cs/runs/sweep.log"
check "choose_setup.py (a tie)" "$py" "${cs[@]}" --plan "$tmp/cs/plan.json" --runs "$tmp/cs/runs"
grep -q "^chosen: y (the most learned runs (2), then the fewest parameters (400))$" "$tmp/out" ||
  { echo "FAIL: choose_setup.py broke the tie wrongly"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" "${cs[@]}" --plan "$tmp/cs/plan.json" --runs "$tmp/cs/runs" --logs >"$tmp/out" 2>&1
[[ $? -eq 2 ]] && grep -q "needs the parameter counts" "$tmp/out" || { echo "FAIL: choose_setup.py broke a tie with no counts"; cat "$tmp/out"; fails=$((fails+1)); }
cs_run x/rope_seed1 0.5; cs_run y/pope_seed1 0.5
check "choose_setup.py (none qualifies)" "$py" "${cs[@]}" --plan "$tmp/cs/plan.json" --runs "$tmp/cs/runs"
grep -q "^no cell qualifies" "$tmp/out" || { echo "FAIL: choose_setup.py chose a cell with one learned run a PE"; cat "$tmp/out"; fails=$((fails+1)); }
rm "$tmp/cs/runs/y/pope_seed1.json"
"$py" "${cs[@]}" --plan "$tmp/cs/plan.json" --runs "$tmp/cs/runs" >"$tmp/out" 2>&1
[[ $? -eq 1 ]] && grep -q "y/pope_seed1" "$tmp/out" || { echo "FAIL: choose_setup.py chose with a run missing"; cat "$tmp/out"; fails=$((fails+1)); }
# The TF32 attention error model (numpy): its worst errors over 8 draws per case stay under half
# the limits of tests/test_cuda_attention.cpp (read from that file, as are the floors the model
# must measure with), which are ~3x its worst over 30 draws.
check "tf32_attention_error.py" "$py" "$src/tests/tf32_attention_error.py" 8
"$py" - "$tmp/out" "$src/tests/test_cuda_attention.cpp" "$src/tests/tf32_attention_error.py" <<'PY' || { echo "FAIL: the TF32 attention error model is not within half the GPU tests' limits"; cat "$tmp/out"; fails=$((fails+1)); }
import re, sys
worst = {k: float(v) for k, v in (line.split(": ") for line in open(sys.argv[1]).read().split("\n") if ": " in line)}
c = dict((k, float(v)) for k, v in re.findall(r"(kTf32Attn\w+) = ([0-9.e+-]+)", open(sys.argv[2]).read()))
model = open(sys.argv[3]).read()
floors = re.search(r"T1_FLOOR, TEMP_FLOOR = (\S+), (\S+)", model)
assert floors and (float(floors[1]), float(floors[2])) == (c["kTf32AttnT1Floor"], c["kTf32AttnTempFloor"]), (floors, c)
limits = {"out": c["kTf32AttnTol"], "dqkv": c["kTf32AttnTol"], "ddelta": c["kTf32AttnDeltaTol"],
          "ddelta_T1": c["kTf32AttnDeltaTol"], "dtemp": c["kTf32AttnTempTol"], "dtemp_T1": c["kTf32AttnTempTol"]}
assert set(worst) == set(limits), worst
bad = [k for k in limits if worst[k] >= limits[k] / 2]
print("over half the limit:", bad) if bad else None
sys.exit(1 if bad else 0)
PY
# readme_tables.py: every table the READMEs mark as generated equals what its command prints from
# the committed files now; a stale copy is found (exit 1) and rewritten by --write; a marker with
# no table, a failing command or a header the command does not print is exit 2 and one line.
rt=(-m tools.readme_tables)
check "readme_tables.py on the repository" "$py" "${rt[@]}"
(( $(grep -rl --include='*.md' '^<!-- generated table: ' "$src" | wc -l) >= 4 )) ||
  { echo "FAIL: fewer than 4 files mark generated tables"; fails=$((fails+1)); }
mk() { printf '%s\n' "intro" "<!-- generated table: $1 -->" "${@:2}" "" "outro" > "$tmp/t.md"; }
table_cmd="printf '%s\n' 'x' '| a | b |' '| --- | --- |' '| 1 | 2 |' '' '| c |' '| --- |' '| 3 |'"
mk "$table_cmd" '| a | b |' '| --- | --- |' '| 1 | 9 |'
"$py" "${rt[@]}" "$tmp/t.md" >"$tmp/out" 2>&1
[[ $? -eq 1 ]] && grep -q "t.md:3: stale: row 2: has '| 1 | 9 |'" "$tmp/out" ||
  { echo "FAIL: readme_tables.py missed a stale cell"; cat "$tmp/out"; fails=$((fails+1)); }
check "readme_tables.py --write" "$py" "${rt[@]}" --write "$tmp/t.md"
[[ "$(sed -n 5p "$tmp/t.md")" == "| 1 | 2 |" && "$(tail -1 "$tmp/t.md")" == "outro" && $(wc -l < "$tmp/t.md") -eq 7 ]] ||
  { echo "FAIL: readme_tables.py --write did not rewrite the table alone"; cat "$tmp/t.md"; fails=$((fails+1)); }
check "readme_tables.py after --write" "$py" "${rt[@]}" "$tmp/t.md"
mk "$table_cmd" '| c |' '| --- |'
"$py" "${rt[@]}" "$tmp/t.md" >"$tmp/out" 2>&1
[[ $? -eq 1 ]] && grep -q "2 rows, the command prints 3" "$tmp/out" ||
  { echo "FAIL: readme_tables.py missed a missing row"; cat "$tmp/out"; fails=$((fails+1)); }
for bad in "no table:$table_cmd:" "exit 3:exit 3:| a | b |" "header:$table_cmd:| z |"; do
  IFS=: read -r what cmd row <<< "$bad"
  if [[ -n "$row" ]]; then mk "$cmd" "$row"; else mk "$cmd"; sed -i '3d' "$tmp/t.md"; fi
  "$py" "${rt[@]}" "$tmp/t.md" >"$tmp/out" 2>&1
  [[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] && grep -q "^readme_tables.py: .*t.md:2: " "$tmp/out" ||
    { echo "FAIL: readme_tables.py did not refuse a marker ($what) with exit 2 and one line"; cat "$tmp/out"; fails=$((fails+1)); }
done
"$py" "${rt[@]}" "$tmp/none.md" >/dev/null 2>&1; [[ $? -eq 2 ]] || { echo "FAIL: readme_tables.py accepted a missing file"; fails=$((fails+1)); }
# summary_table.py on the committed Table 1 summary, and on a file that is no summary.
check "summary_table.py" "$py" -m tools.summary_table "$src/results/indirect_indexing/paper_100k/summary.json"
grep -q "^| PoPE | 3 | 8.11 ± 3.03 | 4.73 / 10.57 / 9.02 | 94.82 ± 2.91 |$" "$tmp/out" ||
  { echo "FAIL: summary_table.py's PoPE row"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -m tools.summary_table "$src/results/indirect_indexing/paper_100k/pope_seed0.json" >"$tmp/out" 2>&1
[[ $? -eq 2 ]] && grep -q "is not a popebench.summary JSON" "$tmp/out" || { echo "FAIL: summary_table.py read a run JSON as a summary"; fails=$((fails+1)); }
# extrapolation_table.py on the merged extrapolate folder: the buckets asked for, rows in the order
# asked; a factor without a bucket, an unknown label and a run JSON are refused with exit 2.
check "extrapolation_table.py" "$py" -m tools.extrapolation_table "$tmp/m" --factors 1,2 --labels pope,rope
[[ "$(sed -n 1p "$tmp/out")" == "| PE | 1x (4-6) | 2x (7-12) |" && "$(sed -n 3p "$tmp/out" | cut -d' ' -f2)" == pope &&
   "$(sed -n 4p "$tmp/out" | cut -d' ' -f2)" == rope && $(wc -l < "$tmp/out") -eq 4 ]] ||
  { echo "FAIL: extrapolation_table.py's table"; cat "$tmp/out"; fails=$((fails+1)); }
check "extrapolation_table.py --per-seed" "$py" -m tools.extrapolation_table "$tmp/m" --factors 1,2 --labels pope --per-seed
[[ "$(sed -n 1p "$tmp/out")" == "| PE | seed | 1x (4-6) | 2x (7-12) |" && "$(sed -n '3,5p' "$tmp/out" | cut -d' ' -f2,4 | tr '\n' ' ')" == "pope 0 pope 1 pope 2 " ]] ||
  { echo "FAIL: extrapolation_table.py --per-seed did not give the merged folder's three seeds in order"; cat "$tmp/out"; fails=$((fails+1)); }
for bad in "--factors 1,3" "--labels pope,alibi" "--factors 1,x"; do
  "$py" -m tools.extrapolation_table "$tmp/m" $bad >"$tmp/out" 2>&1
  [[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] || { echo "FAIL: extrapolation_table.py accepted $bad"; cat "$tmp/out"; fails=$((fails+1)); }
done
# A file shaped almost right: refused whole, nothing printed (no half table).
echo '{"schema": "popebench.extrapolation", "table": [{"label": "x"}], "buckets": [{"factor": 1, "min_len": 1, "max_len": 2}]}' > "$tmp/bad_ex.json"
echo '{"schema": "popebench.summary", "rows": [{"pe": "rope", "n": 1, "mean": 1, "test_acc": [1]}, {"pe": "x"}]}' > "$tmp/bad_sum.json"
for bad in "extrapolation_table.py $tmp/bad_ex.json --factors 1" "summary_table.py $tmp/bad_sum.json"; do
  read -r -a argv <<< "$bad"
  "$py" "$src/results/${argv[0]}" "${argv[@]:1}" >"$tmp/stdout" 2>"$tmp/stderr"
  [[ $? -eq 2 && ! -s "$tmp/stdout" && $(wc -l < "$tmp/stderr") -eq 1 ]] ||
    { echo "FAIL: ${argv[0]} on a malformed file: not exit 2 with one line and no table"; cat "$tmp/stdout" "$tmp/stderr"; fails=$((fails+1)); }
done
"$py" -m tools.extrapolation_table "$tmp/a/runs/pope_seed0.json" >/dev/null 2>&1
[[ $? -eq 2 ]] || { echo "FAIL: extrapolation_table.py read a run JSON"; fails=$((fails+1)); }
# shift_information.py: knowing the source's position leaves the shift as uncertain as the answer
# is to a model that found the source and ignores the shift (plateau_levels.py's level, derived
# another way): H(shift | L, p) is that level's loss, for every pair draw; bad options refused.
si="$src/results/indirect_indexing/screen/shift_information.py"
check "shift_information.py" "$py" "$si"
[[ $(grep -c '^| ' "$tmp/out") -eq 7 ]] || { echo "FAIL: shift_information.py's table"; cat "$tmp/out"; fails=$((fails+1)); }
check "shift_information.py against plateau_levels.py" "$py" - "$src/results/indirect_indexing/screen" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])  # the screen's folder, for shift_information (tools from the cwd)
from tools.plateau_levels import plateau_levels
from shift_information import shift_information
for draw in ("joint", "shift-first", "source-first"):
    for a in ((20, 40, 15), (5, 8, 2)):
        v = shift_information(*a, draw)
        level = plateau_levels(*a, draw)["source found, shift ignored"][0]
        assert abs(v["H(shift | L, p)"] - level) < 1e-12, (draw, a, v, level)
        assert 0 < v["I(sign; p | L)"] <= v["I(shift; p | L)"] <= v["H(shift | L)"], (draw, a, v)
PY
"$py" "$si" --min-len 5 >/dev/null 2>&1; [[ $? -eq 2 ]] || { echo "FAIL: shift_information.py took --min-len alone"; fails=$((fails+1)); }
"$py" "$si" --min-len 5 --max-len 8 --max-shift 5 >/dev/null 2>&1; [[ $? -eq 2 ]] || { echo "FAIL: shift_information.py took a shift as long as a string"; fails=$((fails+1)); }
# lookup_heads.py on the committed inspects draws its figure; a folder with none and a file whose
# name does not say its PE are refused with exit 2 and no figure.
check "lookup_heads.py" "$py" "$scr/lookup_heads.py" "$scr/inspect" --out "$tmp/lookup.png"
[[ -s "$tmp/lookup.png" ]] || { echo "FAIL: lookup_heads.py wrote no figure"; fails=$((fails+1)); }
mkdir -p "$tmp/noinspect" "$tmp/badname"
cp "$scr/inspect/base_100/rope_seed0.inspect.json.gz" "$tmp/badname/seed0.inspect.json.gz"
"$py" "$scr/lookup_heads.py" "$scr/inspect" --out "$tmp/nofolder/lookup.png" >"$tmp/out" 2>&1
[[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] || { echo "FAIL: lookup_heads.py took an output folder that does not exist"; cat "$tmp/out"; fails=$((fails+1)); }
for bad in "$tmp/noinspect" "$tmp/badname"; do
  "$py" "$scr/lookup_heads.py" "$bad" --out "$tmp/bad_lookup.png" >"$tmp/out" 2>&1
  [[ $? -eq 2 && ! -e "$tmp/bad_lookup.png" ]] || { echo "FAIL: lookup_heads.py accepted $bad"; cat "$tmp/out"; fails=$((fails+1)); }
done
# tools/batch_table.py on the committed H100 benchmark: two popebench files (one cut by its
# limit) and PyTorch's make one curve, with the targets' shortfall computed from the files; files
# of two kinds of GPU and a file of another kind are refused.
rb="$src/results/bench"
check "batch_table.py" "$py" -m tools.batch_table "$rb/h100_popebench_f2410b0_batched_1_8.json" \
  "$rb/h100_popebench_66f16b9_batched_16_32_cut.json" --torch "$rb/h100_torch_f2410b0_batched_8.json"
for want in "| popebench pope, batch heuristic | 243.0 | 319.6 | 329.2 |" "PoPE at R = 8: 319.6 run-steps/s against the target 1,000 (3.13x short)" \
            "pope at R = 8: 1.06x PyTorch's better way (300.4)" "cut by a limit: $rb/h100_popebench_66f16b9_batched_16_32_cut.json"; do
  grep -qF "$want" "$tmp/out" || { echo "FAIL: batch_table.py lacks '$want'"; cat "$tmp/out"; fails=$((fails+1)); }
done
"$py" -m tools.batch_table "$rb/h100_popebench_f2410b0_batched_1_8.json" "$rb/h200_popebench_04dd0b9_batch_pinned_4_8.json" >"$tmp/out" 2>&1
[[ $? -eq 2 ]] && grep -q "more than one kind of GPU" "$tmp/out" || { echo "FAIL: batch_table.py mixed GPUs"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -m tools.batch_table "$rb/h100_torch_f2410b0_batched_8.json" >"$tmp/out" 2>&1
[[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] || { echo "FAIL: batch_table.py took a PyTorch file as popebench's"; cat "$tmp/out"; fails=$((fails+1)); }
# Every results script that reads popebench JSON (tools/json_input.py): a file that is not
# JSON, and one that is JSON but not an object, end it with one line and exit 2, never a
# traceback, and no figure is written; an object of no popebench kind ({}) ends it with one line
# and a non-zero exit (plot.py's errors exit 1, the others' 2).
printf '{"schema": "popebench.run", "curve": [' > "$tmp/cut.json"  # a file cut off mid-write
printf '[1, 2]\n' > "$tmp/list.json"
printf '{}\n' > "$tmp/obj.json"
for bad in cut list obj; do
  b="$tmp/$bad.json" d="$tmp/bad_$bad"
  mkdir -p "$d/cell"
  cp "$b" "$d/rope_seed0.json"; cp "$b" "$d/rope_seed0.inspect.json"; cp "$b" "$d/cell/rope_seed0.json"
  cases=("tools/plot.py $d" "tools/summary_table.py $b" "tools/plot_inspect.py $b" "tools/same_bits.py $b $b"
         "tools/eval_extrapolation.py $b --figure $tmp/bad.png" "tools/extrapolation_table.py $b"
         "tools/compare_seeds.py $d rope pope" "results/indirect_indexing/screen/inspect_table.py $b"
         "results/indirect_indexing/screen/lookup_heads.py $d --out $tmp/bad.png"
         "results/indirect_indexing/screen/screen_table.py $d" "results/indirect_indexing/screen/screen_verdict.py $d"
         "results/indirect_indexing/screen/solve_counts.py $d"
         "tools/batch_table.py $b"
         "tools/choose_setup.py --plan $b --runs $d")
  for c in "${cases[@]}"; do
    read -ra argv <<< "$c"
    "$py" $(script_argv "${argv[0]}") "${argv[@]:1}" >"$tmp/out" 2>&1
    rc=$?
    if [[ $rc -eq 0 || ($bad != obj && $rc -ne 2) || $(wc -l < "$tmp/out") -ne 1 ]] || grep -q Traceback "$tmp/out"; then
      echo "FAIL: ${argv[0]} on a $bad JSON: exit $rc, not one line"; cat "$tmp/out"; fails=$((fails+1))
    fi
  done
  [[ ! -e "$d/accuracy.png" && ! -e "$d/curves.png" && ! -e "$tmp/bad.png" ]] ||
    { echo "FAIL: a figure was written from a $bad JSON"; fails=$((fails+1)); }
done
# The committed inspects are gzip-compressed: one cut short, and a .gz that is not gzip, end the
# readers with one line and exit 2 as well.
head -c 5000 "$scr/inspect/base_100/rope_seed0.inspect.json.gz" > "$tmp/cut.inspect.json.gz"
cp "$tmp/list.json" "$tmp/plain.inspect.json.gz"
for b in "$tmp/cut.inspect.json.gz" "$tmp/plain.inspect.json.gz"; do
  for c in "tools/plot_inspect.py" "results/indirect_indexing/screen/inspect_table.py" "results/indirect_indexing/screen/same_inspect.py $b"; do
    read -ra argv <<< "$c"
    "$py" $(script_argv "${argv[0]}") "${argv[@]:1}" "$b" >"$tmp/out" 2>&1
    [[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] && ! grep -q Traceback "$tmp/out" ||
      { echo "FAIL: ${argv[0]} on $(basename "$b"): not one line and exit 2"; cat "$tmp/out"; fails=$((fails+1)); }
  done
done
# same_inspect.py on a committed inspect: new provenance and a new result section are the same
# measurement (exit 0); a changed number (1) or a lost key (1) are not; an unreadable file exits 2.
si=$src/results/indirect_indexing/screen/same_inspect.py
ref=$src/results/indirect_indexing/screen/inspect/depth_4/along/pope_seed0.step20000.inspect.json.gz
mkdir -p "$tmp/si"
"$py" -c "
import gzip, json, sys
r = json.load(gzip.open(sys.argv[1], 'rt'))
r['environment']['date'] = 'later'; r['checkpoint'] = '/elsewhere'; r['result']['new_section'] = {'x': 1}
json.dump(r, open(sys.argv[2] + '/same.json', 'w'))
d = json.loads(json.dumps(r)); d['result'][next(iter(d['result']))] = 'changed'; json.dump(d, open(sys.argv[2] + '/number.json', 'w'))
d = json.loads(json.dumps(r)); d.pop('split'); json.dump(d, open(sys.argv[2] + '/lost.json', 'w'))" "$ref" "$tmp/si"
check "same_inspect.py (provenance and a new section)" "$py" "$si" "$ref" "$tmp/si/same.json"
grep -q "^same measurement; the delivered one adds new_section$" "$tmp/out" || { echo "FAIL: same_inspect.py"; cat "$tmp/out"; fails=$((fails+1)); }
for m in number lost; do
  "$py" "$si" "$ref" "$tmp/si/$m.json" >"$tmp/out" 2>&1
  [[ $? -eq 1 ]] && grep -q "^differs: " "$tmp/out" || { echo "FAIL: same_inspect.py missed a $m difference"; cat "$tmp/out"; fails=$((fails+1)); }
done
# Across binaries (another git_commit) a float may differ by fp32 rounding (1e-6 at most, scaled by
# max(1, |x|)); within one binary, or by more, or in an int, it is another measurement.
"$py" -c "
import gzip, json, sys
r = json.load(gzip.open(sys.argv[1], 'rt'))
def leaf(x, kind):  # the first leaf of this kind in result, as (container, key)
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
    for k, v in items:
        if type(v) is kind: return x, k
        found = leaf(v, kind)
        if found: return found
def variant(name, commit, kind, nudge):
    d = json.loads(json.dumps(r))
    if commit: d['environment']['git_commit'] = 'f' * 40
    c, k = leaf(d['result'], kind); c[k] += nudge
    json.dump(d, open(sys.argv[2] + '/' + name + '.json', 'w'))
variant('rounding_same_binary', False, float, 5e-8)
variant('rounding', True, float, 5e-8)
variant('far', True, float, 1e-4)
variant('int', True, int, 1)" "$ref" "$tmp/si"
check "same_inspect.py (fp32 rounding across binaries)" "$py" "$si" "$ref" "$tmp/si/rounding.json"
grep -q "^same measurement up to fp32 rounding (differences in 1 numbers, at most 5e-08" "$tmp/out" || { echo "FAIL: same_inspect.py rounding"; cat "$tmp/out"; fails=$((fails+1)); }
for m in rounding_same_binary far int; do
  "$py" "$si" "$ref" "$tmp/si/$m.json" >"$tmp/out" 2>&1
  [[ $? -eq 1 ]] && grep -q "^differs: " "$tmp/out" || { echo "FAIL: same_inspect.py took $m for the same measurement"; cat "$tmp/out"; fails=$((fails+1)); }
done
"$py" "$si" "$ref" "$tmp/si/none.json" >"$tmp/out" 2>&1
[[ $? -eq 2 ]] || { echo "FAIL: same_inspect.py on a missing file"; cat "$tmp/out"; fails=$((fails+1)); }
# attention_table.py on committed bench files: a row a (T, D, PE), PyTorch's column filled; files
# of two kinds of GPU, a file of another schema, are refused with one line and exit 2.
bd=$src/results/bench
check "attention_table.py" "$py" -m tools.attention_table "$bd/h100_popebench_9c39726_attention.json" \
  "$bd/h100_torch_attention_9c39726.json" --before "$bd/h100_popebench_9f7ac2d_attention.json" --head-dims 64
[[ $(grep -c '^| [0-9]* | 64 | ' "$tmp/out") -eq 12 ]] && grep -q '^| 4096 | 64 | pope | [0-9.]* / ' "$tmp/out" ||
  { echo "FAIL: attention_table.py rows"; cat "$tmp/out"; fails=$((fails+1)); }
# --before-variant: the older binary's column is the variant named (038's backward against 037's).
check "attention_table.py --before-variant" "$py" -m tools.attention_table "$bd/h100_popebench_3a9d50b_attention.json" \
  "$bd/h100_torch_attention_3a9d50b.json" --before "$bd/h100_popebench_9c39726_attention.json" \
  --before-variant bf16_flash_wgmma --lengths 4096 --head-dims 64
grep -q '^| T | D | PE | 9c39726 wgmma fwd / bwd / sum |' "$tmp/out" && grep -q '^| 4096 | 64 | none | 0.568 / 1.802 / 2.369 |' "$tmp/out" ||
  { echo "FAIL: attention_table.py --before-variant"; cat "$tmp/out"; fails=$((fails+1)); }
"$py" -m tools.attention_table "$bd/h100_popebench_3a9d50b_attention.json" "$bd/h100_torch_attention_3a9d50b.json" \
  --before "$bd/h100_popebench_9c39726_attention.json" --before-variant nonsense >"$tmp/out" 2>&1
[[ $? -eq 2 ]] || { echo "FAIL: attention_table.py took --before-variant nonsense"; cat "$tmp/out"; fails=$((fails+1)); }
# A PyTorch row that could not run (torch_attention.py records an out-of-memory shape) says so in
# its cell, and the ratio is left out.
"$py" - "$bd/h100_torch_attention_3a9d50b.json" "$tmp/torch_oom.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    if (r["pe"], r["T"], r["D"], r["dtype"]) == ("pope", 16384, 64, "bfloat16"):
        for k in ("fwd_ms", "fwd_bwd_ms", "fwd_tflops", "fwd_bwd_tflops"):
            del r[k]
        r["error"] = "out of memory"
json.dump(d, open(sys.argv[2], "w"))
PY
check "attention_table.py with a row out of memory" "$py" -m tools.attention_table "$bd/h100_popebench_3a9d50b_attention.json" \
  "$tmp/torch_oom.json" --lengths 16384 --head-dims 64
grep -q '^| 16384 | 64 | pope | .* | out of memory | - |$' "$tmp/out" && grep -q '^| 16384 | 64 | rope | .* | 5.955 | 1.16x |$' "$tmp/out" ||
  { echo "FAIL: attention_table.py with a row out of memory"; cat "$tmp/out"; fails=$((fails+1)); }
# What --gpu-attention bf16 runs (bench's bf16_flash_dispatch, absent from files before it): its own
# column and its own ratio to PyTorch, beside the fastest family's; the values set here by hand.
"$py" - "$bd/h100_popebench_720db6f_attention.json" "$tmp/dispatch.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["attention"]:
    r["bf16_flash_dispatch"] = {"fwd_ms": 1.0, "bwd_ms": 1.92}
json.dump(d, open(sys.argv[2], "w"))
PY
check "attention_table.py with the dispatched path" "$py" -m tools.attention_table "$tmp/dispatch.json" \
  "$bd/h100_torch_attention_720db6f.json" --lengths 4096 --head-dims 64
grep -q '^| T | D | PE | .* | 720db6f --gpu-attention bf16 fwd / bwd / sum | PyTorch fwd + bwd | fastest family / PyTorch | --gpu-attention bf16 / PyTorch |$' "$tmp/out" &&
  grep -q '^| 4096 | 64 | none | .* | 1.000 / 1.920 / 2.920 | 1.460 | 1.35x | 2.00x |$' "$tmp/out" ||
  { echo "FAIL: attention_table.py with the dispatched path"; cat "$tmp/out"; fails=$((fails+1)); }
for bad in "$bd/h200_popebench_e1116fc_attention_fp32.json $bd/h100_torch_attention_9c39726.json" \
           "$bd/h100_torch_attention_9c39726.json $bd/h100_torch_attention_9c39726.json"; do
  "$py" -m tools.attention_table $bad >"$tmp/out" 2>&1
  [[ $? -eq 2 && $(wc -l < "$tmp/out") -eq 1 ]] || { echo "FAIL: attention_table.py on $bad"; cat "$tmp/out"; fails=$((fails+1)); }
done
# --help answers before matplotlib is imported
for s in plot plot_inspect; do
  "$py" -m tools.$s --help 2>/dev/null | grep -q "python3 -m tools.$s" || { echo "FAIL: $s --help"; fails=$((fails+1)); }
done
echo "python tools: $fails failed"
[[ $fails -eq 0 ]]
