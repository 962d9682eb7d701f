#!/usr/bin/env python3
"""Registers, spills and stack of each CUDA kernel in a source file, as ptxas reports them for the
build's own compile command (no GPU needed): the numbers occupancy is counted from in
bench/log/023-why-pope-s-whole-sequence-attention-is.md.

    python3 bench/kernel_resources.py [--build build] kernels/cuda/attention_short.cu [...]

Reads BUILD/compile_commands.json (CMake writes it), reruns each file's nvcc command with
`-Xptxas -v` into a temporary object, and prints one row per kernel: its demangled name, registers
per thread, spill stores and loads (bytes), the stack frame (bytes), and how many blocks of
`--threads` threads the registers allow on an SM of 64K registers (allocated per warp in units of
256). Shared memory depends on T at run time and is not in this table: `popebench bench`
reports the blocks per SM the CUDA occupancy calculator gives with it.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile


def compile_command(build, source):
    path = os.path.join(build, "compile_commands.json")
    try:
        with open(path) as f:
            entries = json.load(f)
    except OSError as e:
        sys.exit(f"kernel_resources: cannot read {path} ({e.strerror}); configure the build with CMake first")
    except ValueError as e:
        sys.exit(f"kernel_resources: {path} is not JSON ({e})")
    want = os.path.realpath(source)
    for e in entries:
        if os.path.realpath(os.path.join(e["directory"], e["file"])) == want:
            return e
    sys.exit(f"kernel_resources: {source} is not in {path} (is it a CUDA source of this build?)")


def demangle(names):
    try:
        out = subprocess.run(["cu++filt"] + names, capture_output=True, text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        try:
            out = subprocess.run(["c++filt"] + names, capture_output=True, text=True, check=True).stdout.split("\n")
        except (OSError, subprocess.CalledProcessError):
            return names
    return out[: len(names)]


def short_name(name):
    name = re.sub(r"^void ", "", name)
    name = re.sub(r"popebench::|cuda::|attn::|\(anonymous namespace\)::|_GLOBAL__N__\w+::", "", name)
    name = name.replace("(PEKind)0", "none").replace("(PEKind)1", "rope").replace("(PEKind)2", "pope")
    return re.sub(r"\([^()]*\)$", "", name)  # the parameter list


def blocks_by_registers(regs, threads):
    # Registers are allocated per warp in units of 256 (8 per thread); an SM has 64K.
    per_warp = -(-regs * 32 // 256) * 256
    warps = -(-threads // 32)
    return 65536 // (per_warp * warps) if regs else 0


def resources(entry):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    if "-o" not in args[:-1]:
        sys.exit(f"kernel_resources: the compile command of {entry['file']} names no object file (-o)")
    with tempfile.TemporaryDirectory() as tmp:
        args[args.index("-o") + 1] = os.path.join(tmp, "out.o")
        try:
            run = subprocess.run(args + ["-Xptxas", "-v"], cwd=entry["directory"], capture_output=True, text=True)
        except OSError as e:
            sys.exit(f"kernel_resources: cannot run {args[0]} ({e.strerror})")
    if run.returncode != 0:
        sys.exit(f"kernel_resources: nvcc failed on {entry['file']}:\n{run.stderr.strip()}")
    rows, cur = [], None
    for line in run.stderr.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            cur = {"mangled": m.group(1), "spill_stores": 0, "spill_loads": 0, "stack": 0, "registers": 0}
            rows.append(cur)
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            cur["stack"], cur["spill_stores"], cur["spill_loads"] = map(int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["registers"] = int(m.group(1))
    for r, name in zip(rows, demangle([r["mangled"] for r in rows])):
        r["name"] = short_name(name)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="+")
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", type=int, default=256, help="threads a block (the whole-sequence kernels: 256)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    a = ap.parse_args()
    if a.threads < 1 or a.threads > 1024:
        sys.exit("kernel_resources: --threads must be 1-1024")
    out = []
    for src in a.sources:
        for r in resources(compile_command(a.build, src)):
            r["source"] = src
            r["blocks_by_registers"] = blocks_by_registers(r["registers"], a.threads)
            out.append(r)
    if a.json:
        print(json.dumps([{k: v for k, v in r.items() if k != "mangled"} for r in out], indent=1))
        return
    print(f"| kernel | registers | spill stores / loads (B) | stack (B) | blocks of {a.threads} by registers |")
    print("| --- | --- | --- | --- | --- |")
    for r in sorted(out, key=lambda r: r["name"]):
        print(f"| {r['name']} | {r['registers']} | {r['spill_stores']} / {r['spill_loads']} | {r['stack']} | "
              f"{r['blocks_by_registers']} |")


if __name__ == "__main__":
    main()
