// The flash forward and backward on Hopper's warpgroup products (attention_flash_wgmma_fwd.cu,
// _bwd.cu; built for sm_90a only): the same inputs, outputs and copies as attn::attention_fwd_flash and
// attention_bwd_flash (attention_flash.hpp; a.bf16_flash, the flash scratch), head dims 64 and 128
// on a compute capability 9.0 GPU, where attention_fwd / attention_bwd run them.
#pragma once
#include <cuda_runtime.h>

#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda::attn {

// Whether attention_fwd_flash_wgmma runs a's shape on the current device.
bool flash_wgmma_runs(const AttentionArgs& a);
// The warpgroup forward's kernels (bench/log/039, 040), each giving the same bits: one warpgroup a
// block owning 64 queries; two (128 queries a block sharing each key tile); one with each tile's
// softmax under the tensor cores' products of the next. kChosen: attention_fwd's choice for a's D,
// PE and ALiBi (two groups for PoPE at D 128; overlapped for none and RoPE at D 128, PoPE at D 64
// and ALiBi; one group for none and RoPE at D 64; fwd_kernel in attention_flash_wgmma_fwd.cu says
// why). bench and the GPU tests name the others.
enum class WgFwdKernel { kChosen, kOneGroup, kTwoGroups, kOverlapped };
void attention_fwd_flash_wgmma(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s,
                               WgFwdKernel kernel = WgFwdKernel::kChosen);
// The backward as attn::attention_bwd_flash, with the dQ kernel on warpgroup products (the copies
// and the dK, dV kernel are attention_flash.cu's): bench/log/037's backward, kept as the baseline
// that bench times the one below against.
void attention_bwd_flash_wgmma(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                               const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s);
// The same with the dK, dV kernel on warpgroup products too (bench/log/038): what attention_bwd
// runs on Hopper.
void attention_bwd_flash_wgmma_kv(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                                  const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part,
                                  cudaStream_t s);

}  // namespace popebench::cuda::attn
