#!/usr/bin/env bash
# How the files in this folder were made: session 6, device calls 1 and 2 on one `nvidia-h200-x2`
# machine (2026-11-29, 20:41-20:56 UTC), commit 827cb1c (binary built on the development machine,
# Release, CUDA arch 90, carried in .device/ and copied to /tmp/bin there). Call 1 ran the GPU tests
# first (all passed: 1689 assertions in 17 test cases), then started this command and
# ../../indirect_indexing/more_data_6400k/'s seeds 1 and 2 side by side with setsid, so that both
# outlived the call (the script: .device/s6.sh of that session, reproduced below). The 27 runs
# trained at once, 14 on GPU 0 and 13 on GPU 1 (run k on GPU k % 2; environment.gpu_index), next
# to two 8-layer Indirect Indexing runs per GPU: 133-135 steps/s each, 746-754 s of wall time per
# run, all 27 in 12.6 minutes. No time limit: every run is complete.
# The extrapolation preset (4 layers, d 128, 4 heads, lr 1e-3 -> 1e-4, warmup 500, batch 64) with
# 2-8 pairs, 80 key symbols (the fewest that 10x of 8 pairs allows), 100,000 steps and 6,400,000
# training examples (= 100,000 x 64: each seen once). Log: associative_recall_pairs2-8_100k.log.
B=/tmp/bin; export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64
$B/popebench extrapolate --task associative-recall --min-len 2 --max-len 8 --alphabet 80 --steps 100000 \
  --n-train 6400000 --pe rope,pope,pope-delta0,alibi,none,rope-half,alibi-half,learned,sinusoidal --seeds 0,1,2 \
  --gpus 2 --concurrent 14 --eval-every 2000 --log-every 10000 --out /tmp/exar
# Figures: /usr/bin/python3 results/plot.py results/length_extrapolation/associative_recall_pairs2-8_100k
# .device/s6.sh (session 6):
# #!/usr/bin/env bash
# # Session 6 device calls. $1 = seconds this call may use; $2 = "start" on the first call.
# # The first call runs the GPU tests, then starts two jobs in their own process sessions (setsid)
# # so that they outlive the call: associative-recall extrapolation (2-8 pairs, 80 keys, fresh data,
# # 100k steps, nine PEs x 3 seeds) and Indirect Indexing with 6.4M examples (RoPE, PoPE, seeds 1, 2).
# # Every call then waits until both end or its time is up, and sends back what is written so far.
# set -o pipefail
# export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# B=/tmp/bin; export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64
# T0=$(date +%s); date -u; mkdir -p $OUT/r
# if [ "$2" = start ]; then
#   nvidia-smi -L; mkdir -p $B; cp -r .device/popebench .device/popebench_cuda_tests .device/lib $B/  # a later call replaces .device
#   $B/popebench_cuda_tests > $OUT/r/cuda_tests.log 2>&1; trc=$?
#   echo "cuda tests rc=$trc $(( $(date +%s)-T0 )) s"; tail -3 $OUT/r/cuda_tests.log
#   [ $trc -eq 0 ] || exit 1
#   NG=$(nvidia-smi -L | wc -l)
#   setsid bash -c "$B/popebench extrapolate --task associative-recall --min-len 2 --max-len 8 --alphabet 80 --steps 100000 \
#     --n-train 6400000 --pe rope,pope,pope-delta0,alibi,none,rope-half,alibi-half,learned,sinusoidal --seeds 0,1,2 \
#     --gpus $NG --concurrent $(( (27 + NG - 1) / NG )) --eval-every 2000 --log-every 10000 --out /tmp/exar > /tmp/exar.log 2>&1; echo rc=\$? >> /tmp/exar.log" &
#   setsid bash -c "$B/popebench reproduce indirect-indexing --preset paper --pe rope,pope --seeds 1,2 --n-train 6400000 \
#     --gpus $NG --concurrent $(( (4 + NG - 1) / NG )) --gpu-matmul bf16 --log-every 5000 --out /tmp/moredata > /tmp/moredata.log 2>&1; echo rc=\$? >> /tmp/moredata.log" &
#   sleep 5
# fi
# while [ $(( $(date +%s)-T0 )) -lt $(( $1 - 20 )) ]; do
#   grep -q '^rc=' /tmp/exar.log && grep -q '^rc=' /tmp/moredata.log && break
#   sleep 5
# done
# echo "--- exar $(( $(date +%s)-T0 )) s"; tail -5 /tmp/exar.log; ls /tmp/exar/eval 2>/dev/null | wc -l
# echo "--- moredata"; tail -6 /tmp/moredata.log
# nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv
# tar czf $OUT/s6.tgz -C /tmp --exclude='*.ckpt' exar exar.log moredata moredata.log 2>/dev/null
# echo "done $(( $(date +%s)-T0 )) s"
