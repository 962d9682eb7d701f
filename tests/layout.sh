#!/usr/bin/env bash
# The source folders are layers, and an #include only goes down (README, "Layout"):
#   common < kernels, generators < config < model/pe < model < backend < train < report < cli
# (bench/, tests/ and fuzz/ may include anything). A file that includes one of a higher layer, or
# two units (a header and its source) that include each other's headers, fail here.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
/usr/bin/python3 - "$src" <<'PY'
import os, re, subprocess, sys
src = sys.argv[1]
order = ["common", "kernels generators", "config", "model/pe", "model", "backend", "train", "report", "cli"]
rank = {folder: i for i, layer in enumerate(order) for folder in layer.split()}
def layer(path):  # the deepest folder of `order` that holds path
    parts = path.split("/")
    for n in range(len(parts) - 1, 0, -1):
        if "/".join(parts[:n]) in rank:
            return "/".join(parts[:n])
    return None
units, bad = {}, []
for folder in rank:
    for root, _, files in os.walk(os.path.join(src, folder)):
        for f in files:
            if not f.endswith((".hpp", ".cpp", ".cu", ".cuh")):
                continue
            path = os.path.relpath(os.path.join(root, f), src)
            mine = layer(path)
            for inc in re.findall(r'^\s*#include "([^"]+)"', open(os.path.join(src, path)).read(), re.M):
                theirs = layer(inc)
                if theirs is not None and rank[theirs] > rank[mine]:
                    bad.append(f"{path} includes {inc}: {theirs}/ is above {mine}/")
                unit, other = os.path.splitext(path)[0], os.path.splitext(inc)[0]
                if unit != other:
                    units.setdefault(unit, set()).add(other)
# Two units that include each other; a PE family's registration (pe_rope.cpp registers rope-half,
# whose class extends pe_rope.hpp's) is the one pair allowed, as it is one PE family.
allowed = {frozenset({"model/pe/pe_rope", "model/pe/pe_rope_half"})}
for a, deps in units.items():
    for b in deps:
        if a < b and a in units.get(b, ()) and frozenset({a, b}) not in allowed:
            bad.append(f"{a} and {b} include each other's headers")
# The README's Layout table: its rows' folders (`a/`, `b/c/` in the first column).
readme = open(os.path.join(src, "README.md")).read()
table = readme.split("## Layout", 1)[1].split("\n## ", 1)[0] if "## Layout" in readme else ""
named = set()
for line in table.splitlines():
    if line.startswith("| `"):
        named.update(re.findall(r"`([A-Za-z0-9_./-]+)/`", line.split("|")[1]))
if not named:
    bad.append("README.md has no Layout table")
for folder in sorted(named):
    if not os.path.isdir(os.path.join(src, folder)):
        bad.append(f"README's Layout names {folder}/, which does not exist")
# The repository's folders: git's tracked files, or (no git) the folders beside this one but the
# build folders and hidden ones.
git = subprocess.run(["git", "-C", src, "ls-files"], capture_output=True, text=True)
if git.returncode == 0 and git.stdout.strip():
    tops = {p.split("/")[0] for p in git.stdout.split() if "/" in p and not p.startswith(".")}
else:
    tops = {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)) and not d.startswith((".", "build"))}
covered = {n.split("/")[0] for n in named}
for top in sorted(tops - covered):
    bad.append(f"{top}/ is not in README's Layout table")
# The task registry (generators/task_list.hpp): no product file outside generators/ names a task,
# by its config type or its --task name, so that a new task is its own files and one line there.
# Indirect Indexing's own analyses (inspect, the paper's Table 1 for reproduce and the summary)
# are the exception: they read that task's parameters. "text" is left to the type name, as the
# word also names a dataset format.
task_list = open(os.path.join(src, "generators/task_list.hpp")).read()
task_types = re.search(r"using TaskParams = std::variant<([^>]*)>", task_list).group(1).replace(" ", "").split(",")
task_words = {t: [t] for t in task_types}
for root, _, files in os.walk(os.path.join(src, "generators")):
    for f in files:
        text = open(os.path.join(root, f)).read()
        for t in task_types:
            m = re.search(r"struct " + t + r" \{.*?kName = \"([^\"]+)\"", text, re.S)
            if m and m.group(1) != "text":
                task_words[t].append('"' + m.group(1) + '"')
task_allowed = {"report/inspect.cpp", "report/summary.cpp", "cli/cmd_inspect.cpp", "cli/cmd_reproduce.cpp"}
for folder in rank:
    if folder == "generators":
        continue
    for root, _, files in os.walk(os.path.join(src, folder)):
        for f in files:
            path = os.path.relpath(os.path.join(root, f), src)
            if not f.endswith((".hpp", ".cpp", ".cu", ".cuh")) or path in task_allowed:
                continue
            text = open(os.path.join(src, path)).read()
            for t, words in task_words.items():
                for w in words:
                    if w in text:
                        bad.append(f"{path} names the task {w} (only generators/ and the registry may: docs/adding.md)")
if len(task_types) < 2 or any(len(w) < 2 for t, w in task_words.items() if t != "TextConfig"):
    bad.append(f"layout.sh did not find the tasks' names in generators/ ({task_words})")
if bad:
    print("\n".join("FAIL: " + b for b in bad))
    sys.exit(1)
print(f"layout: the README's {len(named)} folders exist and cover the tree; {sum(len(d) for d in units.values())} includes between {len(units)} units, none upward, no pair; {len(task_types)} tasks named only in generators/")
PY
