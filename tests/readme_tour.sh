#!/usr/bin/env bash
# The README's walkthrough run as written (CTest: readme_tour): the lines between
# <!-- tour:begin --> and <!-- tour:end --> in README.md, with ./build/popebench replaced by the
# binary under test, python3 by the interpreter CMake found (the one with matplotlib), and the
# walkthrough's folder T moved to a temporary one; then what each step promises is checked.
# Usage: readme_tour.sh POPEBENCH SOURCE_DIR [PYTHON3]
set -euo pipefail
bin=${1:?usage: readme_tour.sh POPEBENCH SOURCE_DIR [PYTHON3]} src=${2:?SOURCE_DIR} py=${3:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
block=$(awk '/<!-- tour:begin -->/ {f = 1; next} /<!-- tour:end -->/ {f = 0} f' "$src/README.md" | grep -v '^```' || true)
[[ -n "$block" ]] || { echo "FAIL: README.md has no walkthrough between its tour markers"; exit 1; }
grep -q '^T=runs/tour' <<<"$block" || { echo "FAIL: the walkthrough no longer starts with T=runs/tour"; exit 1; }
block=${block//.\/build\/popebench/$bin}
block=$(sed -e "s#^T=runs/tour#T=$tmp/tour#" -e "s#^python3 #$py #" <<<"$block")
cd "$src"
if ! bash -euo pipefail -c "$block" > "$tmp/log" 2>&1; then
  tail -30 "$tmp/log"
  echo "FAIL: a command of the README's walkthrough failed (output above)"
  exit 1
fi
fails=0
for f in data/manifest.json pope.json pope_eval.json sweep/base/summary.md sweep/eq4/summary.md shards/summary.json \
         runs.csv sweep/base/accuracy.png sweep/base/curves.png; do
  [[ -s "$tmp/tour/$f" ]] || { echo "FAIL: the walkthrough wrote no $f"; fails=$((fails + 1)); }
done
# eval --factors evaluated the four length buckets; the CSV has a row for each of the six runs
[[ $(grep -o '"factor":' "$tmp/tour/pope_eval.json" | wc -l) -ge 4 ]] ||
  { echo "FAIL: eval --factors wrote no four buckets"; fails=$((fails + 1)); }
[[ $(wc -l < "$tmp/tour/runs.csv") -eq 7 ]] || { echo "FAIL: runs.csv has not a header and 6 rows"; fails=$((fails + 1)); }
echo "readme tour: $(( fails == 0 )) passed, $(( fails > 0 )) failed"
exit $(( fails > 0 ))
