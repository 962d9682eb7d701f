// Causal attention on bf16 tensor cores for long sequences (AttentionArgs::bf16_flash), forward:
// FlashAttention-2's loop (a block owns 64 query rows, streams the keys in tiles of 64, keeps the
// softmax's running max and sum per row in fp32 and never holds a T x T buffer), with the PE
// applied to each tile as it is loaded, exactly as the fp32 kernels apply it (attention_common.cuh's
// load_transformed: RoPE's rotation, PoPE's [mu cos, mu sin] with the key phase delta, angles in
// double reduced mod 2 pi), then rounded to bf16. PoPE's 2D-wide queries and keys exist only in
// shared memory. ALiBi's bias, masked left pads and learned temperatures as the fp32 kernels.
//
// Products: nvcuda::wmma m16n16k16, bf16 operands, fp32 accumulation. Each warp owns 16 query
// rows: S = Q K^T (16 x 64) is stored to shared memory, where the warp's lanes apply the mask and
// the online softmax (2 columns per lane), write P in bf16, rescale the fp32 output rows and add
// P V through the accumulator fragments. A first version for correctness at long T: S, P and O
// go through shared memory rather than staying in registers (raw mma.sync's fragment layout would
// keep them there; the benchmark says what that is worth before it is done).
//
// The backward in FlashAttention-2's form, deterministic (no atomics: every gradient element is
// written by one warp): one kernel per block of 64 keys for dK, dV and PoPE's per-key delta terms
// (query tiles of 32 streamed past them), one per block of 64 queries for dQ and the
// log-temperature terms (key tiles of 64). Both recompute P from the same bf16 operands the
// forward used (queries rounded after their scaling) and the forward's lse; dS is rounded to bf16
// for its products, as FlashAttention-2 does.
#include <mma.h>

#include <type_traits>

#include <cuda_bf16.h>

#include "kernels/cuda/attention_common.cuh"

namespace popebench::cuda::attn {

namespace {

namespace wmma = nvcuda::wmma;
using bf16 = __nv_bfloat16;

constexpr int kRows = 16;                   // query rows per warp: one wmma tile
constexpr int kWarps = 4;
constexpr int kBlockQ = kRows * kWarps;     // 64 query rows per block
constexpr int kTileK = 64;                  // keys per tile
constexpr int kThreads = 32 * kWarps;

// Shared-memory layout. wmma wants tile pointers 32-byte aligned and leading dimensions a
// multiple of 8 (bf16) or 4 (fp32) elements; the pads (8 bf16 = 16 bytes, 4 floats) keep that
// and shift successive rows across banks. Every section starts at a multiple of 128 bytes.
template <int D, PEKind PE>
struct FlashSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static constexpr int LQ = DQ + 8, LV = D + 8, LP = kTileK + 8;  // bf16 row strides
  static constexpr int LS = kTileK + 4, LO = D + 4;                // fp32 row strides
  static constexpr size_t up(size_t bytes) { return (bytes + 127) / 128 * 128; }
  static constexpr size_t kQ = 0;
  static constexpr size_t kK = kQ + up(sizeof(bf16) * kBlockQ * LQ);
  static constexpr size_t kV = kK + up(sizeof(bf16) * kTileK * LQ);
  static constexpr size_t kS = kV + up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t kP = kS + up(sizeof(float) * kBlockQ * LS);
  static constexpr size_t kO = kP + up(sizeof(bf16) * kBlockQ * LP);
  static constexpr size_t kStats = kO + up(sizeof(float) * kBlockQ * LO);
  static constexpr size_t kStage = kStats + up(sizeof(float) * 3 * kBlockQ);
  static constexpr size_t bytes = kStage + up(sizeof(float) * kWarps * DQ);

