#!/usr/bin/env bash
# Bad input must give exit != 0 and a single-line error naming the problem; good input exit 0.
set -u
bin="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
# A refused command returns at once; the limit keeps a case whose input became valid (and so starts
# real work) from holding the suite for the whole CTest timeout: it fails with rc 124 instead.
expect_error() {  # expected-substring, args...
  local want="$1"; shift
  local out rc
  out=$(timeout 120 "$bin" "$@" 2>&1 >/dev/null); rc=$?
  if [[ $rc -eq 0 || $(printf '%s\n' "$out" | wc -l) -ne 1 || "$out" != *"$want"* ]]; then
    echo "FAIL: popebench $* -> rc=$rc, stderr: $out (wanted one line containing '$want')"; fails=$((fails+1))
  else passes=$((passes+1)); fi
}
expect_ok() {
  if ! "$bin" "$@" >/dev/null 2>&1; then echo "FAIL: popebench $* should succeed"; fails=$((fails+1)); else passes=$((passes+1)); fi
}
source "$(dirname "$0")/cli_cases.sh"
source "$(dirname "$0")/cli_hostile_cases.sh"
echo "cli: $passes passed, $fails failed"
[[ $fails -eq 0 ]]
