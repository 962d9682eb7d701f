// The flash kernels on bf16 tensor cores with mma.sync (attention_flash.cu, any compute capability
// from 8.0): what attention_fwd / attention_bwd run for AttentionArgs::bf16_flash where the
// warpgroup kernels (attention_flash_wgmma.hpp) do not, called directly by bench and the tests to
// time and check both families on a GPU that runs both.
#pragma once
#include <cuda_runtime.h>

#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda::attn {

void attention_fwd_flash(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s);
void attention_bwd_flash(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                         const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s);
// Its copies and dK, dV kernel alone (dK, dV and PoPE's per-key delta terms into dqkv and
// ddelta_part), leaving dQ to attention_flash_wgmma_bwd.cu's kernel, which reads the same copies.
void attention_bwd_flash_dkdv(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                              const float* lse, float* dqkv, float* ddelta_part, cudaStream_t s);

}  // namespace popebench::cuda::attn
