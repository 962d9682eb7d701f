#!/usr/bin/env bash
# Puts what the device commands of one part of the table delivered (base_call.sh's
# base_PART.tgz and .log; finetune_call.sh's finetune_PART.tgz and .log) where the table keeps it:
#   base_PART.tgz      ->  DEST/base_PART/            (the extrapolate folder: table, runs, evaluations)
#   finetune_PART.tgz  ->  DEST/finetune/, DEST/inspect/   (fine-tuned runs and their evaluations;
#                                                         the base models' frequency-usage inspects)
#   the logs           ->  DEST/logs/
# then, once the three parts are in, merges them (DEST/base/extrapolation.json, `popebench
# merge`) and prints the table and verdicts (lm_table.py; --figure DEST/extrapolation.png).
#   bash results/lm_extrapolation/ingest.sh FILES_DIR PART [DEST]
# PART: rope, pope or others; DEST: default this folder. Nothing is overwritten: a file already in
# DEST is an error (exit 2) before anything is copied. POPEBENCH names the binary (default
# build/popebench). Exit 0 when the part was copied.
set -u -o pipefail
die() { echo "ingest.sh: $*" >&2; exit 2; }
(( $# >= 2 && $# <= 3 )) || die "usage: ingest.sh FILES_DIR PART [DEST]"
files=$1 part=$2
here=$(cd "$(dirname "$0")" && pwd)
dest=${3:-$here}
bin=${POPEBENCH:-build/popebench}
case $part in rope|pope|others) ;; *) die "PART must be rope, pope or others (got '$part')";; esac
[[ -s "$files/base_$part.tgz" ]] || die "$files has no base_$part.tgz (base_call.sh's archive)"
[[ $part == others || -s "$files/finetune_$part.tgz" ]] || die "$files has no finetune_$part.tgz (finetune_call.sh's archive)"
[[ ! -e "$dest/base_$part" ]] || die "$dest/base_$part exists already"
tmp=$(mktemp -d) || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/base" "$tmp/ft"
tar xzf "$files/base_$part.tgz" -C "$tmp/base" || die "base_$part.tgz does not unpack"
tops=("$tmp"/base/*)
(( ${#tops[@]} == 1 )) && [[ -f "${tops[0]}/extrapolation.json" ]] ||
  die "base_$part.tgz does not hold one extrapolate folder with its extrapolation.json"
if [[ -s "$files/finetune_$part.tgz" ]]; then
  tar xzf "$files/finetune_$part.tgz" -C "$tmp/ft" || die "finetune_$part.tgz does not unpack"
  while IFS= read -r f; do
    [[ ! -e "$dest/$f" ]] || die "$dest/$f exists already"
  done < <(cd "$tmp/ft" && find . -type f | sed 's#^\./##')
fi
mkdir -p "$dest/logs" && cp -r "${tops[0]}" "$dest/base_$part" && cp -rn "$tmp/ft/." "$dest/" ||
  die "cannot copy into $dest"
for log in "$files/base_$part.log" "$files/finetune_$part.log"; do
  [[ -f "$log" ]] && cp "$log" "$dest/logs/"
done
echo "ingest.sh: $part copied into $dest"
if [[ -d "$dest/base_rope" && -d "$dest/base_pope" && -d "$dest/base_others" ]]; then
  rm -rf "$dest/base"
  "$bin" merge "$dest/base_rope" "$dest/base_pope" "$dest/base_others" --out "$dest/base/extrapolation.json" >/dev/null ||
    die "the three parts do not merge"
  PYTHONPATH="$here/../.." /usr/bin/python3 -m tools.lm_table "$dest/base/extrapolation.json" "$dest/finetune" --figure "$dest/extrapolation.png"
fi
