// Causal attention on bf16 tensor cores for long sequences (AttentionArgs::bf16_flash), forward:
// FlashAttention-2's loop (a block owns 64 query rows, streams the keys in tiles of 64, keeps the
// softmax's running max and sum per row in fp32 and never holds a T x T buffer), with the PE
// applied to each tile as it is loaded, exactly as the fp32 kernels apply it (attention_common.cuh's
// load_transformed: RoPE's rotation, PoPE's [mu cos, mu sin] with the key phase delta, angles in
// double reduced mod 2 pi), then rounded to bf16. PoPE's 2D-wide queries and keys exist only in
// shared memory. ALiBi's bias, masked left pads and learned temperatures as the fp32 kernels.
//
// Forward products: mma.sync m16n8k16 (kernels/cuda/mma_bf16.cuh), bf16 operands loaded with
// ldmatrix, fp32 accumulation, in FlashAttention-2's layout: each warp owns 16 query rows; its
// scores S (16 x 64) stay in registers, where the mask, the bias and the online softmax apply
// (a row's max and sum over the 4 lanes that hold it), and become, rounded to bf16, the A
// operand of O += P V; O (16 x D, fp32) stays in registers to the end. The first version (wmma,
// S, P and O through shared memory) ran at 1.5-2 % of the bf16 peak (bench/log/031); entry 032
// says what this one is predicted to do.
//
// The backward in FlashAttention-2's form, deterministic (no atomics: every gradient element is
// written by one warp), still on wmma tiles in shared memory: one kernel per block of 64 keys for
// dK, dV and PoPE's per-key delta terms (query tiles of 32 streamed past them), one per block of
// 64 queries for dQ and the log-temperature terms (key tiles of 64). Both recompute P from the
// same bf16 operands the forward used (queries rounded after their scaling) and the forward's
// lse; dS is rounded to bf16 for its products, as FlashAttention-2 does.
#include <mma.h>

#include <type_traits>

#include <cuda_bf16.h>

#include "kernels/cuda/attention_common.cuh"
#include "kernels/cuda/mma_bf16.cuh"

namespace popebench::cuda::attn {

namespace {

namespace wmma = nvcuda::wmma;
using bf16 = __nv_bfloat16;

constexpr int kRows = 16;                   // query rows per warp: one wmma tile
constexpr int kWarps = 4;
constexpr int kBlockQ = kRows * kWarps;     // 64 query rows per block
constexpr int kTileK = 64;                  // keys per tile
constexpr int kThreads = 32 * kWarps;

// Rows of bf16 in shared memory are padded by 8 elements (16 bytes): wmma wants leading
// dimensions that are multiples of 8 and 32-byte aligned tiles, ldmatrix 16-byte aligned rows, and
// the pad puts the 8 rows one ldmatrix reads (or a wmma tile's rows) in different banks.
constexpr size_t smem_up(size_t bytes) { return (bytes + 127) / 128 * 128; }

// Shared memory of the forward: the block's 64 queries (transformed and scaled), one tile of 64
// keys (transformed) and their values, all bf16.
template <int D, PEKind PE>
struct FlashFwdSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static constexpr int LQ = DQ + 8, LV = D + 8;  // row strides
  static constexpr size_t kQ = 0;
  static constexpr size_t kK = kQ + smem_up(sizeof(bf16) * kBlockQ * LQ);
  static constexpr size_t kV = kK + smem_up(sizeof(bf16) * kTileK * LQ);
  static constexpr size_t bytes = kV + smem_up(sizeof(bf16) * kTileK * LV);

