#!/usr/bin/python3
"""The numbers the report (README.md) gives about the runs on the plateau, from the committed
screen's run and inspect JSONs:

1. Over every plateau checkpoint inspected (its run's validation accuracy at the inspected step
   under the plan's 6 %), the range of each prediction class's share and the largest attention
   share any head gives, from the answer position, to the source letter, the target, the shift's
   tokens and the query letter, and from the query letter's position to the source;
   init_scaled_embedding's checkpoints apart (they split differently), delta_lr_x10's also shown.
2. The screen's answer-only runs on the plateau at 40,000 steps: training against validation
   loss and accuracy there (the memorising the report describes).
3. The stopped runs closest to the 6 % line at 40,000 steps, with their validation accuracy at
   30,000.

  /usr/bin/python3 results/indirect_indexing/screen/plateau_summary.py [SCREEN_DIR]

SCREEN_DIR (default: this folder) holds stage*/CELL/RUN.json and inspect/CELL/[SUB/]RUN[.stepN].inspect.json[.gz].
"""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))  # the repository root: the tools package (until this folder's scripts move into it)
from tools.json_input import glob_json, load_json  # noqa: E402
from screen_runs import BASELINE, ESCAPE, HERE, cells, val_at  # noqa: E402

APART = ("init_scaled_embedding", "delta_lr_x10")
CLASSES = ["correct", "source, right sign", "source, wrong sign", "other letter of the string"]

args = sys.argv[1:]
if len(args) > 1 or (args and args[0].startswith("-")):
    sys.exit(__doc__)
root = args[0] if args else HERE
if not os.path.isdir(os.path.join(root, "inspect")):
    sys.exit(f"plateau_summary.py: {root} has no inspect/ folder")


def run_of(inspect_path):
    """The run JSON an inspect JSON was made from: inspect/CELL/[SUB/]RUN[.stepN].inspect.json ->
    stage*/CELL/RUN.json, or None."""
    rel = os.path.relpath(inspect_path, os.path.join(root, "inspect")).split(os.sep)
    run = os.path.basename(inspect_path).split(".")[0]
    found = glob.glob(os.path.join(root, "stage*", rel[0], run + ".json"))
    return found[0] if found else None


def head_max(layers, kind):
    return max(h[kind] for layer in layers for h in layer["heads"])


plateau = []  # (cell, name, measures)
for path in glob_json(os.path.join(root, "inspect", "**", "*.inspect.json"), recursive=True):
    run_path = run_of(path)
    if run_path is None:
        continue
    ins = load_json(path, "plateau_summary.py", "popebench.inspect")
    val = val_at(load_json(run_path, "plateau_summary.py"), ins["step"])
    if val is None or val >= ESCAPE:
        continue
    res = ins["result"]
    ans = res["attention_from_answer"]["layers"]
    m = {c: res["prediction_classes"][c]["share"] for c in CLASSES}
    for kind in ("source", "target", "shift", "query"):
        m["answer to " + kind] = head_max(ans, kind)
    if res.get("attention_from_query"):
        m["query to source"] = head_max(res["attention_from_query"]["layers"], "source")
    cell = os.path.relpath(path, os.path.join(root, "inspect")).split(os.sep)[0]
    plateau.append((cell, os.path.relpath(path, os.path.join(root, "inspect")), m))

print(f"1. Plateau checkpoints inspected: {len(plateau)} "
      f"({sum(1 for _, n, _ in plateau if n.count(os.sep) == 1)} in the cells' own folders, the rest in along/ or at100k/)")
groups = [("all but " + APART[0], [p for p in plateau if p[0] != APART[0]])] + \
         [(cell, [p for p in plateau if p[0] == cell]) for cell in APART]
keys = CLASSES + ["answer to source", "answer to target", "answer to shift", "answer to query", "query to source"]
print("| measure (% of predictions; largest head %) | " + " | ".join(f"{g} ({len(ps)})" for g, ps in groups) + " |")
print("| --- |" + " --- |" * len(groups))
for k in keys:
    cols = []
    for _, ps in groups:
        vs = [100 * m[k] for _, _, m in ps if k in m]
        cols.append("-" if not vs else (f"{min(vs):.1f}-{max(vs):.1f}" if k in CLASSES else f"max {max(vs):.1f}"))
    print(f"| {k} | " + " | ".join(cols) + " |")

rows = []
for name, by_pe in cells(root):
    if name == BASELINE:
        continue
    for pe, runs in by_pe.items():
        for r in runs:
            p = next((p for p in r["curve"] if p["step"] == 40000), None)
            if p is None or p["val_acc"] >= ESCAPE or r["config"]["train"]["loss"] != "answer_position_only":
                continue
            rows.append((name, pe, r["config"]["train"]["seed"], p, val_at(r, 30000)))
if rows:
    def rng(key, scale=1.0, fmt="{:.2f}"):
        vs = [scale * p[key] for _, _, _, p, _ in rows]
        return fmt.format(min(vs)) + "-" + fmt.format(max(vs))
    below = sum(p["train_loss"] < p["val_loss"] for _, _, _, p, _ in rows)
    print(f"\n2. Answer-only screen runs on the plateau at 40k: {len(rows)}; training loss below validation "
          f"loss in {below}. Training loss {rng('train_loss')} against validation {rng('val_loss')} nats; "
          f"training accuracy {rng('train_acc', 100, '{:.1f}')} % against validation {rng('val_acc', 100)} %.")
    print("\n3. Closest to the 6 % line at 40k (validation accuracy % at 30k -> 40k):")
    for name, pe, seed, p, v30 in sorted(rows, key=lambda x: -x[3]["val_acc"])[:6]:
        print(f"   {name} {pe} seed {seed}: {'-' if v30 is None else f'{100 * v30:.2f}'} -> {100 * p['val_acc']:.2f}")