  bf16 *Q, *K, *V, *P;   // (64, LQ) queries, (64, LQ) keys, (64, LV) values, (64, LP) probabilities
  float *S, *O;          // (64, LS) scores, (64, LO) unnormalised outputs
  float *m, *l, *corr;   // (64) running max, running sum, this tile's rescale of each row
  float* stage;          // (4, DQ) one fp32 row per warp, transformed before its rounding to bf16
  __device__ explicit FlashSmem(unsigned char* base)
      : Q(reinterpret_cast<bf16*>(base + kQ)), K(reinterpret_cast<bf16*>(base + kK)),
        V(reinterpret_cast<bf16*>(base + kV)), P(reinterpret_cast<bf16*>(base + kP)),
        S(reinterpret_cast<float*>(base + kS)), O(reinterpret_cast<float*>(base + kO)),
        m(reinterpret_cast<float*>(base + kStats)), l(m + kBlockQ), corr(l + kBlockQ),
        stage(reinterpret_cast<float*>(base + kStage)) {}
};

// One warp writes the bf16 row dst (DQ wide): the PE-transformed x at position pos (times mul),
// through the warp's fp32 stage; x == nullptr writes zeros (rows past T, read with weight 0).
template <int D, PEKind PE, bool KEY>
__device__ void load_row_bf16(const float* x, int pos, const AttentionArgs& a, const float* delta_h, float mul,
                              float* stage, bf16* dst, int lane) {
  constexpr int DQ = Dims<D, PE>::DQ;
  if (!x) {
    for (int c = lane; c < DQ; c += 32) dst[c] = __float2bfloat16_rn(0.f);
    return;
  }
  load_transformed<D, PE, KEY>(x, pos, a.theta, delta_h, a.n_rot, mul, stage, lane);
  __syncwarp();
  for (int c = lane; c < DQ; c += 32) dst[c] = __float2bfloat16_rn(stage[c]);
  __syncwarp();
}

// One warp loads key s of row b, head h into its tile rows: the PE-transformed key (PoPE with the
// phase delta_h) and the value, both in bf16; s past T gives zero rows (read with weight 0).
template <int D, PEKind PE>
__device__ void load_key_row_bf16(const AttentionArgs& a, const float* qkv, int b, int h, int s, const float* delta_h,
                                  float* stage, bf16* Krow, bf16* Vrow, int lane) {
  const int C = a.H * D;
  const float* krow = s < a.T ? Ptrs{a.T, a.H, C}.q(qkv, b, s, h, D) + C : nullptr;
  load_row_bf16<D, PE, true>(krow, s, a, delta_h, 1.f, stage, Krow, lane);
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
  using Sm = FlashSmem<D, PE>;
  constexpr int DQ = Sm::DQ;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBlockQ, T = a.T, C = a.H * D;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  const Ptrs Pt{T, a.H, C};
  const int r0 = w * kRows;  // this warp's first row in the block
  float* stage = sm.stage + w * DQ;

  // Queries, transformed and scaled (the score's multiplier folded in, as the fp32 kernels do).
  const float mul = head_scale(a, b, h);
  for (int r = r0; r < r0 + kRows; ++r) {
    const int t = q0 + r;
    load_row_bf16<D, PE, false>(t < T ? Pt.q(qkv, b, t, h, D) : nullptr, t, a, nullptr, mul, stage, sm.Q + r * Sm::LQ, lane);
  }
  for (int i = lane; i < kRows * D; i += 32) sm.O[(r0 + i / D) * Sm::LO + i % D] = 0.f;
  if (lane < kRows) {
    sm.m[r0 + lane] = -INFINITY;
    sm.l[r0 + lane] = 0.f;
  }
  const float* delta_h = head_delta(a, b, h, D);
  const int last_key = min(q0 + kBlockQ, T) - 1;
  const int warp_last_row = min(q0 + r0 + kRows, T) - 1;  // < q0 + r0 when the warp has no row
  for (int k0 = 0; k0 <= last_key; k0 += kTileK) {
    __syncthreads();  // the previous tile's K and V are read by every warp until here
    for (int j = r0; j < r0 + kRows; ++j)  // 16 of the tile's 64 keys per warp
      load_key_row_bf16<D, PE>(a, qkv, b, h, k0 + j, delta_h, stage, sm.K + j * Sm::LQ, sm.V + j * Sm::LV, lane);
    __syncthreads();
    // Warp-uniform: a warp with no row left, or whose rows all precede the tile, adds nothing.
    if (warp_last_row < q0 + r0 || k0 > warp_last_row) continue;

    // S = Q K^T for the warp's 16 rows and the tile's 64 keys.
    warp_mma<DQ, kTileK, true, false>(sm.S + r0 * Sm::LS, Sm::LS, sm.Q + r0 * Sm::LQ, Sm::LQ, sm.K, Sm::LQ);
    __syncwarp();

    // Mask, ALiBi and the online softmax, a row at a time, each lane two of the 64 columns.
    for (int r = r0; r < r0 + kRows; ++r) {
      const int t = q0 + r;
      float p0 = 0.f, p1 = 0.f, corr = 1.f;
      if (t < T) {
        const int lo = first_key(a, b, t);
        const int s0 = k0 + lane, s1 = s0 + 32;
        const bool v0 = s0 <= t && s0 >= lo, v1 = s1 <= t && s1 >= lo;  // s <= t < T
        const float x0 = v0 ? sm.S[r * Sm::LS + lane] - slope * float(t - s0) : -INFINITY;
        const float x1 = v1 ? sm.S[r * Sm::LS + lane + 32] - slope * float(t - s1) : -INFINITY;
        const float m_old = sm.m[r], mn = fmaxf(m_old, warp_max(fmaxf(x0, x1)));
        // A row none of whose keys has come yet (its pads' tile) keeps max -inf and adds nothing.
        if (mn != -INFINITY) {
          p0 = v0 ? __expf(x0 - mn) : 0.f;
          p1 = v1 ? __expf(x1 - mn) : 0.f;
          corr = __expf(m_old - mn);  // 0 while m_old is -inf: the sum and output are still 0
        }
        const float sum = warp_sum(p0 + p1);
        if (lane == 0) {
          sm.l[r] = sm.l[r] * corr + sum;
          sm.m[r] = mn;
          sm.corr[r] = corr;
        }
      } else if (lane == 0) {
        sm.corr[r] = 1.f;
      }
      sm.P[r * Sm::LP + lane] = __float2bfloat16_rn(p0);
      sm.P[r * Sm::LP + lane + 32] = __float2bfloat16_rn(p1);
    }
    __syncwarp();
    for (int i = lane; i < kRows * D; i += 32) {
      const int r = r0 + i / D;
      sm.O[r * Sm::LO + i % D] *= sm.corr[r];
    }
    __syncwarp();

    // O += P V, through the accumulator fragments.
    warp_mma<kTileK, D, false, true>(sm.O + r0 * Sm::LO, Sm::LO, sm.P + r0 * Sm::LP, Sm::LP, sm.V, Sm::LV);
    __syncwarp();
  }

  for (int r = r0; r < r0 + kRows; ++r) {
    const int t = q0 + r;
    if (t >= T) break;
    const float inv = 1.f / sm.l[r];
    float* orow = out + (size_t(b) * T + t) * C + h * D;
    for (int c = lane; c < D; c += 32) orow[c] = sm.O[r * Sm::LO + c] * inv;
    if (lane == 0) lse[(size_t(b) * a.H + h) * T + t] = sm.m[r] + logf(sm.l[r]);
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
  static constexpr size_t up(size_t bytes) { return (bytes + 127) / 128 * 128; }
  static constexpr size_t kK = 0;
  static constexpr size_t kV = kK + up(sizeof(bf16) * kTileK * LQ);
  static constexpr size_t kQ = kV + up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t kdO = kQ + up(sizeof(bf16) * kBwdQ * LQ);
  static constexpr size_t kST = kdO + up(sizeof(bf16) * kBwdQ * LV);
  static constexpr size_t kdPT = kST + up(sizeof(float) * kTileK * LS);
  static constexpr size_t kPT = kdPT + up(sizeof(float) * kTileK * LS);
  static constexpr size_t kdST = kPT + up(sizeof(bf16) * kTileK * LB);
  static constexpr size_t kdK = kdST + up(sizeof(bf16) * kTileK * LB);
  static constexpr size_t kdV = kdK + up(sizeof(float) * kTileK * LK);
  static constexpr size_t kStats = kdV + up(sizeof(float) * kTileK * LO);
  static constexpr size_t kStage = kStats + up(sizeof(float) * 2 * kBwdQ);
  static constexpr size_t bytes = kStage + up(sizeof(float) * kWarps * DQ);

  bf16 *K, *V, *Q, *dO, *PT, *dST;  // (64, LQ), (64, LV), (32, LQ), (32, LV), (64, LB), (64, LB)
  float *ST, *dPT, *dK, *dV;         // (64, LS), (64, LS), (64, LK), (64, LO)
  float *L, *Di;                     // (32) the query tile's lse and rowsum(dO o O)
  float* stage;                      // (4, DQ)
  __device__ explicit FlashBwdKVSmem(unsigned char* base)
      : K(reinterpret_cast<bf16*>(base + kK)), V(reinterpret_cast<bf16*>(base + kV)),
        Q(reinterpret_cast<bf16*>(base + kQ)), dO(reinterpret_cast<bf16*>(base + kdO)),
        PT(reinterpret_cast<bf16*>(base + kPT)), dST(reinterpret_cast<bf16*>(base + kdST)),
        ST(reinterpret_cast<float*>(base + kST)), dPT(reinterpret_cast<float*>(base + kdPT)),
        dK(reinterpret_cast<float*>(base + kdK)), dV(reinterpret_cast<float*>(base + kdV)),
        L(reinterpret_cast<float*>(base + kStats)), Di(L + kBwdQ), stage(reinterpret_cast<float*>(base + kStage)) {}
};

// One warp loads query row t of the backward's query side into row r: the scaled query (as the
// forward rounded it), dO in bf16, and (lane 0) lse and Di = dO . O; rows past T are zeros.
template <int D, PEKind PE>
__device__ void load_query_row_bwd(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                                   const float* lse, int b, int h, int t, float mul, float* stage, bf16* Qrow,
                                   bf16* dOrow, float* L, float* Di, int lane) {
  const int T = a.T, C = a.H * D;
  const Ptrs Pt{T, a.H, C};
  load_row_bf16<D, PE, false>(t < T ? Pt.q(qkv, b, t, h, D) : nullptr, t, a, nullptr, mul, stage, Qrow, lane);
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
  float* stage = sm.stage + w * DQ;
  const float* delta_h = head_delta(a, b, h, D);
  for (int j = j0; j < j0 + kRows; ++j)
    load_key_row_bf16<D, PE>(a, qkv, b, h, k0 + j, delta_h, stage, sm.K + j * Sm::LQ, sm.V + j * Sm::LV, lane);
  for (int i = lane; i < kRows * DQ; i += 32) sm.dK[(j0 + i / DQ) * Sm::LK + i % DQ] = 0.f;
  for (int i = lane; i < kRows * D; i += 32) sm.dV[(j0 + i / D) * Sm::LO + i % D] = 0.f;
  const int warp_first_key = k0 + j0;
  for (int q0 = k0; q0 < T; q0 += kBwdQ) {
    __syncthreads();  // the previous query tile is read by every warp until here
    for (int r = w * (kBwdQ / kWarps); r < (w + 1) * (kBwdQ / kWarps); ++r)
      load_query_row_bwd<D, PE>(a, qkv, out, dout, lse, b, h, q0 + r, mul, stage, sm.Q + r * Sm::LQ,
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
  static constexpr size_t up(size_t bytes) { return (bytes + 127) / 128 * 128; }
  static constexpr size_t kQ = 0;
  static constexpr size_t kdO = kQ + up(sizeof(bf16) * kBlockQ * LQ);
  static constexpr size_t kK = kdO + up(sizeof(bf16) * kBlockQ * LV);
  static constexpr size_t kV = kK + up(sizeof(bf16) * kTileK * LQ);
  static constexpr size_t kS = kV + up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t kdP = kS + up(sizeof(float) * kBlockQ * LS);
  static constexpr size_t kdS = kdP + up(sizeof(float) * kBlockQ * LS);
  static constexpr size_t kdQ = kdS + up(sizeof(bf16) * kBlockQ * LP);
  static constexpr size_t kStats = kdQ + up(sizeof(float) * kBlockQ * LK);
  static constexpr size_t kStage = kStats + up(sizeof(float) * 2 * kBlockQ);
  static constexpr size_t bytes = kStage + up(sizeof(float) * 2 * kWarps * DQ);

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
    load_query_row_bwd<D, PE>(a, qkv, out, dout, lse, b, h, q0 + r, mul, stage, sm.Q + r * Sm::LQ, sm.dO + r * Sm::LV,
                              sm.L + r, sm.Di + r, lane);
  for (int i = lane; i < kRows * DQ; i += 32) sm.dQ[(r0 + i / DQ) * Sm::LK + i % DQ] = 0.f;
  const float* delta_h = head_delta(a, b, h, D);
  const int last_key = min(q0 + kBlockQ, T) - 1;
  const int warp_last_row = min(q0 + r0 + kRows, T) - 1;
  for (int k0 = 0; k0 <= last_key; k0 += kTileK) {
    __syncthreads();
    for (int j = r0; j < r0 + kRows; ++j)
      load_key_row_bf16<D, PE>(a, qkv, b, h, k0 + j, delta_h, stage, sm.K + j * Sm::LQ, sm.V + j * Sm::LV, lane);
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
  constexpr size_t bytes = FlashSmem<D, PE>::bytes;
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