  bf16 *Q, *K, *V;  // (64, LQ) queries, (64, LQ) keys, (64, LV) values
  __device__ explicit FlashFwdSmem(unsigned char* base)
      : Q(reinterpret_cast<bf16*>(base + kQ)), K(reinterpret_cast<bf16*>(base + kK)),
        V(reinterpret_cast<bf16*>(base + kV)) {}
};

// One warp writes the bf16 row dst (DQ wide): the PE-transformed x at position pos (times mul),
// each value rounded once from fp32; x == nullptr writes zeros (rows past T, read with weight 0).
template <int D, PEKind PE, bool KEY>
__device__ void load_row_bf16(const float* x, int pos, const AttentionArgs& a, const float* delta_h, float mul,
                              bf16* dst, int lane) {
  constexpr int DQ = Dims<D, PE>::DQ;
  if (!x) {
    for (int c = lane; c < DQ; c += 32) dst[c] = __float2bfloat16_rn(0.f);
    return;
  }
  load_transformed<D, PE, KEY>(x, pos, a.theta, delta_h, a.n_rot, mul, dst, lane);
}

// One warp loads key s of row b, head h into its tile rows: the PE-transformed key (PoPE with the
// phase delta_h) and the value, both in bf16; s past T gives zero rows (read with weight 0).
template <int D, PEKind PE>
__device__ void load_key_row_bf16(const AttentionArgs& a, const float* qkv, int b, int h, int s, const float* delta_h,
                                  bf16* Krow, bf16* Vrow, int lane) {
  const int C = a.H * D;
  const float* krow = s < a.T ? Ptrs{a.T, a.H, C}.q(qkv, b, s, h, D) + C : nullptr;
  load_row_bf16<D, PE, true>(krow, s, a, delta_h, 1.f, Krow, lane);
  for (int c = lane; c < D; c += 32) Vrow[c] = __float2bfloat16_rn(krow ? krow[C + c] : 0.f);
}

// C (16 x 16, fp32, shared memory, row-major, ldc) = A B, or += A B (Accumulate): A (16 x K, bf16,
// row-major, lda) and B (K x 16, bf16) stored row-major (B[k][n] at b[k ldb + n]) or, with
// TransposedB, as the rows of B^T (B[k][n] at b[n ldb + k]: K^T or V^T read from the rows of K or V).
template <int K, bool TransposedB, bool Accumulate>
__device__ __forceinline__ void tile_mma(float* c, int ldc, const bf16* a, int lda, const bf16* b, int ldb) {
  using LayoutB = std::conditional_t<TransposedB, wmma::col_major, wmma::row_major>;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  if constexpr (Accumulate)
    wmma::load_matrix_sync(acc, c, ldc, wmma::mem_row_major);
  else
    wmma::fill_fragment(acc, 0.f);
#pragma unroll 4
  for (int kk = 0; kk < K / 16; ++kk) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, LayoutB> fb;
    wmma::load_matrix_sync(fa, a + kk * 16, lda);
    wmma::load_matrix_sync(fb, TransposedB ? b + kk * 16 : b + kk * 16 * ldb, ldb);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c, acc, ldc, wmma::mem_row_major);
}
// One warp's C (16 x N) = A (16 x K) B (K x N), or += it: tile_mma over N's 16-column blocks.
template <int K, int N, bool TransposedB, bool Accumulate>
__device__ __forceinline__ void warp_mma(float* c, int ldc, const bf16* a, int lda, const bf16* b, int ldb) {
#pragma unroll
  for (int n = 0; n < N / 16; ++n)
    tile_mma<K, TransposedB, Accumulate>(c + n * 16, ldc, a, lda, TransposedB ? b + n * 16 * ldb : b + n * 16, ldb);
}

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads) attention_fwd_flash_kernel(AttentionArgs a, const float* qkv, float* out,
                                                                      float* lse) {
  using Sm = FlashFwdSmem<D, PE>;
  constexpr int DQ = Sm::DQ;
  constexpr int NS = kTileK / 8, NO = D / 8;  // the n-tiles (8 columns each) of S and of O
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);  // the accumulator rows (g, g + 8) and columns (c2, c2 + 1) of a lane
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBlockQ, T = a.T, C = a.H * D;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  const Ptrs Pt{T, a.H, C};
  const int r0 = w * kRows;  // this warp's first row in the block

  // Queries, transformed and scaled (the score's multiplier folded in, as the fp32 kernels do).
  const float mul = head_scale(a, b, h);
  for (int r = r0; r < r0 + kRows; ++r) {
    const int t = q0 + r;
    load_row_bf16<D, PE, false>(t < T ? Pt.q(qkv, b, t, h, D) : nullptr, t, a, nullptr, mul, sm.Q + r * Sm::LQ, lane);
  }
  // This lane's two rows: [0] row g of the warp's 16, [1] row g + 8.
  const int t_row[2] = {q0 + r0 + g, q0 + r0 + g + 8};
  int first[2];
  for (int i = 0; i < 2; ++i) first[i] = t_row[i] < T ? first_key(a, b, t_row[i]) : 0;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};  // running max and sum
  mma::Acc o[NO];                                           // O: (16, D) as NO tiles of (16, 8)

  const float* delta_h = head_delta(a, b, h, D);
  const int last_key = min(q0 + kBlockQ, T) - 1;
  const int warp_last_row = min(q0 + r0 + kRows, T) - 1;  // < q0 + r0 when the warp has no row
  for (int k0 = 0; k0 <= last_key; k0 += kTileK) {
    __syncthreads();  // the previous tile's K and V are read by every warp until here
    for (int j = r0; j < r0 + kRows; ++j)  // 16 of the tile's 64 keys per warp
      load_key_row_bf16<D, PE>(a, qkv, b, h, k0 + j, delta_h, sm.K + j * Sm::LQ, sm.V + j * Sm::LV, lane);
    __syncthreads();
    // Warp-uniform: a warp with no row left, or whose rows all precede the tile, adds nothing.
    if (warp_last_row < q0 + r0 || k0 > warp_last_row) continue;

    // S = Q K^T for the warp's 16 rows and the tile's 64 keys, in registers.
    mma::Acc s[NS];
#pragma unroll
    for (int kk = 0; kk < DQ; kk += 16) {
      const mma::FragA qa = mma::load_a(sm.Q, Sm::LQ, r0, kk, lane);
#pragma unroll
      for (int n = 0; n < NS; n += 2) {
        uint32_t kb[4];
        mma::load_b_rows(kb, sm.K, Sm::LQ, 8 * n, kk, lane);
        mma::mma_bf16(s[n], qa, kb[0], kb[1]);
        mma::mma_bf16(s[n + 1], qa, kb[2], kb[3]);
      }
    }

    // Mask, ALiBi and the online softmax; each row's 64 scores are held by 4 lanes (16 each).
    float corr[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int t = t_row[i];
      float mx = -INFINITY;
#pragma unroll
      for (int n = 0; n < NS; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int key = k0 + 8 * n + c2 + e;
          float& x = s[n].v[2 * i + e];
          x = t < T && key <= t && key >= first[i] ? x - slope * float(t - key) : -INFINITY;
          mx = fmaxf(mx, x);
        }
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float mn = fmaxf(m[i], mx);
      float sum = 0.f;
      corr[i] = 1.f;
      // A row none of whose keys has come yet (its pads' tile) keeps max -inf and adds nothing.
      if (mn != -INFINITY) {
        corr[i] = __expf(m[i] - mn);  // 0 while m is -inf: the sum and output are still 0
#pragma unroll
        for (int n = 0; n < NS; ++n)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& x = s[n].v[2 * i + e];
            x = x == -INFINITY ? 0.f : __expf(x - mn);
            sum += x;
          }
      } else {
#pragma unroll
        for (int n = 0; n < NS; ++n) s[n].v[2 * i] = s[n].v[2 * i + 1] = 0.f;
      }
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      l[i] = l[i] * corr[i] + sum;
      m[i] = mn;
    }
