// The flash forward on Hopper's warpgroup products (attention_flash_wgmma.cu, built for sm_90a
// only): the same inputs, outputs and copies as attn::attention_fwd_flash (a.bf16_flash, the
// flash scratch), head dims 64 and 128 on a compute capability 9.0 GPU.
#pragma once
#include <cuda_runtime.h>

#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda::attn {

// Whether attention_fwd_flash_wgmma runs a's shape on the current device.
bool flash_wgmma_runs(const AttentionArgs& a);
void attention_fwd_flash_wgmma(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s);

}  // namespace popebench::cuda::attn
