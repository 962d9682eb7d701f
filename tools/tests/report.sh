#!/usr/bin/env bash
# tools/report.py on the committed results: every figure it lists is drawn (PNG and PDF) into a
# folder outside the repository, no generated table is stale, nothing under results/ changes, and
# bad options exit 2 with one line. Skipped (77) without matplotlib.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
"$py" -c "import matplotlib" 2>/dev/null || { echo "skipped: no python3-matplotlib"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
cd "$src" || exit 1
tree_sum() { find results -type f -print0 | sort -z | xargs -0 md5sum | md5sum; }
before=$(tree_sum)
"$py" -m tools.report --list > "$tmp/list" || fail "report.py --list exit $?"
n=$(wc -l < "$tmp/list")
(( n > 50 )) || fail "report.py --list names $n figures"
# Every committed figure is one the report draws (none is left to a script of its own).
comm -13 <(sort "$tmp/list") <(find results -name '*.png' | sort) > "$tmp/undrawn"
[[ -s "$tmp/undrawn" ]] && fail "figures in results/ that report.py does not draw: $(head -3 "$tmp/undrawn" | tr '\n' ' ')"
"$py" -m tools.report --out "$tmp/out" --jobs 2 > "$tmp/log" 2>&1 || { fail "report.py --out exit $?"; tail -5 "$tmp/log"; }
grep -q "^report.py: $n of $n figures drawn" "$tmp/log" || { fail "report.py did not draw every figure"; tail -5 "$tmp/log"; }
while read -r f; do
  for g in "$f" "${f%.png}.pdf"; do
    [[ -s "$tmp/out/$g" ]] || { fail "no $g"; break 2; }
  done
done < "$tmp/list"
[[ "$before" == "$(tree_sum)" ]] || fail "report.py --out changed files under results/"
for what in "--jobs 0" "--out results/x" "--jobs lots"; do
  "$py" -m tools.report $what > "$tmp/bad" 2>&1
  rc=$?
  [[ $rc -eq 2 && $(wc -l < "$tmp/bad") -le 2 ]] || { fail "report.py $what: exit $rc"; cat "$tmp/bad"; }
done
[[ -e results/x ]] && fail "report.py --out results/x created it"
(( fails == 0 )) && echo "report: all checks passed"
exit $(( fails > 0 ))