#pragma unroll
    for (int n = 0; n < NO; ++n) {
      o[n].v[0] *= corr[0], o[n].v[1] *= corr[0];
      o[n].v[2] *= corr[1], o[n].v[3] *= corr[1];
    }

    // O += P V: P (16 x 64, rounded to bf16) straight from S's registers.
#pragma unroll
    for (int kk = 0; kk < NS / 2; ++kk) {
      const mma::FragA pa = mma::pack_a_from_acc(s[2 * kk], s[2 * kk + 1]);
#pragma unroll
      for (int n = 0; n < NO; n += 2) {
        uint32_t vb[4];
        mma::load_b_cols(vb, sm.V, Sm::LV, 16 * kk, 8 * n, lane);
        mma::mma_bf16(o[n], pa, vb[0], vb[1]);
        mma::mma_bf16(o[n + 1], pa, vb[2], vb[3]);
      }
    }
  }

  for (int i = 0; i < 2; ++i) {
    const int t = t_row[i];
    if (t >= T) continue;
    const float inv = 1.f / l[i];
    float* orow = out + (size_t(b) * T + t) * C + h * D;
#pragma unroll
    for (int n = 0; n < NO; ++n) {
      orow[8 * n + c2] = o[n].v[2 * i] * inv;
      orow[8 * n + c2 + 1] = o[n].v[2 * i + 1] * inv;
    }
    if ((lane & 3) == 0) lse[(size_t(b) * a.H + h) * T + t] = m[i] + logf(l[i]);
  }
}

