#!/usr/bin/env bash
# How the files in timing/ were made: the plan's timing run (../PLAN.md, "Model size"), before any
# run of the table. 200 steps of one RoPE and one PoPE run of each candidate size, one run at a
# time on an otherwise idle GPU (the Indirect Indexing job of the same call had ended first).
#
# Session of 2026-12-06, 10:48 UTC, one NVIDIA H100 80GB HBM3 (driver 580.159.04), commit 8ca4045,
# the binary built at 8ca4045 and gated in the same session (../../indirect_indexing/screen/
# baseline_seeds/device_command.sh: every GPU test passed, the new every-token evaluation's
# comparison with the CPU included). The corpus is a copy of Debian's linux-doc-6.1
# Documentation/*.rst.gz carried to the machine as .corpus/Documentation; `popebench generate
# --task text --corpus .corpus/Documentation` writes the package's digest for it,
# fnv1a64:8efa2109e5fcbfb8 (these run JSONs, of 8ca4045, do not record it; later commits do).
#
# Steps/s (timing.json): 8 x 512 RoPE 31.5, PoPE 24.1 (twelve runs 68.5 min); 6 x 384 RoPE 52.6,
# PoPE 40.6 (40.8 min, over the 40); 4 x 256 RoPE 109.2, PoPE 84.6 (19.6 min). The plan's rule
# picks 4 layers of 256. A first run of the same line a minute earlier in the same session
# printed the same choice with the same rates to 0.1 steps/s; its files were not brought back (too
# many files for one command's return), so this one, packed in one archive, is the committed one.
export LD_LIBRARY_PATH=$PWD/.devlm:/usr/local/cuda/lib64
POPEBENCH=.devlm/popebench timeout 150 bash results/lm_extrapolation/timing.sh /tmp/timing .corpus/Documentation
tar czf $OUT/timing.tgz --exclude='*.ckpt*' -C /tmp timing
