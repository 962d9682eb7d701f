#!/usr/bin/env bash
# Catch2 test names that CTest cannot run: catch_discover_tests makes a CMake list of the names,
# so a ';' in one splits it into two tests that match nothing and fail (as a CI run did once).
# Usage: test_names.sh SOURCE_DIR
set -u
bad=$(grep -n -E 'TEST_CASE\("[^"]*;' "${1:?SOURCE_DIR}"/tests/*.cpp)
[[ -z "$bad" ]] || { echo "FAIL: a ';' in a test name (use ',' or 'and'):"; echo "$bad"; exit 1; }
echo "test names: no ';'"
