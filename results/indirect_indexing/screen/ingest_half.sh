#!/usr/bin/env bash
# Puts what one device command of the screen delivered (run_cells.sh's or cells_across_calls.sh's
# OUT_DIR: screen_runs.tgz, inspect.tgz, screen.log, session.txt) where the screen keeps it, so that
# every half lands the same way:
#   screen/CELL/RUN.json, RUN.steps.csv  ->  STAGE/CELL/        (a run of 100,000 steps replaces
#                                                                the same run's 40,000-step JSON
#                                                                once it repeats it bit for bit:
#                                                                git keeps the one it replaced)
#   inspect/CELL/...X.inspect.json      ->  inspect/CELL/...X.inspect.json.gz (gzip -n: the same
#                                                                bytes, a quarter of the size; never
#                                                                overwritten: an inspect already
#                                                                there that measured otherwise is
#                                                                an error, nothing is copied;
#                                                                same_inspect.py)
#   screen.log                           ->  STAGE/sweep_LOG_NAME.log (must not exist yet)
# then draws each touched cell's curves (tools/plot.py), the overview and the lookup-heads figure,
# and prints the checks that say what else is stale: readme_tables.py (the README's tables;
# --write updates them) and screen_progress.py --check (the counts in the text, which are prose
# and written by hand).
#
#   bash results/indirect_indexing/screen/ingest_half.sh FILES_DIR STAGE LOG_NAME
#
# STAGE: stage1 or stage2, table1_retrain (the Table 1 runs trained again with kept checkpoints
# for inspect, PLAN=table1_retrain.json: no screen cell, so the screen's counts leave them out) or
# baseline_seeds (the recipe as written, seeds 3-5, PLAN=baseline_seeds.json: no screen cell;
# solve_counts.py adds them to the baseline).
# LOG_NAME: letters, digits, '.', '_', '-' (e.g. batch256_rope).
# SCREEN_DIR: the screen's folder (default: this script's). Exit 0 when everything was copied (the
# checks' findings are printed, not failed on), 2 on bad input or a conflict, before anything is
# copied.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
screen=${SCREEN_DIR:-$here}
src=$(cd "$here/../../.." && pwd)
die() { echo "ingest_half.sh: $*" >&2; exit 2; }
(( $# == 3 )) || die "usage: ingest_half.sh FILES_DIR STAGE LOG_NAME"
files=$1 stage=$2 log_name=$3
[[ "$stage" == stage1 || "$stage" == stage2 || "$stage" == table1_retrain || "$stage" == baseline_seeds ]] ||
  die "STAGE must be stage1, stage2, table1_retrain or baseline_seeds (got '$stage')"
[[ "$log_name" =~ ^[A-Za-z0-9._-]+$ ]] || die "LOG_NAME must be letters, digits, '.', '_' or '-' (got '$log_name')"
for f in screen_runs.tgz inspect.tgz screen.log; do
  [[ -s "$files/$f" ]] || die "$files has no $f (run_cells.sh's OUT_DIR holds screen_runs.tgz, inspect.tgz, screen.log)"
done
log_dest="$screen/$stage/sweep_$log_name.log"
[[ ! -e "$log_dest" ]] || die "$log_dest exists already: choose another LOG_NAME"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$files/screen_runs.tgz" -C "$tmp" 2>/dev/null || die "$files/screen_runs.tgz is not a whole archive"
tar xzf "$files/inspect.tgz" -C "$tmp" 2>/dev/null || die "$files/inspect.tgz is not a whole archive"
[[ -d "$tmp/screen" ]] || die "$files/screen_runs.tgz holds no screen/ folder"
mapfile -t runs < <(cd "$tmp/screen" && find . -mindepth 2 -maxdepth 2 -type f \( -name '*_seed*.json' -o -name '*_seed*.steps.csv' \) | sed 's|^\./||' | sort)
(( ${#runs[@]} > 0 )) || die "$files/screen_runs.tgz holds no run"
stray=$(cd "$tmp/screen" && find . -type f | sed 's|^\./||' | grep -v -E '^[^/]+/[^/]+_seed[0-9]+\.(json|steps\.csv)$' | grep -v -E '^[^/]+/summary\.(json|md)$' | head -1)
[[ -z "$stray" ]] || die "$files/screen_runs.tgz holds $stray, which is neither a run JSON nor a step log"
mapfile -t inspects < <([[ -d "$tmp/inspect" ]] && cd "$tmp/inspect" && find . -type f -name '*.inspect.json' | sed 's|^\./||' | sort)
# A continuation trains its run again from step 0: the delivered run must repeat the committed one
# bit for bit over the steps both reached (tools/same_bits.py; a committed run from before step
# logs is compared on its curve), or the two are different runs and the ingest stops. Its
# inspects at the steps already committed come a second time: the same measurement with new
# provenance (same_inspect.py, within fp32 rounding across binaries) keeps the committed file;
# any other difference stops the ingest.
for f in "${runs[@]}"; do
  [[ "$f" == *.json && -e "$screen/$stage/$f" ]] || continue
  only_curve=(); grep -q '"step_log"' "$screen/$stage/$f" || only_curve=(--curve-only)
  PYTHONPATH="$src" /usr/bin/python3 -m tools.same_bits "$screen/$stage/$f" "$tmp/screen/$f" "${only_curve[@]}" > "$tmp/same_bits.out" 2>&1 ||
    die "$stage/$f exists and the delivered run does not repeat it ($(tail -1 "$tmp/same_bits.out")): nothing copied"
done
for f in "${inspects[@]}"; do
  dest="$screen/inspect/$f.gz"
  [[ ! -e "$dest" ]] || gzip -dc "$dest" | cmp -s - "$tmp/inspect/$f" ||
    { /usr/bin/python3 "$here/same_inspect.py" "$dest" "$tmp/inspect/$f" > "$tmp/same_inspect.out" 2>&1 &&
      head -1 "$tmp/same_inspect.out" > "$tmp/same_inspect.$(echo "$f" | tr / _)"; } ||
    die "inspect/$f.gz exists with another measurement ($(head -1 "$tmp/same_inspect.out")): nothing copied"
done

cells=()
for f in "${runs[@]}"; do
  cell=${f%%/*}
  mkdir -p "$screen/$stage/$cell"
  if [[ -e "$screen/$stage/$f" ]]; then
    cmp -s "$screen/$stage/$f" "$tmp/screen/$f" && what=same || what=replaced
  else
    what=new
  fi
  cp "$tmp/screen/$f" "$screen/$stage/$f"
  echo "$what: $stage/$f"
  [[ " ${cells[*]} " == *" $cell "* ]] || cells+=("$cell")
done
for f in "${inspects[@]}"; do
  dest="$screen/inspect/$f.gz"
  mkdir -p "$(dirname "$dest")"
  if [[ ! -e "$dest" ]]; then
    # gzip -n: no name or time in the header, so the same inspect compresses to the same bytes
    gzip -n -9 -c "$tmp/inspect/$f" > "$dest.part" && mv "$dest.part" "$dest" || die "cannot write $dest"
    echo "new: inspect/$f.gz"
  elif gzip -dc "$dest" | cmp -s - "$tmp/inspect/$f"; then
    echo "same: inspect/$f.gz"
  else
    echo "$(cat "$tmp/same_inspect.$(echo "$f" | tr / _)"), the committed file kept: inspect/$f.gz"
  fi
done
# What the inspects printed on stderr: a line per finished inspect, and any error. (Deliveries
# made before run_cells.sh named it stderr.log called it errors.log.)
for f in stderr.log errors.log; do
  if [[ -s "$tmp/inspect/$f" ]]; then
    echo "inspect's stderr (inspect/$f of the delivery, not copied):"; sed 's/^/  /' "$tmp/inspect/$f"
  fi
done
cp "$files/screen.log" "$log_dest"
echo "new: $stage/sweep_$log_name.log"

py=/usr/bin/python3
for c in "${cells[@]}"; do
  PYTHONPATH="$src" "$py" -m tools.plot "$screen/$stage/$c" > /dev/null || echo "plot.py failed on $stage/$c"
done
echo "figures: $(printf '%s/curves.png ' "${cells[@]/#/$stage/}")"
if [[ "$screen" == "$here" ]]; then
  "$py" "$here/screen_overview.py" > /dev/null && echo "figure: overview.png" || echo "screen_overview.py failed"
  "$py" "$here/lookup_heads.py" > /dev/null && echo "figure: inspect/lookup_heads.png" || echo "lookup_heads.py failed"
  echo "-- tools/readme_tables.py (tables; --write updates them):"
  PYTHONPATH="$src" "$py" -m tools.readme_tables "$here/README.md" && echo "tables up to date"
  echo "-- screen_progress.py --check (the counts written in the READMEs' text):"
  "$py" "$here/screen_progress.py" --check
fi
exit 0
