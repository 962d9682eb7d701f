// What the warpgroup flash kernels share (attention_flash_wgmma_fwd.cu, attention_flash_wgmma_bwd.cu;
// sm_90a only): cp.async copies into 128-byte-swizzled tiles, the loop's head over double-buffered
// tiles, and the two products every kernel issues, S = A B^T from two tiles and D += P X with P
// from registers (kernels/cuda/wgmma_bf16.cuh has the layouts and descriptors).
#pragma once
#include <cuda_bf16.h>

#include "kernels/cuda/attention_flash_scratch.cuh"
#include "kernels/cuda/attention_flash_tile.cuh"
#include "kernels/cuda/cp_async.cuh"
#include "kernels/cuda/mma_bf16.cuh"
#include "kernels/cuda/wgmma_bf16.cuh"

namespace popebench::cuda::attn {
namespace {

using bf16 = __nv_bfloat16;
namespace wg = wgmma;

// The block's NThreads threads start cp.async copies of Rows rows of W bf16 (rows contiguous in
// src) into an sw128 tile; each thread keeps one 16-byte column chunk and steps down the rows.
template <int W, int Rows, int NThreads = kThreads>
__device__ __forceinline__ void copy_rows_sw128(unsigned char* tile, const bf16* src) {
  constexpr int kChunks = W / 8;
  static_assert(NThreads % kChunks == 0 && Rows * kChunks % NThreads == 0, "whole rows per pass");
  const int c = threadIdx.x % kChunks, r0 = threadIdx.x / kChunks;
#pragma unroll
  for (int j = 0; j < Rows * kChunks / NThreads; ++j) {
    const int r = r0 + j * (NThreads / kChunks);
    async_copy::copy16(tile + wg::sw128_offset(Rows, r, 8 * c), src + size_t(r) * W + 8 * c);
  }
}

// Starts the block's copies of key tile k0 (keys and values, from the call's copies) into sw128
// tiles K and V, and commits them.
template <int D, int DQ, int NThreads = kThreads>
__device__ __forceinline__ void start_key_tile_sw128(const FlashScratch& fs, int b, int h, int k0, unsigned char* K,
                                                     unsigned char* V) {
  const size_t row = fs.row(b, h, k0);
  copy_rows_sw128<DQ, kTileK, NThreads>(K, fs.K + row * DQ);
  copy_rows_sw128<D, kTileK, NThreads>(V, fs.V + row * D);
  async_copy::commit();
}

// The loop's head, the same in every kernel: the next tile's copies start (start_tile(at + Step,
// buf ^ 1)) before this tile's are waited for, and their writes are made visible to every warp's
// products.
template <int Step = kTileK, typename Start>
__device__ __forceinline__ void next_tile_in(int it, int tiles, int at, int buf, Start&& start_tile) {
  if (it + 1 < tiles) {
    start_tile(at + Step, buf ^ 1);
    async_copy::wait<1>();
  } else {
    async_copy::wait<0>();
  }
  wg::fence_proxy_async();  // the copies' writes, before the tensor cores read them
  __syncthreads();
}

// d (64 rows of A x NB rows of B) = A B^T over W columns, A an sw128 tile of 64 rows (queries or
// dO; keys or values in the dK dV kernel), B one of NB rows (keys or values; queries or dO):
// W / 16 products, 16 columns an instruction, 32 bytes into a 128-byte row of a column block (a
// tile's column blocks are its rows x 128 bytes apart). Issued, not waited for.
template <int W, int NB = kTileK>
__device__ __forceinline__ void rows_times_keys(float (&d)[NB / 2], const unsigned char* A, const unsigned char* B) {
#pragma unroll
  for (int kk = 0; kk < W / 16; ++kk) {
    const int in = 32 * (kk % 4), off_a = kk / 4 * 64 * 128 + in, off_b = kk / 4 * NB * 128 + in;
    wg::mma_ss<NB>(d, wg::sw128_desc(A + off_a, 16, 1024), wg::sw128_desc(B + off_b, 16, 1024), kk > 0);
  }
}

// d (the block's 64 rows x N) += P X over a tile's R rows, P in the registers of a (64, R)
// accumulator (rounded to bf16), X an sw128 tile of R rows, N wide, as the MN-major operand (the
// values for O += P V and the keys for dQ += dS K, R = 64 keys; dO for dV += P^T dO and the
// queries for dK' += dS^T Q, R = 32 queries): 16 rows an instruction from row 16 j, the column
// blocks R x 128 bytes apart. Issued, not waited for. Every A operand is packed before the fence:
// registers written between a warpgroup's products make ptxas serialise them (its C7519 note,
// "warpgroup.arrive is injected"); so a kernel that issues two such products as one group (the dK
// dV kernel) packs both (pack_keys_operand), fences once, then issues both (keys_times).
template <int R>
__device__ __forceinline__ void pack_keys_operand(mma::FragA (&a)[R / 16], const mma::Acc (&p)[R / 8]) {
#pragma unroll
  for (int j = 0; j < R / 16; ++j) a[j] = mma::pack_a_from_acc(p[2 * j], p[2 * j + 1]);
}
template <int N, int R>
__device__ __forceinline__ void keys_times(float (&d)[N / 2], const mma::FragA (&a)[R / 16], const unsigned char* X) {
#pragma unroll
  for (int j = 0; j < R / 16; ++j) wg::mma_rs_mn<N>(d, a[j].r, wg::sw128_desc(X + 16 * j * 128, R * 128, 1024), 1);
}
// One such product over a key tile (R = 64): pack, fence, issue.
template <int N>
__device__ __forceinline__ void acc_times_keys(float (&d)[N / 2], const mma::Acc (&p)[kTileK / 8],
                                               const unsigned char* X) {
  mma::FragA a[kTileK / 16];
  pack_keys_operand<kTileK>(a, p);
  wg::fence();
  keys_times<N, kTileK>(d, a, X);
}

}  // namespace
}  // namespace popebench::cuda::attn
