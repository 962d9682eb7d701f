#!/usr/bin/env bash
# The plan's timing run (PLAN.md, "Model size"): 200 steps of one RoPE and one PoPE run of each
# candidate size on the text task, one run at a time on the GPU, then the size the plan's rule
# picks: the largest whose twelve base runs of 10,000 steps fit 40 minutes, counted as twelve
# runs one after another at the measured rate (no credit for training runs at once, so the rule
# errs towards the smaller model).
#   bash results/lm_extrapolation/timing.sh OUT_DIR [CORPUS]
# CORPUS: the text corpus folder (default Debian's linux-doc-6.1; a machine without it gets a copy
# carried in, whose manifest digest must equal the package's, fnv1a64:8efa2109e5fcbfb8).
# POPEBENCH names the binary (default .devbin/popebench); STEPS and DEVICE (default 200, cuda)
# exist for a smoke test of this script on a CPU. Writes OUT_DIR/SIZE_PE.json (the run
# JSONs, their timing), OUT_DIR/timing.json (the rates and the choice) and prints the choice.
set -u
(( $# >= 1 && $# <= 2 )) || { echo "usage: timing.sh OUT_DIR [CORPUS]" >&2; exit 2; }
out=$1 corpus=${2:-/usr/share/doc/linux-doc-6.1/Documentation}
bin=${POPEBENCH:-.devbin/popebench}
[[ -x "$bin" ]] || { echo "timing.sh: no binary $bin (POPEBENCH)" >&2; exit 2; }
[[ -d "$corpus" ]] || { echo "timing.sh: no corpus folder $corpus" >&2; exit 2; }
mkdir -p "$out" || exit 2
common=(--task text --corpus "$corpus" --min-len 256 --max-len 256 --loss all --n-train 20000 --n-val 100000
        --n-test 100000 --eval-batch 32 --steps "${STEPS:-200}" --warmup 1 --lr 1e-3 --lr-min 1e-4 --eval-every 0 --checkpoint-every 0
        --device "${DEVICE:-cuda}")
for size in "8 512" "6 384" "4 256"; do
  read -r layers width <<< "$size"
  for pe in rope pope; do
    extra=()
    [[ $pe == pope ]] && extra=(--delta-init zero)
    "$bin" train "${common[@]}" --layers "$layers" --d-model "$width" --heads $((width / 64)) --pe "$pe" "${extra[@]}" \
      --out "$out/l${layers}_d${width}_$pe.json" > "$out/l${layers}_d${width}_$pe.log" 2>&1 ||
      { echo "timing.sh: the $pe run of $layers x $width failed ($out/l${layers}_d${width}_$pe.log)" >&2; exit 1; }
  done
done
/usr/bin/python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
BUDGET_S, RUNS, STEPS = 40 * 60, 12, 10000   # PLAN.md: twelve base runs of 10,000 steps in 40 minutes
rows, choice = [], None
for layers, width in ((8, 512), (6, 384), (4, 256)):
    rates = {}
    for pe in ("rope", "pope"):
        r = json.load(open(os.path.join(out, f"l{layers}_d{width}_{pe}.json")))
        rates[pe] = r["timing"]["steps_per_s"]
    # A quarter of the runs are PoPE's; RoPE's, ALiBi's and NoPE's nine are counted at RoPE's rate.
    seconds = RUNS * STEPS * (0.75 / rates["rope"] + 0.25 / rates["pope"])
    fits = seconds <= BUDGET_S
    rows.append({"layers": layers, "d_model": width, "steps_per_s": rates, "twelve_runs_s": round(seconds), "fits": fits})
    if fits and choice is None:
        choice = {"layers": layers, "d_model": width}
json.dump({"budget_s": BUDGET_S, "sizes": rows, "choice": choice}, open(os.path.join(out, "timing.json"), "w"), indent=1)
for r in rows:
    print(f"{r['layers']} x {r['d_model']}: RoPE {r['steps_per_s']['rope']:.1f}, PoPE {r['steps_per_s']['pope']:.1f} steps/s; "
          f"twelve runs {r['twelve_runs_s'] / 60:.1f} min{'' if r['fits'] else ' (over 40)'}")
print("choice:", choice or "none fits: the plan needs a change")
PY
