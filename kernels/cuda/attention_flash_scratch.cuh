// The flash kernels' bf16 copies (AttentionArgs::flash_scratch): every row the kernels read,
// with the PE applied and rounded to bf16 once per call by one pass (attention_flash_copies.cu),
// instead of by every block that reads it (a key tile is read by ~T / 128 query blocks on
// average; bench/log/033). The kernels then copy whole tiles into shared memory with cp.async.
//   K  (B, H, Tp, DQ) the transformed keys: RoPE rotated, PoPE's [mu cos(a + delta), mu sin(a + delta)]
//   V  (B, H, Tp, D)  the values
//   Q  (B, H, Tp, DQ) the transformed queries, times the score's scale
//   dO (B, H, Tp, D)  the output's gradient                             (backward only)
//   L  (B, H, Tp)     the forward's lse times log2 e (P = 2^(S log2 e - L)) (backward only)
//   Di (B, H, Tp)     dO . O per query row                              (backward only)
// Tp is T rounded up to a multiple of kRowsPad; the rows from T on are zeros (L, Di: 0), so a
// kernel copies whole tiles without a bound check and reads the padding with weight 0, as it read
// the zero rows it wrote itself before.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>

#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda::attn {

struct FlashScratch {
  static constexpr int kRowsPad = 64;  // a multiple of every flash tile (64 keys; 64 and 32 queries)
  int H = 0, Tp = 0, D = 0, DQ = 0;
  __nv_bfloat16 *K = nullptr, *V = nullptr, *Q = nullptr, *dO = nullptr;
  float *L = nullptr, *Di = nullptr;

  __host__ __device__ static int padded(int T) { return (T + kRowsPad - 1) / kRowsPad * kRowsPad; }
  __host__ __device__ static size_t bytes(int B, int T, int H, int D, int DQ) {
    const size_t rows = size_t(B) * H * padded(T);
    return rows * (2 * (2 * size_t(DQ) + 2 * size_t(D)) + 2 * sizeof(float));
  }
  // The regions laid out in that order from base (cudaMalloc's alignment): every region's size is
  // a multiple of 128 bytes (Tp of 64 rows, DQ and D multiples of 16), so every row is 16-byte
  // aligned for cp.async.
  __host__ __device__ FlashScratch(void* base, int B, int T, int H_, int D_, int DQ_)
      : H(H_), Tp(padded(T)), D(D_), DQ(DQ_) {
    const size_t rows = size_t(B) * H * Tp;
    auto* p = static_cast<unsigned char*>(base);
    K = reinterpret_cast<__nv_bfloat16*>(p), p += rows * DQ * 2;
    V = reinterpret_cast<__nv_bfloat16*>(p), p += rows * D * 2;
    Q = reinterpret_cast<__nv_bfloat16*>(p), p += rows * DQ * 2;
    dO = reinterpret_cast<__nv_bfloat16*>(p), p += rows * D * 2;
    L = reinterpret_cast<float*>(p), p += rows * sizeof(float);
    Di = reinterpret_cast<float*>(p);
  }
  // Row t of batch row b, head h, in the row-indexed regions.
  __host__ __device__ size_t row(int b, int h, int t) const { return (size_t(b) * H + h) * Tp + t; }
};

// a.flash_scratch laid out for a's shape (attention.cu has checked that it is large enough).
FlashScratch flash_scratch_of(const AttentionArgs& a);
// Writes the copies of a's call into a.flash_scratch (attention_flash_copies.cu): K, V and Q for
// the forward (out == nullptr), and dO, L and Di too for the backward (out, dout and lse given).
void write_flash_copies(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                        const float* lse, cudaStream_t s);

}  // namespace popebench::cuda::attn