// ---- Backward ----

constexpr int kBwdQ = 32;  // query rows per tile in the dK, dV kernel (64 would not fit PoPE at D 128)

// Shared memory of the dK, dV kernel: the block's 64 keys (16 a warp) and values, one query tile
// of 32 (scaled queries and dO in bf16, lse and Di), per warp the 16 x 32 blocks of S^T and dP^T
// (fp32) and of P^T and dS^T (bf16), and the fp32 accumulators of dK' and dV.
template <int D, PEKind PE>
struct FlashBwdKVSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static constexpr int LQ = DQ + 8, LV = D + 8, LB = kBwdQ + 8;  // bf16 row strides
  static constexpr int LS = kBwdQ + 4, LK = DQ + 4, LO = D + 4;   // fp32 row strides
  static constexpr size_t kK = 0;
  static constexpr size_t kV = kK + smem_up(sizeof(bf16) * kTileK * LQ);
  static constexpr size_t kQ = kV + smem_up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t kdO = kQ + smem_up(sizeof(bf16) * kBwdQ * LQ);
  static constexpr size_t kST = kdO + smem_up(sizeof(bf16) * kBwdQ * LV);
  static constexpr size_t kdPT = kST + smem_up(sizeof(float) * kTileK * LS);
  static constexpr size_t kPT = kdPT + smem_up(sizeof(float) * kTileK * LS);
  static constexpr size_t kdST = kPT + smem_up(sizeof(bf16) * kTileK * LB);
  static constexpr size_t kdK = kdST + smem_up(sizeof(bf16) * kTileK * LB);
  static constexpr size_t kdV = kdK + smem_up(sizeof(float) * kTileK * LK);
  static constexpr size_t kStats = kdV + smem_up(sizeof(float) * kTileK * LO);
  static constexpr size_t bytes = kStats + smem_up(sizeof(float) * 2 * kBwdQ);

  bf16 *K, *V, *Q, *dO, *PT, *dST;  // (64, LQ), (64, LV), (32, LQ), (32, LV), (64, LB), (64, LB)
  float *ST, *dPT, *dK, *dV;         // (64, LS), (64, LS), (64, LK), (64, LO)
  float *L, *Di;                     // (32) the query tile's lse and rowsum(dO o O)
  __device__ explicit FlashBwdKVSmem(unsigned char* base)
      : K(reinterpret_cast<bf16*>(base + kK)), V(reinterpret_cast<bf16*>(base + kV)),
        Q(reinterpret_cast<bf16*>(base + kQ)), dO(reinterpret_cast<bf16*>(base + kdO)),
        PT(reinterpret_cast<bf16*>(base + kPT)), dST(reinterpret_cast<bf16*>(base + kdST)),
        ST(reinterpret_cast<float*>(base + kST)), dPT(reinterpret_cast<float*>(base + kdPT)),
        dK(reinterpret_cast<float*>(base + kdK)), dV(reinterpret_cast<float*>(base + kdV)),
        L(reinterpret_cast<float*>(base + kStats)), Di(L + kBwdQ) {}
};

