#!/usr/bin/env python3
"""The PTX of one CUDA kernel, block by block: each basic block's instruction count, its mma and
ex2 counts, and its most frequent opcodes, for the build's own compile command (no GPU needed).
A static count of what a loop iteration issues, to check before a GPU run that a change removes
the instructions it means to (bench/log/036); PTX is not SASS, so it ranks changes, it does not
time them.

    python3 bench/ptx_blocks.py [--build build] kernels/cuda/attention_flash.cu "attention_fwd_flash_kernel<64, none>"

Reruns the file's nvcc command (BUILD/compile_commands.json) with -ptx for the first virtual
architecture it builds, finds the kernel whose short name (bench/kernel_resources.py's) is KERNEL,
and prints one row per basic block: its label, its line in the PTX, the instructions in it
(comments, braces and labels aside), and the counts.
"""
import argparse
import collections
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_resources import compile_command, demangle, short_name  # noqa: E402


def ptx_of(entry):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    if "-c" not in args or "-o" not in args[:-1]:
        sys.exit(f"ptx_blocks: the compile command of {entry['file']} is not an nvcc -c ... -o command")
    arch = None
    for i, a in enumerate(args):
        m = re.match(r"--generate-code=arch=(compute_\d+a?),code=.*", a)
        if m:
            arch = m.group(1)
            args[i] = f"--generate-code=arch={arch},code=[{arch}]"
    if arch is None:
        sys.exit("ptx_blocks: no --generate-code in the compile command (configure with CMAKE_CUDA_ARCHITECTURES)")
    args[args.index("-c")] = "-ptx"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.ptx")
        args[args.index("-o") + 1] = out
        run = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"ptx_blocks: nvcc failed on {entry['file']}:\n{run.stderr.strip()}")
        with open(out) as f:
            return f.read().splitlines()


def kernel_lines(lines, kernel):
    starts = [(i, re.search(r"\.entry (\S+?)\(", l).group(1)) for i, l in enumerate(lines) if re.search(r"\.entry \S+\(", l)]
    names = [short_name(n) for n in demangle([m for _, m in starts])]
    for k, (start, _) in enumerate(starts):
        if names[k] == kernel:
            end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
            return start, lines[start:end]
    sys.exit(f"ptx_blocks: no kernel '{kernel}' in the PTX; kernels: " + "; ".join(sorted(set(names))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source")
    ap.add_argument("kernel", help="the short name, e.g. 'attention_fwd_flash_kernel<64, none>'")
    ap.add_argument("--build", default="build")
    ap.add_argument("--top", type=int, default=6, help="opcodes listed per block")
    a = ap.parse_args()
    if a.top < 0:
        sys.exit("ptx_blocks: --top must be >= 0")
    first, body = kernel_lines(ptx_of(compile_command(a.build, a.source)), a.kernel)
    blocks, label, line, ops = [], "entry", first + 1, collections.Counter()
    for n, raw in enumerate(body, start=first + 1):
        s = raw.strip()
        if re.match(r"^\$L__\w+:", s):
            blocks.append((label, line, ops))
            label, line, ops = s[:-1], n, collections.Counter()
            continue
        if not s or s.startswith(("//", "{", "}")) or s.startswith(".") or s.endswith(")") or s == "(":
            continue
        op = s.split()[0]
        if op.startswith("@"):  # a predicated instruction: count what it does
            op = s.split()[1]
        ops[op.rstrip(";")] += 1
    blocks.append((label, line, ops))
    print(f"| block | PTX line | instructions | mma | ex2 | most frequent |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, line, ops in blocks:
        total = sum(ops.values())
        if not total:
            continue
        mma = sum(v for k, v in ops.items() if k.startswith("mma."))
        ex2 = sum(v for k, v in ops.items() if k.startswith("ex2."))
        top = ", ".join(f"{k} {v}" for k, v in ops.most_common(a.top))
        print(f"| {label} | {line} | {total} | {mma} | {ex2} | {top} |")


if __name__ == "__main__":
    main()
