"""The batched-runs benchmark against its targets, as a markdown table: the R curve of aggregate
run-steps/s from `popebench bench --batch-runs` JSONs, PyTorch's two ways of training R seeds at
once from `bench/torch_ref.py` JSONs, and the single step, each against the targets of the
issue of batched runs (bench/log/016-batches-of-runs-r-runs-as-one.md).

    /usr/bin/python3 -m tools.batch_table POPEBENCH.json... [--torch TORCH.json...]

A curve too long for one command of a lent GPU is measured in pieces (`BATCH_R=...
bench/run_batch_bench.sh`); give every piece: a (PE, products, R) measured twice takes the file
given last. Files must come from one kind of GPU (numbers of different cards are not one curve;
refused). A file whose bench was cut by its command's limit ("complete": false) is used for what
it holds and named in the header. Exit 2 on bad input.
"""
import argparse
import os
import sys

from .json_input import load_json

# The targets on one H200 (issue of batched runs): aggregate PoPE run-steps/s at R, and the single
# step.
RUN_STEP_TARGETS = {8: 1000.0, 16: 1200.0}
POPE_STEP_TARGET_MS = 2.0
POPE_ROPE_RATIO_TARGET = 1.15


def fail(msg):
    print(f"batch_table.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path, schema):
    return load_json(path, "batch_table.py", schema)


def fmt(x):
    return "" if x is None else f"{x:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("popebench", nargs="+", help="popebench bench JSONs (popebench.bench)")
    ap.add_argument("--torch", nargs="*", default=[], help="bench/torch_ref.py JSONs (popebench.torch_bench)")
    args = ap.parse_args()

    benches = [(p, load(p, "popebench.bench")) for p in args.popebench]
    torches = [(p, load(p, "popebench.torch_bench")) for p in args.torch]
    devices = {d.get("environment", {}).get("device") for _, d in benches} | {d.get("device") for _, d in torches}
    if len(devices) != 1 or None in devices:
        fail(f"the files come from more than one kind of GPU (or name none): {sorted(map(str, devices))}")
    device = devices.pop()

    curve = {}  # (pe, products) -> {R: run-steps/s}
    step = {}   # pe -> step_graph_ms
    for _, d in benches:
        for b in d.get("batched", []):
            products = b.get("products", "unrecorded")
            curve.setdefault((b["pe"], products), {})[b["runs"]] = b["run_steps_per_s"]
            if b["runs"] == 1:  # a run alone is R = 1 of either way of choosing the batch's products
                for other in ("batch_heuristic", "as_run_alone"):
                    curve.setdefault((b["pe"], other), {})[1] = b["run_steps_per_s"]
        for pe, s in d.get("step", {}).items():
            step[pe] = s["step_graph_ms"]
    torch = {}  # (pe, way) -> {R: run-steps/s}
    for _, d in torches:
        for r in d.get("replicas", []):
            if "vmap_compile" in r:
                torch.setdefault((r["pe"], "vmap"), {})[r["runs"]] = r["vmap_compile"]["run_steps_per_s"]
            if "processes" in r:
                torch.setdefault((r["pe"], "processes"), {})[r["runs"]] = r["processes"]["run_steps_per_s"]
    if not curve and not step:
        fail("no batched runs and no single step in the popebench files")

    rs = sorted({r for c in list(curve.values()) + list(torch.values()) for r in c})
    commits = sorted({d["environment"].get("git_commit", "?")[:7] for _, d in benches})
    cut = [p for p, d in benches if d.get("complete") is False]
    print(f"Run-steps/s on one {device} (popebench {', '.join(commits)}"
          + (f"; cut by a limit: {', '.join(cut)}" if cut else "") + ")\n")
    print("| | " + " | ".join(f"R = {r}" for r in rs) + " |")
    print("| --- |" + " --- |" * len(rs))
    names = {"batch_heuristic": "batch heuristic", "as_run_alone": "products on a run alone's algorithms"}
    for (pe, products) in sorted(curve, key=lambda k: (k[0] != "rope", k[1] != "batch_heuristic", k[1])):
        c = curve[(pe, products)]
        if set(c) == {1} and products != "batch_heuristic":
            continue  # only the shared R = 1 entry: nothing of its own
        print(f"| popebench {pe}, {names.get(products, products)} | " + " | ".join(fmt(c.get(r)) for r in rs) + " |")
    for (pe, way) in sorted(torch, key=lambda k: (k[0] != "rope", k[1])):
        c = torch[(pe, way)]
        label = "torch.compile vmapped over R" if way == "vmap" else "torch.compile, R processes"
        print(f"| {label}, {pe} | " + " | ".join(fmt(c.get(r)) for r in rs) + " |")

    where = "" if "H200" in device else f" (the targets are set for one H200; this is an {device})"
    print(f"\nAgainst the targets and PyTorch (popebench's batch heuristic){where}:")
    for r, target in sorted(RUN_STEP_TARGETS.items()):
        got = curve.get(("pope", "batch_heuristic"), {}).get(r)
        if got is None:
            print(f"- PoPE at R = {r}: not measured (target {target:,.0f})")
        else:
            print(f"- PoPE at R = {r}: {got:.1f} run-steps/s against the target {target:,.0f} ({target / got:.2f}x short)"
                  if got < target else f"- PoPE at R = {r}: {got:.1f} run-steps/s, the target {target:,.0f} met")
    for pe in ("rope", "pope"):
        for r in rs:
            ours = curve.get((pe, "batch_heuristic"), {}).get(r)
            theirs = [torch[k][r] for k in torch if k[0] == pe and r in torch[k]]
            if ours is not None and theirs:
                print(f"- {pe} at R = {r}: {ours / max(theirs):.2f}x PyTorch's better way ({max(theirs):.1f})")
    if "pope" in step and "rope" in step:
        p, q = step["pope"], step["rope"]
        print(f"- one step: PoPE {p:.3f} ms (target {POPE_STEP_TARGET_MS} ms), RoPE {q:.3f} ms, PoPE / RoPE {p / q:.2f}"
              f" (target {POPE_ROPE_RATIO_TARGET})")


if __name__ == "__main__":
    main()