// One warp loads query row t of the backward's query side into row r: the scaled query (as the
// forward rounded it), dO in bf16, and (lane 0) lse and Di = dO . O; rows past T are zeros.
template <int D, PEKind PE>
__device__ void load_query_row_bwd(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                                   const float* lse, int b, int h, int t, float mul, bf16* Qrow,
                                   bf16* dOrow, float* L, float* Di, int lane) {
  const int T = a.T, C = a.H * D;
  const Ptrs Pt{T, a.H, C};
  load_row_bf16<D, PE, false>(t < T ? Pt.q(qkv, b, t, h, D) : nullptr, t, a, nullptr, mul, Qrow, lane);
  float di = 0.f;
  for (int c = lane; c < D; c += 32) {
    const float g = t < T ? dout[(size_t(b) * T + t) * C + h * D + c] : 0.f;
    dOrow[c] = __float2bfloat16_rn(g);
    if (t < T) di += g * out[(size_t(b) * T + t) * C + h * D + c];
  }
  di = warp_sum(di);
  if (lane == 0) {
    *Di = di;
    *L = t < T ? lse[(size_t(b) * a.H + h) * T + t] : 0.f;
  }
}

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads) attention_bwd_flash_dkdv_kernel(AttentionArgs a, const float* qkv,
                                                                           const float* out, const float* dout,
                                                                           const float* lse, float* dqkv,
                                                                           float* ddelta_part) {
  using Sm = FlashBwdKVSmem<D, PE>;
  constexpr int DQ = Sm::DQ;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int b = blockIdx.z, h = blockIdx.y, k0 = blockIdx.x * kTileK, T = a.T, C = a.H * D;
  const float slope = a.slopes ? a.slopes[h] : 0.f, mul = head_scale(a, b, h);
  const Ptrs Pt{T, a.H, C};
  const int j0 = w * kRows;  // this warp's first key row in the block
  const float* delta_h = head_delta(a, b, h, D);
  for (int j = j0; j < j0 + kRows; ++j)
    load_key_row_bf16<D, PE>(a, qkv, b, h, k0 + j, delta_h, sm.K + j * Sm::LQ, sm.V + j * Sm::LV, lane);
  for (int i = lane; i < kRows * DQ; i += 32) sm.dK[(j0 + i / DQ) * Sm::LK + i % DQ] = 0.f;
  for (int i = lane; i < kRows * D; i += 32) sm.dV[(j0 + i / D) * Sm::LO + i % D] = 0.f;
  const int warp_first_key = k0 + j0;
  for (int q0 = k0; q0 < T; q0 += kBwdQ) {
    __syncthreads();  // the previous query tile is read by every warp until here
    for (int r = w * (kBwdQ / kWarps); r < (w + 1) * (kBwdQ / kWarps); ++r)
      load_query_row_bwd<D, PE>(a, qkv, out, dout, lse, b, h, q0 + r, mul, sm.Q + r * Sm::LQ,
                                sm.dO + r * Sm::LV, sm.L + r, sm.Di + r, lane);
    __syncthreads();
    // Warp-uniform: no key of the warp, or every query of the tile before the warp's first key.
    if (warp_first_key >= T || q0 + kBwdQ - 1 < warp_first_key) continue;
    // S^T = K Q^T and dP^T = V dO^T: the warp's 16 keys against the tile's 32 queries.
    warp_mma<DQ, kBwdQ, true, false>(sm.ST + j0 * Sm::LS, Sm::LS, sm.K + j0 * Sm::LQ, Sm::LQ, sm.Q, Sm::LQ);
    warp_mma<D, kBwdQ, true, false>(sm.dPT + j0 * Sm::LS, Sm::LS, sm.V + j0 * Sm::LV, Sm::LV, sm.dO, Sm::LV);
    __syncwarp();
    // P^T and dS^T: each lane one query (column) of the tile, for each of the warp's 16 keys.
    {
      const int t = q0 + lane;
      const int lo = t < T ? first_key(a, b, t) : 0;
      for (int j = j0; j < j0 + kRows; ++j) {
        const int s = k0 + j;
        float p = 0.f, ds = 0.f;
        if (t < T && s <= t && s >= lo) {
          p = __expf(sm.ST[j * Sm::LS + lane] - slope * float(t - s) - sm.L[lane]);
          ds = p * (sm.dPT[j * Sm::LS + lane] - sm.Di[lane]);
        }
        sm.PT[j * Sm::LB + lane] = __float2bfloat16_rn(p);
        sm.dST[j * Sm::LB + lane] = __float2bfloat16_rn(ds);
      }
    }
    __syncwarp();
    // dV += P^T dO and dK' += dS^T Q (the scaled queries: S = Q k', so dS/dk' = Q).
    warp_mma<kBwdQ, D, false, true>(sm.dV + j0 * Sm::LO, Sm::LO, sm.PT + j0 * Sm::LB, Sm::LB, sm.dO, Sm::LV);
    warp_mma<kBwdQ, DQ, false, true>(sm.dK + j0 * Sm::LK, Sm::LK, sm.dST + j0 * Sm::LB, Sm::LB, sm.Q, Sm::LQ);
    __syncwarp();
  }
  // dV as it is; dK' through the PE's backward (and PoPE's per-key delta terms).
  for (int j = j0; j < j0 + kRows; ++j) {
    const int s = k0 + j;
    if (s >= T) break;
    float* base = dqkv + (size_t(b) * T + s) * 3 * C + h * D;
    for (int c = lane; c < D; c += 32) base[2 * C + c] = sm.dV[j * Sm::LO + c];
    pe_backward_row<D, PE, true>(sm.dK + j * Sm::LK, Pt.q(qkv, b, s, h, D) + C, s, a.theta, delta_h, a.n_rot, base + C,
                                 ddelta_part ? ddelta_part + ((size_t(b) * T + s) * a.H + h) * D : nullptr, lane);
  }
}

