#!/usr/bin/python3
"""Whether a delivered inspect JSON measured what a committed one of the same checkpoint measured.

    /usr/bin/python3 results/indirect_indexing/screen/same_inspect.py COMMITTED.json[.gz] DELIVERED.json[.gz]

A run continued to 100,000 steps is trained again from step 0 (checkpoints do not come back from
the GPU machine), so its inspects along the way (step 20,000, 40,000) are taken a second time.
Training is deterministic, so they measure the same numbers; what differs is their provenance
(`environment`: date, commit, command; `checkpoint`: the job's temporary path) and, when the
binary is newer, sections of `result` the committed one predates (e.g. frequency_usage). Those
may differ; everything else must be equal: `config`, `data`, `split`, `step`, `schema`, and
every key of the committed `result`, recursively, with numbers compared exactly.
Exit 0 and one line when the delivered inspect adds nothing but provenance and new sections;
exit 1 with the first difference; exit 2 on bad input.
"""
import gzip
import json
import sys

PROVENANCE = {"environment", "checkpoint", "schema_version"}


def first_difference(committed, delivered, path):
    """The path of the first value of `committed` that `delivered` lacks or holds otherwise."""
    if isinstance(committed, dict) and isinstance(delivered, dict):
        for key in committed:
            if key not in delivered:
                return f"{path}/{key} (missing in the delivered inspect)"
            found = first_difference(committed[key], delivered[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(committed, list) and isinstance(delivered, list):
        if len(committed) != len(delivered):
            return f"{path} ({len(committed)} against {len(delivered)} entries)"
        for i, (a, b) in enumerate(zip(committed, delivered)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if committed == delivered and type(committed) is type(delivered) else \
        f"{path} ({committed!r} against {delivered!r})"


def main(argv):
    if len(argv) != 3:
        print("usage: same_inspect.py COMMITTED.json DELIVERED.json", file=sys.stderr)
        return 2
    docs = []
    for name in argv[1:]:
        try:
            with (gzip.open if name.endswith(".gz") else open)(name, "rt", encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, EOFError, ValueError) as e:
            print(f"same_inspect.py: cannot read {name}: {e}", file=sys.stderr)
            return 2
        if not isinstance(doc, dict) or "result" not in doc:
            print(f"same_inspect.py: {name} is not an inspect JSON (no result)", file=sys.stderr)
            return 2
        docs.append(doc)
    committed, delivered = docs
    # The top level: every key but provenance must match both ways (a key only the delivered one
    # has outside `result` is a change of format, not a new measurement).
    for key in sorted((set(committed) | set(delivered)) - PROVENANCE - {"result"}):
        if key not in committed or key not in delivered:
            print(f"differs: /{key} is in one inspect only")
            return 1
        found = first_difference(committed[key], delivered[key], f"/{key}")
        if found:
            print(f"differs: {found}")
            return 1
    found = first_difference(committed["result"], delivered["result"], "/result")
    if found:
        print(f"differs: {found}")
        return 1
    added = sorted(set(delivered["result"]) - set(committed["result"]))
    print("same measurement" + (f"; the delivered one adds {', '.join(added)}" if added else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
