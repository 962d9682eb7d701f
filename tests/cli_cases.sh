# Cases for cli_errors.sh, grouped by subcommand. $bin and $tmp are set by the caller.
expect_error "required" generate
expect_error "--n-train must be >= 0" generate --out "$tmp/a" --n-train -5
expect_error "below min length" generate --out "$tmp/a" --min-len 30 --max-len 20
expect_error "wider than the shortest string" generate --out "$tmp/a" --max-shift 30
expect_error "exceeds the vocabulary" generate --out "$tmp/a" --alphabet 80
expect_error "--format" generate --out "$tmp/a" --format csv
expect_error "--task" generate --out "$tmp/a" --task nope
expect_error "not expected" generate --out "$tmp/a" --bogus
expect_error "" nosuchcommand
expect_ok --help
expect_ok generate --help
expect_ok generate --out "$tmp/ok" --n-train 100 --n-val 10 --n-test 10 --seed 3
expect_ok generate --out "$tmp/oktxt" --n-train 100 --n-val 10 --n-test 10 --format text
[[ -f "$tmp/ok/manifest.json" && -f "$tmp/oktxt/train.txt" ]] || { echo "FAIL: generate wrote no files"; fails=$((fails+1)); }