// Shared memory of the dQ kernel: the block's 64 queries (scaled, and dO, in bf16; lse and Di), one
// key tile of 64 (keys and values in bf16), per warp the 16 x 64 blocks of S and dP (fp32) and dS
// (bf16), the fp32 accumulator of dQ, and two fp32 rows a warp for the PE's backward.
template <int D, PEKind PE>
struct FlashBwdQSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static constexpr int LQ = DQ + 8, LV = D + 8, LP = kTileK + 8;  // bf16 row strides
  static constexpr int LS = kTileK + 4, LK = DQ + 4;               // fp32 row strides
  static constexpr size_t kQ = 0;
  static constexpr size_t kdO = kQ + smem_up(sizeof(bf16) * kBlockQ * LQ);
  static constexpr size_t kK = kdO + smem_up(sizeof(bf16) * kBlockQ * LV);
  static constexpr size_t kV = kK + smem_up(sizeof(bf16) * kTileK * LQ);
  static constexpr size_t kS = kV + smem_up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t kdP = kS + smem_up(sizeof(float) * kBlockQ * LS);
  static constexpr size_t kdS = kdP + smem_up(sizeof(float) * kBlockQ * LS);
  static constexpr size_t kdQ = kdS + smem_up(sizeof(bf16) * kBlockQ * LP);
  static constexpr size_t kStats = kdQ + smem_up(sizeof(float) * kBlockQ * LK);
  static constexpr size_t kStage = kStats + smem_up(sizeof(float) * 2 * kBlockQ);
  static constexpr size_t bytes = kStage + smem_up(sizeof(float) * 2 * kWarps * DQ);

  bf16 *Q, *dO, *K, *V, *dS;  // (64, LQ), (64, LV), (64, LQ), (64, LV), (64, LP)
  float *S, *dP, *dQ;         // (64, LS), (64, LS), (64, LK)
  float *L, *Di;              // (64)
  float* stage;               // (4, 2, DQ)
  __device__ explicit FlashBwdQSmem(unsigned char* base)
      : Q(reinterpret_cast<bf16*>(base + kQ)), dO(reinterpret_cast<bf16*>(base + kdO)),
        K(reinterpret_cast<bf16*>(base + kK)), V(reinterpret_cast<bf16*>(base + kV)),
        dS(reinterpret_cast<bf16*>(base + kdS)), S(reinterpret_cast<float*>(base + kS)),
        dP(reinterpret_cast<float*>(base + kdP)), dQ(reinterpret_cast<float*>(base + kdQ)),
        L(reinterpret_cast<float*>(base + kStats)), Di(L + kBlockQ), stage(reinterpret_cast<float*>(base + kStage)) {}
};

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads) attention_bwd_flash_dq_kernel(AttentionArgs a, const float* qkv,
                                                                         const float* out, const float* dout,
                                                                         const float* lse, float* dqkv,
                                                                         float* dtemp_part) {
  using Sm = FlashBwdQSmem<D, PE>;
  constexpr int DQ = Sm::DQ;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBlockQ, T = a.T, C = a.H * D;
  const float slope = a.slopes ? a.slopes[h] : 0.f, mul = head_scale(a, b, h);
  const Ptrs Pt{T, a.H, C};
  const int r0 = w * kRows;
  float* stage = sm.stage + w * 2 * DQ;
  for (int r = r0; r < r0 + kRows; ++r)
    load_query_row_bwd<D, PE>(a, qkv, out, dout, lse, b, h, q0 + r, mul, sm.Q + r * Sm::LQ, sm.dO + r * Sm::LV,
                              sm.L + r, sm.Di + r, lane);
  for (int i = lane; i < kRows * DQ; i += 32) sm.dQ[(r0 + i / DQ) * Sm::LK + i % DQ] = 0.f;
  const float* delta_h = head_delta(a, b, h, D);
  const int last_key = min(q0 + kBlockQ, T) - 1;
  const int warp_last_row = min(q0 + r0 + kRows, T) - 1;
  for (int k0 = 0; k0 <= last_key; k0 += kTileK) {
    __syncthreads();
    for (int j = r0; j < r0 + kRows; ++j)
      load_key_row_bf16<D, PE>(a, qkv, b, h, k0 + j, delta_h, sm.K + j * Sm::LQ, sm.V + j * Sm::LV, lane);
    __syncthreads();
    if (warp_last_row < q0 + r0 || k0 > warp_last_row) continue;
    // S = Q K^T and dP = dO V^T for the warp's 16 queries and the tile's 64 keys.
    warp_mma<DQ, kTileK, true, false>(sm.S + r0 * Sm::LS, Sm::LS, sm.Q + r0 * Sm::LQ, Sm::LQ, sm.K, Sm::LQ);
    warp_mma<D, kTileK, true, false>(sm.dP + r0 * Sm::LS, Sm::LS, sm.dO + r0 * Sm::LV, Sm::LV, sm.V, Sm::LV);
    __syncwarp();
    for (int r = r0; r < r0 + kRows; ++r) {  // dS, a row at a time, each lane two of the 64 columns
      const int t = q0 + r;
      const int lo = t < T ? first_key(a, b, t) : 0;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int c = lane + 32 * half, s = k0 + c;
        float ds = 0.f;
        if (t < T && s <= t && s >= lo) {
          const float p = __expf(sm.S[r * Sm::LS + c] - slope * float(t - s) - sm.L[r]);
          ds = p * (sm.dP[r * Sm::LS + c] - sm.Di[r]);
        }
        sm.dS[r * Sm::LP + c] = __float2bfloat16_rn(ds);
      }
    }
    __syncwarp();
    // dQ (of the scaled queries) += dS K.
    warp_mma<kTileK, DQ, false, true>(sm.dQ + r0 * Sm::LK, Sm::LK, sm.dS + r0 * Sm::LP, Sm::LP, sm.K, Sm::LQ);
    __syncwarp();
  }
  // dq' = dQ x the scale (the queries were scaled), through the PE's backward; the log-temperature
  // term dq' . q' against the fp32 transformed query (unscaled), as the fp32 kernels take it.
  float* g = stage;
  float* qt = stage + DQ;
  for (int r = r0; r < r0 + kRows; ++r) {
    const int t = q0 + r;
    if (t >= T) break;
    for (int c = lane; c < DQ; c += 32) g[c] = sm.dQ[r * Sm::LK + c] * mul;
    __syncwarp();
    pe_backward_row<D, PE, false>(g, Pt.q(qkv, b, t, h, D), t, a.theta, nullptr, a.n_rot,
                                  dqkv + (size_t(b) * T + t) * 3 * C + h * D, nullptr, lane);
    if (dtemp_part) {
      load_transformed<D, PE, false>(Pt.q(qkv, b, t, h, D), t, a.theta, nullptr, a.n_rot, 1.f, qt, lane);
      __syncwarp();
      temp_grad_row<DQ>(g, qt, dtemp_part + (size_t(b) * T + t) * a.H + h, lane);
    }
    __syncwarp();
  }
}

