// bf16 tensor-core products with their operands and results in registers (sm_80 and later):
// PTX's mma.sync m16n8k16 with fp32 accumulation, and ldmatrix to load its operands from shared
// memory. The fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16"), for lane l,
// g = l / 4 and c = 2 (l % 4):
//   A (16 x 16, row-major), 4 registers of 2 bf16: a0 (row g, cols c, c+1), a1 (row g+8, cols
//     c, c+1), a2 (row g, cols c+8, c+9), a3 (row g+8, cols c+8, c+9);
//   B (16 x 8, "col": B[k][n]), 2 registers: b0 (rows k = c, c+1, col n = g), b1 (rows c+8, c+9);
//   C, D (16 x 8, fp32), 4 floats: (row g, cols c, c+1), then (row g+8, cols c, c+1).
// So an accumulator's two n-tiles of 8 columns are, rounded to bf16, the A fragment of the next
// product over those 16 columns (FlashAttention-2's P in registers: pack_a_from_acc).
#pragma once
#include <cstdint>

#include <cuda_bf16.h>

namespace popebench::cuda::mma {

struct FragA {
  uint32_t r[4];
};
struct FragB {
  uint32_t r[2];
};
struct Acc {
  float v[4] = {0.f, 0.f, 0.f, 0.f};
};

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Four 8 x 8 bf16 matrices; lanes 8i..8i+7 give the addresses of matrix i's rows (16 bytes each),
// and register i receives matrix i (lane l: row l / 4, elements 2 (l % 4), +1).
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(row)));
}
// The same, each matrix transposed (lane l receives column l / 4, rows 2 (l % 4), +1).
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(row)));
}

// d += a b (16 x 8 += (16 x 16) (16 x 8)), bf16 operands, fp32 accumulation.
__device__ __forceinline__ void mma_bf16(Acc& d, const FragA& a, const uint32_t b0, const uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d.v[0]), "+f"(d.v[1]), "+f"(d.v[2]), "+f"(d.v[3])
      : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b0), "r"(b1));
}

// Two floats as bf16x2, lo in the low half (the lower column of a fragment's pair).
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

// The A fragment of a 16 x 16 block from a row-major bf16 matrix in shared memory (row stride
// `ld` elements, a multiple of 8): rows r0..r0+15, columns k0..k0+15.
__device__ __forceinline__ FragA load_a(const __nv_bfloat16* m, int ld, int r0, int k0, int lane) {
  FragA f;
  const int row = r0 + (lane & 7) + ((lane >> 3) & 1) * 8, col = k0 + (lane >> 4) * 8;
  ldmatrix_x4(f.r, m + row * ld + col);
  return f;
}
// B fragments of two n-tiles (n0..n0+7 and n0+8..n0+15) over k0..k0+15 for the product A X^T,
// X stored row-major with a row per n (B[k][n] = X[n][k]: keys for S = Q K^T): b[0], b[1] the
// first tile's b0, b1, b[2], b[3] the second's.
__device__ __forceinline__ void load_b_rows(uint32_t (&b)[4], const __nv_bfloat16* x, int ld, int n0, int k0, int lane) {
  const int row = n0 + (lane & 7) + (lane >> 4) * 8, col = k0 + ((lane >> 3) & 1) * 8;
  ldmatrix_x4(b, x + row * ld + col);
}
// B fragments of two n-tiles (n0.., n0+8..) over k0..k0+15 for the product A X, X stored
// row-major with a row per k (B[k][n] = X[k][n]: values for O = P V), through the transposing load.
__device__ __forceinline__ void load_b_cols(uint32_t (&b)[4], const __nv_bfloat16* x, int ld, int k0, int n0, int lane) {
  const int row = k0 + (lane & 7) + ((lane >> 3) & 1) * 8, col = n0 + (lane >> 4) * 8;
  ldmatrix_x4_trans(b, x + row * ld + col);
}
// The A fragment over columns 16 j..16 j+15 made of accumulators acc[2 j] and acc[2 j + 1]
// (each 16 x 8), rounded to bf16.
__device__ __forceinline__ FragA pack_a_from_acc(const Acc& lo, const Acc& hi) {
  return {{pack_bf16(lo.v[0], lo.v[1]), pack_bf16(lo.v[2], lo.v[3]), pack_bf16(hi.v[0], hi.v[1]),
           pack_bf16(hi.v[2], hi.v[3])}};
}

}  // namespace popebench::cuda::mma
