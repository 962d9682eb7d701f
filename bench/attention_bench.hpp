// `popebench bench`'s timing of the fused attention kernels alone (bench/attention_bench.cu,
// compiled into the CLI where CUDA is): forward and backward at one shape, with CUDA events,
// median of `iters` after `warmup`, the fp32 kernels and the bf16 flash ones; JSON with the times
// and TFLOP/s.
#pragma once
#include <nlohmann/json.hpp>

#include "kernels/cuda/kernels.hpp"

namespace popebench {

nlohmann::json cuda_benchmark_attention(int B, int T, int H, int D, cuda::PEKind pe, int warmup, int iters);

}  // namespace popebench