template <int D, PEKind PE>
void launch_bwd_flash(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                      float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  static DeviceOnce once;
  constexpr size_t kv_bytes = FlashBwdKVSmem<D, PE>::bytes, q_bytes = FlashBwdQSmem<D, PE>::bytes;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_bwd_flash_dkdv_kernel<D, PE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(kv_bytes)));
    CUDA_CHECK(cudaFuncSetAttribute(attention_bwd_flash_dq_kernel<D, PE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(q_bytes)));
  });
  const dim3 grid_kv((a.T + kTileK - 1) / kTileK, a.H, a.B), grid_q((a.T + kBlockQ - 1) / kBlockQ, a.H, a.B);
  attention_bwd_flash_dkdv_kernel<D, PE><<<grid_kv, kThreads, kv_bytes, s>>>(a, qkv, out, dout, lse, dqkv, ddelta_part);
  CUDA_CHECK_LAUNCH("attention_bwd_flash_dkdv");
  attention_bwd_flash_dq_kernel<D, PE><<<grid_q, kThreads, q_bytes, s>>>(a, qkv, out, dout, lse, dqkv, dtemp_part);
  CUDA_CHECK_LAUNCH("attention_bwd_flash_dq");
}

template <PEKind PE>
void dispatch_bwd_flash(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                        float* dqkv, float* ddp, float* dtp, cudaStream_t s) {
  switch (a.D) {
    case 16: return launch_bwd_flash<16, PE>(a, qkv, out, dout, lse, dqkv, ddp, dtp, s);
    case 32: return launch_bwd_flash<32, PE>(a, qkv, out, dout, lse, dqkv, ddp, dtp, s);
    case 64: return launch_bwd_flash<64, PE>(a, qkv, out, dout, lse, dqkv, ddp, dtp, s);
    case 128: return launch_bwd_flash<128, PE>(a, qkv, out, dout, lse, dqkv, ddp, dtp, s);
  }
  throw CudaError("attention: head dim " + std::to_string(a.D) + " is not supported on the GPU (16, 32, 64 or 128)");
}

