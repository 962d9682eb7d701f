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

Except across binaries: inspect runs on the CPU, and a binary of another commit may add up its
fp32 products in another order. (Measured: curriculum's PoPE seeds 0 and 1, trained again by the
binary of 9c39726, repeated the committed runs of 42f0232 bit for bit to step 40,000, yet their
inspects at 20k and 40k differed by at most 7.3e-8 in 7,616 of 13,475 numbers, every count and
prediction equal; between the two, cf0bb47 fixed Eigen's blocking of long sums at a 32 KiB L1,
where Eigen had read the CPU's own, most likely another on the GPU machines.) So when the two
`environment.git_commit`s differ, a float may differ by ROUNDING * max(1, |committed|): 1e-6, ~14
times the largest difference measured, about 8 fp32 ulps at 1, and a thousand times below the
smallest step of an accuracy over 1,000 examples, so a changed prediction is never rounding.
Everything else (ints, strings, keys, lengths) stays exact.
Exit 0 and one line when the delivered inspect adds nothing but provenance and new sections
("same measurement", or "same measurement up to fp32 rounding" with how many numbers differ and
the largest difference); exit 1 with the first difference; exit 2 on bad input.
"""
import gzip
import json
import sys

PROVENANCE = {"environment", "checkpoint", "schema_version"}
ROUNDING = 1e-6


class Rounding:
    """Floats within ROUNDING of each other count as equal; how many did, and by how much."""

    def __init__(self):
        self.count = 0
        self.largest = 0.0

    def equal(self, a, b):
        if not (isinstance(a, float) and isinstance(b, float)) or abs(a - b) > ROUNDING * max(1.0, abs(a)):
            return False
        self.count += 1
        self.largest = max(self.largest, abs(a - b))
        return True


def first_difference(committed, delivered, path, rounding=None):
    """The path of the first value of `committed` that `delivered` lacks or holds otherwise
    (floats within rounding's tolerance, when one is given, hold the same)."""
    if isinstance(committed, dict) and isinstance(delivered, dict):
        for key in committed:
            if key not in delivered:
                return f"{path}/{key} (missing in the delivered inspect)"
            found = first_difference(committed[key], delivered[key], f"{path}/{key}", rounding)
            if found:
                return found
        return None
    if isinstance(committed, list) and isinstance(delivered, list):
        if len(committed) != len(delivered):
            return f"{path} ({len(committed)} against {len(delivered)} entries)"
        for i, (a, b) in enumerate(zip(committed, delivered)):
            found = first_difference(a, b, f"{path}[{i}]", rounding)
            if found:
                return found
        return None
    if committed == delivered and type(committed) is type(delivered):
        return None
    if rounding is not None and rounding.equal(committed, delivered):
        return None
    return f"{path} ({committed!r} against {delivered!r})"


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
    commits = [(d.get("environment") or {}).get("git_commit") for d in docs]
    rounding = Rounding() if commits[0] != commits[1] else None
    # The top level: every key but provenance must match both ways (a key only the delivered one
    # has outside `result` is a change of format, not a new measurement).
    for key in sorted((set(committed) | set(delivered)) - PROVENANCE - {"result"}):
        if key not in committed or key not in delivered:
            print(f"differs: /{key} is in one inspect only")
            return 1
        found = first_difference(committed[key], delivered[key], f"/{key}")  # exact: config, data, step
        if found:
            print(f"differs: {found}")
            return 1
    found = first_difference(committed["result"], delivered["result"], "/result", rounding)
    if found:
        print(f"differs: {found}")
        return 1
    added = sorted(set(delivered["result"]) - set(committed["result"]))
    what = "same measurement"
    if rounding is not None and rounding.count:
        what += (f" up to fp32 rounding (differences in {rounding.count} numbers, at most {rounding.largest:.2g};"
                 f" binaries {str(commits[0])[:7]} and {str(commits[1])[:7]})")
    print(what + (f"; the delivered one adds {', '.join(added)}" if added else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
