#!/usr/bin/env bash
# How the files in this folder were made: session 7, device call 1 on one `nvidia-h200-x2` machine
# (2026-11-29, 22:51-23:00 UTC), commit e021e0d (binary built on the development machine, Release,
# CUDA arch 90, carried in .device/ and copied to /tmp/bin there). The call ran the GPU tests first
# (all passed: 1689 assertions in 17 test cases), then started this command and the six Table 9 runs
# of ../../indirect_indexing/paper_100k/device_command_table9_s7.sh side by side with setsid, so that
# they outlived the call (the script: .device/s7.sh of that session, reproduced below). The 27 runs
# trained at once, 14 on GPU 0 and 13 on GPU 1 (run k on GPU k % 2; environment.gpu_index), next to
# three 8-layer Indirect Indexing runs per GPU: 218-226 steps/s each, 446-461 s of wall time per run.
# No time limit: every run is complete.
# The quick preset's 2-layer model (d 64) with 2 heads, so that the head dim is 32, which the GPU
# attention kernels have (they have 32, 64 and 128; the CPU probe of ../cpu_probes/ had 4 heads of
# 16). Strings 6-10, shifts +-2, 100 symbols (10x = 100 symbols, all unique), 100,000 steps on
# 6,400,000 training examples (= 100,000 x 64: each seen once). Log: indirect_indexing_strings6-10_100k.log.
B=/tmp/bin; export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64
$B/popebench extrapolate --preset quick --heads 2 --task indirect-indexing --min-len 6 --max-len 10 \
  --max-shift 2 --alphabet 100 --steps 100000 --n-train 6400000 --eval-every 2000 \
  --pe rope,pope,pope-delta0,alibi,none,rope-half,alibi-half,learned,sinusoidal --seeds 0,1,2 \
  --gpus 2 --concurrent 14 --log-every 10000 --out /tmp/exii
# Figures: /usr/bin/python3 results/plot.py results/length_extrapolation/indirect_indexing_strings6-10_100k
# .device/s7.sh (session 7), called as `bash .device/s7.sh 570 start`, then `bash .device/s7.sh 580`:
# #!/usr/bin/env bash
# # Session 7 device calls. $1 = seconds this call may use; $2 = "start" on the first call.
# # The first call runs the GPU tests, then starts three jobs in their own process sessions (setsid)
# # so that they outlive the call: Indirect Indexing extrapolation (strings 6-10, shifts +-2, 100
# # symbols, fresh data, 100k steps, quick preset with 2 heads, nine PEs x 3 seeds) and the six
# # missing Table 9 runs (seed 1 of rope-half, alibi-half, learned, sinusoidal; seed 0 of learned,
# # sinusoidal), as two commands so that each GPU trains three of them (run k goes to GPU k % 2).
# # Every call then waits until all end or its time is up, and sends back what is written so far.
# set -o pipefail
# export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# B=/tmp/bin; export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64
# T0=$(date +%s); date -u; mkdir -p $OUT/r
# if [ "$2" = start ]; then
#   nvidia-smi -L; mkdir -p $B; cp -r .device/popebench .device/popebench_cuda_tests .device/lib $B/  # a later call replaces .device
#   $B/popebench --version
#   $B/popebench_cuda_tests > $OUT/r/cuda_tests.log 2>&1; trc=$?
#   echo "cuda tests rc=$trc $(( $(date +%s)-T0 )) s"; tail -3 $OUT/r/cuda_tests.log
#   [ $trc -eq 0 ] || exit 1
#   NG=$(nvidia-smi -L | wc -l)
#   setsid bash -c "$B/popebench extrapolate --preset quick --heads 2 --task indirect-indexing --min-len 6 --max-len 10 \
#     --max-shift 2 --alphabet 100 --steps 100000 --n-train 6400000 --eval-every 2000 \
#     --pe rope,pope,pope-delta0,alibi,none,rope-half,alibi-half,learned,sinusoidal --seeds 0,1,2 \
#     --gpus $NG --concurrent $(( (27 + NG - 1) / NG )) --log-every 10000 --out /tmp/exii > /tmp/exii.log 2>&1; echo rc=\$? >> /tmp/exii.log" &
#   setsid bash -c "$B/popebench reproduce indirect-indexing --preset paper --pe rope-half,alibi-half,learned,sinusoidal --seeds 1 \
#     --gpus $NG --concurrent $(( (4 + NG - 1) / NG )) --gpu-matmul bf16 --log-every 5000 --out /tmp/t9s1 > /tmp/t9s1.log 2>&1; echo rc=\$? >> /tmp/t9s1.log" &
#   setsid bash -c "$B/popebench reproduce indirect-indexing --preset paper --pe learned,sinusoidal --seeds 0 \
#     --gpus $NG --concurrent $(( (2 + NG - 1) / NG )) --gpu-matmul bf16 --log-every 5000 --out /tmp/t9s0 > /tmp/t9s0.log 2>&1; echo rc=\$? >> /tmp/t9s0.log" &
#   sleep 5
# fi
# while [ $(( $(date +%s)-T0 )) -lt $(( $1 - 25 )) ]; do
#   grep -q '^rc=' /tmp/exii.log && grep -q '^rc=' /tmp/t9s1.log && grep -q '^rc=' /tmp/t9s0.log && break
#   sleep 5
# done
# echo "--- exii $(( $(date +%s)-T0 )) s"; tail -4 /tmp/exii.log; ls /tmp/exii/eval 2>/dev/null | wc -l
# echo "--- t9s1"; tail -4 /tmp/t9s1.log
# echo "--- t9s0"; tail -4 /tmp/t9s0.log
# nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv
# tar czf $OUT/s7.tgz -C /tmp --exclude='*.ckpt' exii exii.log t9s1 t9s1.log t9s0 t9s0.log 2>/dev/null
# echo "done $(( $(date +%s)-T0 )) s"
