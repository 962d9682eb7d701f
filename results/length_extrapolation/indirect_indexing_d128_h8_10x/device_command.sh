#!/usr/bin/env bash
# How this folder was made: one device command on one NVIDIA H100 80GB HBM3 (driver 580.159.04),
# 2026-12-05 15:11:21-15:15:22 UTC, binary built from commit f2410b0 (x86-64-v3,
# -DCMAKE_CUDA_ARCHITECTURES=90), carried as .devbin/popebench with libgomp.so.1. The setup is the
# one the pre-registered sweep chose (../indirect_indexing_setup/: d_model 128, 8 heads of 16,
# 2 layers, the quick preset's schedule) and the PEs and seeds its PLAN.md registered.
export LD_LIBRARY_PATH=$PWD/.devbin:/usr/local/cuda/lib64:/usr/local/cuda/lib
POPEBENCH=.devbin/popebench bash results/length_extrapolation/extrapolate_call.sh \
  /tmp/ii_d128_h8_10x 430 $OUT ii_d128_h8_10x --preset quick --d-model 128 --heads 8 \
  --task indirect-indexing --min-len 6 --max-len 10 --max-shift 2 --alphabet 100 \
  --steps 100000 --n-train 6400000 --eval-every 2000 \
  --pe rope,pope,pope-delta0,alibi,none,learned,sinusoidal --seeds 0,1,2 --concurrent 21
# It ran `popebench extrapolate ... --concurrent 21 --out /tmp/ii_d128_h8_10x --time-limit 430`
# (the command in extrapolation.json): the 21 runs at once as seven batches of three, 455-468
# steps/s per run, all 100,000 steps and the evaluation of every bucket in 4.0 minutes, so the
# first command finished the job (exit 0). The log is ii_d128_h8_10x.log. Beside it the same
# command ran the screen's gate (../../indirect_indexing/screen/stage1/device_command.sh, session
# of 2026-12-05 from 15:10 UTC); the GPU tests, run alone in the next command on the same machine,
# all passed (9648 assertions in 26 test cases, head dim 16 among them:
# ../../bench/h100_cuda_tests_f2410b0.log).
#
# Then, on the development machine (FILES: the command's $OUT as it came back):
#   D=results/length_extrapolation/indirect_indexing_d128_h8_10x
#   tar xzf FILES/ii_d128_h8_10x.tgz -C /tmp && cp -r /tmp/ii_d128_h8_10x/. $D/
#   cp FILES/ii_d128_h8_10x.log $D/
#   /usr/bin/python3 results/plot.py $D --learned-above 50
# and the check that the RoPE and PoPE runs are the setup sweep's runs trained again (the model's
# position range, sized here for 10x, is all that differs, and rotary PEs compute nothing from it):
#   for p in rope pope; do for s in 0 1 2; do
#     /usr/bin/python3 results/same_bits.py \
#       results/length_extrapolation/indirect_indexing_setup/runs/d128_h8/${p}_seed$s.json \
#       $D/runs/${p}_seed$s.json --ignore model.max_len
#   done; done
# -> six times "same bits: 51 curve points and 1000 step-log rows, to step 100000": the sweep ran
# on an H200 at e1116fc, these on an H100 at f2410b0, and every validation point and step-log row
# is the same.
