"""Whether two runs of the same config computed the same numbers: their evaluation curves (every
point's keys but elapsed_s) and their step logs (the run JSON's "step_log" file, CSV: every column
as written, 9 significant digits) compared over the steps both reached, or up to --steps. Each is
compared to its own last common step: a run stopped between two evaluations has step-log rows
past its last curve point, and they are compared too.

    /usr/bin/python3 -m tools.same_bits RUN_A.json RUN_B.json [--steps N] [--ignore model.max_len]
        [--curve-only]

What it is for: a kernel change that should keep the bits (the same products in the same order)
is checked by rerunning a committed run for a few thousand steps with the new binary and setting
the rerun against the committed run. --ignore names more config fields (dotted, under
"config") that may differ because they do not enter what is compared, beside the stop and the
checkpoint bookkeeping, which always may: e.g. model.max_len between a sweep's run and
`extrapolate`'s run of the same rotary PE, which sizes the position range for 10x but computes
nothing from it at the training lengths; a section of options (e.g. "input") that an older run
lacks altogether compares equal once every field of it is ignored. --curve-only compares the
curves alone, for a run written before step logs existed (without it, a step log on one side
only is refused). Exit 0 and one line when every compared value is equal;
exit 1 with the first difference when one is not; exit 2 on bad input (a missing file, runs of
different configs, nothing to compare).
"""
import argparse
import csv
import json
import os
import sys

from .json_input import load_json


IGNORED_CURVE_KEYS = {"elapsed_s"}
# What a run's config may differ in without changing what it computes up to a step: the stop and
# the checkpoint and evaluation bookkeeping.
ALWAYS_IGNORED = ("train.stop_at", "train.time_limit_s", "train.checkpoint_every", "train.keep_checkpoints_every")


def fail(msg):
    print(f"same_bits.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    run = load_json(path, "same_bits.py")
    if "curve" not in run or "config" not in run:
        fail(f"{path} is not a run JSON (no curve or config)")
    return run


def step_log(path, run):
    """{step: row} of the run's step log, or None if it kept none. The run JSON names the file as
    the run wrote it; it lies beside the JSON (runs are moved between machines as folders)."""
    log = run.get("step_log")
    if not isinstance(log, dict) or not log.get("file"):
        return None
    candidates = [os.path.join(os.path.dirname(path), os.path.basename(log["file"]))]
    for p in candidates:
        if os.path.exists(p):
            with open(p, newline="") as f:
                return {int(r["step"]): r for r in csv.DictReader(f)}
    return None


# Options added to the config after runs were committed, each with the value the older binary
# computed with (the default in config/config.hpp, which is also what popebench reads an absent
# field as): a run written before the option existed compares as if it had recorded that value.
# A later run that recorded another value is a different run; one that recorded this value may
# still be compared, and its bits decide.
LATER_FIELDS = {"train.gpu_attention": "fp32"}


def parent_of(cfg, dotted):
    """(the dict that holds the dotted field, the field's last name); the dict is None where a
    section on the way is missing."""
    *parents, last = dotted.split(".")
    node = cfg
    for p in parents:
        node = node.get(p) if isinstance(node, dict) else None
    return (node if isinstance(node, dict) else None), last


def with_later_fields(cfg):
    """cfg with every LATER_FIELDS field it lacks set to the value an older binary used."""
    for dotted, value in LATER_FIELDS.items():
        node, last = parent_of(cfg, dotted)
        if node is not None and last not in node:
            node[last] = value
    return cfg


def comparable_config(run, ignore=()):
    """The run's config less ALWAYS_IGNORED and the dotted fields of ignore, with the fields an
    older run lacks (LATER_FIELDS) filled in."""
    cfg = with_later_fields(json.loads(json.dumps(run["config"])))
    for dotted in ALWAYS_IGNORED + tuple(ignore):
        node, last = parent_of(cfg, dotted)
        if node is not None:
            node.pop(last, None)
    return prune_empty(cfg)


def prune_empty(node):
    """node without the sections that ignoring left empty: a run written before a section's
    options existed has no such section at all (e.g. "input" before --pad and --context)."""
    if not isinstance(node, dict):
        return node
    out = {k: prune_empty(v) for k, v in node.items()}
    return {k: v for k, v in out.items() if v != {}}


def first_config_difference(a, b, where="config"):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}"
            d = first_config_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    return None if a == b else where


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--steps", type=int, default=None, help="compare up to this step (default: every step both reached)")
    ap.add_argument("--ignore", action="append", default=[], metavar="FIELD",
                    help="a config field (dotted, e.g. model.max_len) that may differ; repeatable")
    ap.add_argument("--curve-only", action="store_true",
                    help="compare the curves alone, for a run written before step logs existed")
    args = ap.parse_args()
    if args.steps is not None and args.steps < 0:
        fail("--steps must be >= 0")
    for f in args.ignore:
        if not f or any(not part for part in f.split(".")):
            fail(f"--ignore {f!r} is not a dotted config field such as model.max_len")
    ra, rb = load(args.a), load(args.b)
    d = first_config_difference(comparable_config(ra, args.ignore), comparable_config(rb, args.ignore))
    if d:
        fail(f"the runs' configs differ at {d}: not the same run")
    last = min(max(p["step"] for p in ra["curve"]), max(p["step"] for p in rb["curve"]))
    if args.steps is not None:
        last = min(last, args.steps)

    pa = {p["step"]: p for p in ra["curve"] if p["step"] <= last}
    pb = {p["step"]: p for p in rb["curve"] if p["step"] <= last}
    if sorted(pa) != sorted(pb):
        print(f"differ: evaluated steps {sorted(set(pa) ^ set(pb))} are in one run's curve only")
        sys.exit(1)
    for step in sorted(pa):
        for k in sorted((set(pa[step]) | set(pb[step])) - IGNORED_CURVE_KEYS):
            if pa[step].get(k) != pb[step].get(k):
                print(f"differ: curve at step {step}, {k}: {pa[step].get(k)!r} against {pb[step].get(k)!r}")
                sys.exit(1)

    la, lb = (None, None) if args.curve_only else (step_log(args.a, ra), step_log(args.b, rb))
    rows = 0
    log_last = None
    if la is not None and lb is not None:
        log_last = min(max(la, default=-1), max(lb, default=-1))
        if args.steps is not None:
            log_last = min(log_last, args.steps)
        ka = {s for s in la if s <= log_last}
        kb = {s for s in lb if s <= log_last}
        if ka != kb:
            print(f"differ: step-log steps {sorted(ka ^ kb)[:5]} are in one run's log only")
            sys.exit(1)
        common = sorted(ka)
        for s in common:
            if la[s] != lb[s]:
                k = next(k for k in la[s] if la[s].get(k) != lb[s].get(k))
                print(f"differ: step log at step {s}, {k}: {la[s].get(k)} against {lb[s].get(k)}")
                sys.exit(1)
        rows = len(common)
    elif la is not None or lb is not None:
        fail("only one of the runs has a step log (--curve-only compares the curves alone)")
    if not pa and not rows:
        fail("nothing to compare (no common evaluated step or step-log row)")
    if rows and log_last != last:
        print(f"same bits: {len(pa)} curve points to step {last} and {rows} step-log rows to step {log_last}")
    else:
        print(f"same bits: {len(pa)} curve points and {rows} step-log rows, to step {last}")


if __name__ == "__main__":
    main()
