// `popebench bench`'s timing of the fused attention kernels alone (bench/attention_bench.cu,
// compiled into the CLI where CUDA is): forward and backward at one shape, with CUDA events,
// median of `iters` after `warmup`, the fp32 kernels and the bf16 flash ones; JSON with the times
// and TFLOP/s.
#pragma once
#include <nlohmann/json.hpp>

#include "model/pe/pe_registry.hpp"

namespace popebench {

// pe: a PE as the CUDA backend runs it (the registry's GpuPE for H heads of D, e.g. one of
// gpu_attention_paths; its table, added to the embedding, is not attention's).
nlohmann::json cuda_benchmark_attention(int B, int T, int H, int D, const GpuPE& pe, int warmup, int iters);

}  // namespace popebench
