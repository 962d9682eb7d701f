#!/usr/bin/env bash
# How the three folders here were made: session 7, device calls 3, 4 and 5 on one `nvidia-h200-x2`
# machine (2026-11-29, 23:09-23:19 UTC), right after the calls of
# ../indirect_indexing_strings6-10_100k/device_command.sh on the same machine (GPU tests passed
# there first, 1689 assertions), commit e021e0d. More seeds of the associative-recall setting of
# ../associative_recall_pairs2-8_100k/ (same options but --pe and --seeds): RoPE and PoPE seeds 3-14,
# PoPE with delta 0 and ALiBi seeds 3-8. Each call trained 12 runs at once, 6 per GPU: 563-606
# steps/s each, 167-181 s of wall time per run. The time limits were not reached: every run is
# complete. Logs: each folder's extrapolate.log.
B=/tmp/bin; export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64
common=(--task associative-recall --min-len 2 --max-len 8 --alphabet 80 --steps 100000 --n-train 6400000
        --gpus 2 --concurrent 6 --eval-every 2000 --log-every 10000)
$B/popebench extrapolate "${common[@]}" --pe rope,pope --seeds 3,4,5,6,7,8 --time-limit 540 --out /tmp/exar2        # rope_pope_seeds3-8
$B/popebench extrapolate "${common[@]}" --pe rope,pope --seeds 9,10,11,12,13,14 --time-limit 380 --out /tmp/exar3  # rope_pope_seeds9-14
$B/popebench extrapolate "${common[@]}" --pe pope-delta0,alibi --seeds 3,4,5,6,7,8 --time-limit 250 --out /tmp/exar4  # pope-delta0_alibi_seeds3-8
# Then, on the development machine: one table over these and the first three seeds of every PE,
#   popebench merge results/length_extrapolation/associative_recall_pairs2-8_100k \
#     $D/rope_pope_seeds3-8 $D/rope_pope_seeds9-14 $D/pope-delta0_alibi_seeds3-8 --out $D/extrapolation.json
#   /usr/bin/python3 results/plot.py $D $D/rope_pope_seeds3-8 $D/rope_pope_seeds9-14 $D/pope-delta0_alibi_seeds3-8
#   /usr/bin/python3 results/compare_seeds.py $D pope rope --above 40
# with D=results/length_extrapolation/associative_recall_pairs2-8_100k_more_seeds.
