#!/usr/bin/env bash
# Device calls of 2026-12-06 (17:37-17:40 UTC, one H100 80GB HBM3, driver 580.159.04), on the
# machine of the screen's calls (results/indirect_indexing/screen/stage2/device_command.sh,
# session of 17:21), binaries built from commit 42f0232 and carried gzipped in .devgz/ with
# libgomp.so.1; PyTorch 2.11 on the machine.
mkdir -p .devbin && for f in .devgz/*.gz; do gzip -dc "$f" > .devbin/$(basename "$f" .gz); done
chmod +x .devbin/popebench* && cp .devgz/libgomp.so.1 .devbin/
# 1. The flash tests alone (after the screen's job): h100_cuda_tests_42f0232_flash.log.
(cd .devbin && timeout 120 ./popebench_cuda_tests "*flash*" > $OUT/flash_tests.log 2>&1)
# 2. The attention comparison (bench/log/032): popebench stopped at PoPE T 1024 on an illegal
#    address (h100_popebench_42f0232_flash_partial.log); PyTorch's half ran in full
#    (h100_torch_attention_42f0232.{json,log}).
timeout 380 bash bench/run_attention_bench.sh $OUT/att .devbin/popebench 10
# 3. compute-sanitizer on the flash tests (h100_compute_sanitizer_42f0232_flash.log), which named
#    angle_table_kernel (fixed in d940f78).
(cd .devbin && timeout 150 compute-sanitizer --print-limit 5 ./popebench_cuda_tests "*flash*" > $OUT/sanitizer.log 2>&1)