template <int D, PEKind PE>
void launch_fwd_flash(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  static DeviceOnce once;
  constexpr size_t bytes = FlashFwdSmem<D, PE>::bytes;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_fwd_flash_kernel<D, PE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(bytes)));
  });
  dim3 grid((a.T + kBlockQ - 1) / kBlockQ, a.H, a.B);
  attention_fwd_flash_kernel<D, PE><<<grid, kThreads, bytes, s>>>(a, qkv, out, lse);
  CUDA_CHECK_LAUNCH("attention_fwd_flash");
}

template <PEKind PE>
void dispatch_fwd_flash(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  switch (a.D) {
    case 16: return launch_fwd_flash<16, PE>(a, qkv, out, lse, s);
    case 32: return launch_fwd_flash<32, PE>(a, qkv, out, lse, s);
    case 64: return launch_fwd_flash<64, PE>(a, qkv, out, lse, s);
    case 128: return launch_fwd_flash<128, PE>(a, qkv, out, lse, s);
  }
  throw CudaError("attention: head dim " + std::to_string(a.D) + " is not supported on the GPU (16, 32, 64 or 128)");
}

}  // namespace

void attention_bwd_flash(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                         float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  switch (a.pe) {
    case PEKind::kNone: return dispatch_bwd_flash<PEKind::kNone>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
    case PEKind::kRope: return dispatch_bwd_flash<PEKind::kRope>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
    case PEKind::kPope: return dispatch_bwd_flash<PEKind::kPope>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
  }
}

void attention_fwd_flash(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  switch (a.pe) {
    case PEKind::kNone: return dispatch_fwd_flash<PEKind::kNone>(a, qkv, out, lse, s);
    case PEKind::kRope: return dispatch_fwd_flash<PEKind::kRope>(a, qkv, out, lse, s);
    case PEKind::kPope: return dispatch_fwd_flash<PEKind::kPope>(a, qkv, out, lse, s);
  }
}

}  // namespace popebench::cuda::attn
