#!/usr/bin/env bash
# The text task on its default corpus, Debian's linux-doc-6.1 (`./run.sh test` installs it):
# every document lands in exactly one split, the evaluation splits are large enough for windows
# of 10 x 256 bytes, and the same command writes the same bytes. Skipped (exit 77, CTest's
# SKIP_RETURN_CODE) where the package is not installed.
set -u
bin="$1"
corpus=/usr/share/doc/linux-doc-6.1/Documentation
[[ -d "$corpus" ]] || { echo "skipped: $corpus is not installed (apt-get install linux-doc-6.1)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(generate --task text --n-train 2000 --n-val 1000000 --n-test 1000000 --max-len 2560 --min-len 2560)
"$bin" "${args[@]}" --out "$tmp/a" >/dev/null || { echo "FAIL: generate on $corpus"; exit 1; }
"$bin" "${args[@]}" --out "$tmp/b" >/dev/null || { echo "FAIL: generate again"; exit 1; }
for f in train.bin val.bin test.bin; do
  cmp -s "$tmp/a/$f" "$tmp/b/$f" || { echo "FAIL: $f differs between two runs of the same command"; exit 1; }
done
/usr/bin/python3 - "$tmp/a/manifest.json" <<'PY' || exit 1
import json, sys
m = json.load(open(sys.argv[1]))
src = {k: m["stats"][k]["source"] for k in ("train", "val", "test")}
whole = src["train"]
assert whole["corpus_documents"] >= 3000, whole                     # 3,183 in linux-doc-6.1
docs = sum(s["split_documents"] for s in src.values())
assert docs == whole["corpus_documents"], (docs, whole)               # each document in one split
assert sum(s["split_bytes"] for s in src.values()) == whole["corpus_bytes"], src
for k in ("val", "test"):                                            # ~5 % each, >= 1 MB of text
    assert src[k]["split_bytes"] >= 1000000, src[k]
    assert m["splits"][k]["count"] == (1000000 - 1) // 2560, m["splits"][k]   # 10 x 256 bytes a window
print("text corpus: %d documents, %d bytes; test %d documents, %d bytes" % (
    whole["corpus_documents"], whole["corpus_bytes"], src["test"]["split_documents"], src["test"]["split_bytes"]))
PY
