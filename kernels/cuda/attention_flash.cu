// Causal attention on bf16 tensor cores for long sequences (AttentionArgs::bf16_flash), forward:
// FlashAttention-2's loop (a block owns 64 query rows, streams the keys in tiles of 64, keeps the
// softmax's running max and sum per row in fp32 and never holds a T x T buffer), with the PE
// applied to each tile as it is loaded (attention_common.cuh's load_transformed: RoPE's rotation,
// PoPE's [mu cos, mu sin]; each position's angles reduced mod 2 pi in double, once per call into
// the angle table where the caller gives one, attention_angles.cu), then rounded to bf16. PoPE's
// key phase delta turns the query angles inside the kernel (load_pope_key_bf16). PoPE's 2D-wide
// queries and keys exist only in shared memory. ALiBi's bias, masked left pads and learned
// temperatures as the fp32 kernels.
//
// Forward products: mma.sync m16n8k16 (kernels/cuda/mma_bf16.cuh), bf16 operands loaded with
// ldmatrix, fp32 accumulation, in FlashAttention-2's layout: each warp owns 16 query rows; its
// scores S (16 x 64) stay in registers, where the mask, the bias and the online softmax apply
// (a row's max and sum over the 4 lanes that hold it), and become, rounded to bf16, the A
// operand of O += P V; O (16 x D, fp32) stays in registers to the end. The first version (wmma,
// S, P and O through shared memory) ran at 1.5-2 % of the bf16 peak (bench/log/031); entry 032
// says what this one, forward and backward, is predicted to do.
//
// The backward in FlashAttention-2's form, on the same register tiles, deterministic (no
// atomics: every gradient element is written by one warp): one kernel per block of 64 keys for
// dK, dV and PoPE's per-key delta terms (query tiles of 32 streamed past them; S^T, dP^T and the
// dK', dV accumulators in registers), one per block of 64 queries for dQ and the log-temperature
// terms (key tiles of 64; S, dP and dQ in registers). Both recompute P from the same bf16 operands
// the forward used (queries rounded after their scaling) and the forward's lse; P and dS are
// rounded to bf16 for their products, as FlashAttention-2 does. The PE's backward then runs on
// fp32 rows of dK' and dQ in shared memory (attention_common.cuh's pe_backward_row).

#include <cuda_bf16.h>

#include "kernels/cuda/attention_common.cuh"
#include "kernels/cuda/mma_bf16.cuh"

namespace popebench::cuda::attn {

namespace {

using bf16 = __nv_bfloat16;

constexpr int kRows = 16;                   // query rows per warp: one mma tile's M
constexpr int kWarps = 4;
constexpr int kBlockQ = kRows * kWarps;     // 64 query rows per block
constexpr int kTileK = 64;                  // keys per tile
constexpr int kThreads = 32 * kWarps;

// Rows of bf16 in shared memory are padded by 8 elements (16 bytes): ldmatrix wants 16-byte
// aligned rows, and the pad puts the 8 rows one ldmatrix reads in different banks.
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
  static constexpr size_t kDrot = kV + smem_up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t bytes = kDrot + smem_up(sizeof(float2) * D);

  bf16 *Q, *K, *V;  // (64, LQ) queries, (64, LQ) keys, (64, LV) values
  float2* drot;     // (D) PoPE's (cos delta, sin delta) of the head
  __device__ explicit FlashFwdSmem(unsigned char* base)
      : Q(reinterpret_cast<bf16*>(base + kQ)), K(reinterpret_cast<bf16*>(base + kK)),
        V(reinterpret_cast<bf16*>(base + kV)), drot(reinterpret_cast<float2*>(base + kDrot)) {}
};

// One warp writes the bf16 row dst (DQ wide): the PE-transformed query x at position pos (times
// mul; RoPE's and PoPE's angles from the call's table where there is one), each value rounded
// once from fp32; x == nullptr writes zeros (rows past T, read with weight 0). RoPE's keys too,
// whose angles are the queries'.
template <int D, PEKind PE>
__device__ void load_row_bf16(const float* x, int pos, const AttentionArgs& a, float mul, bf16* dst, int lane) {
  constexpr int DQ = Dims<D, PE>::DQ;
  if (!x) {
    for (int c = lane; c < DQ; c += 32) dst[c] = __float2bfloat16_rn(0.f);
    return;
  }
  load_transformed<D, PE, false>(x, pos, a.theta, nullptr, a.n_rot, mul, dst, lane, query_angles(a, pos));
}

// Each channel's (cos delta, sin delta) of head h's key phases, clamped to [-2 pi, 0] as every
// kernel clamps them, into drot (D, shared memory), by the whole block; PoPE only.
template <int D>
__device__ void fill_delta_rotation(const float* delta_h, float2* drot) {
  for (int c = threadIdx.x; c < D; c += blockDim.x) {
    float sn, cs;
    sincosf(float(clamp_delta(delta_h[c])), &sn, &cs);
    drot[c] = make_float2(cs, sn);
  }
}

// PoPE's key row x at position pos: [mu cos(a + delta), mu sin(a + delta)], mu = softplus(x),
// a = pos theta_c, the query's angle turned by the key phase: cos(a + delta) = cos a cos delta -
// sin a sin delta, sin(a + delta) = sin a cos delta + cos a sin delta, from the query angles (the
// table's row, or angle_sincos with phase 0: the same bits) and the block's drot. Each angle is a
// table read and four products instead of a double-precision reduction and sincosf per tile and
// block; it differs from angle_sincos(pos, theta, delta) by a few fp32 ulps, far below the bf16
// rounding that follows.
template <int D>
__device__ void load_pope_key_bf16(const float* x, int pos, const AttentionArgs& a, const float2* drot, bf16* dst,
                                   int lane) {
  if (!x) {
    for (int c = lane; c < 2 * D; c += 32) dst[c] = __float2bfloat16_rn(0.f);
    return;
  }
  const float2* row = query_angles(a, pos);
  for (int c = lane; c < D; c += 32) {
    float sn, cs;
    if (row)
      table_angle(row, c, &sn, &cs);
    else
      angle_sincos(pos, a.theta[c], 0.0, &sn, &cs);
    const float2 d = drot[c];
    const float ck = cs * d.x - sn * d.y, sk = sn * d.x + cs * d.y, mu = softplusf(x[c]);
    dst[c] = __float2bfloat16_rn(mu * ck);
    dst[D + c] = __float2bfloat16_rn(mu * sk);
  }
}

// One warp loads key s of row b, head h into its tile rows: the PE-transformed key (PoPE turned by
// the block's drot) and the value, both in bf16; s past T gives zero rows (read with weight 0).
template <int D, PEKind PE>
__device__ void load_key_row_bf16(const AttentionArgs& a, const float* qkv, int b, int h, int s, const float2* drot,
                                  bf16* Krow, bf16* Vrow, int lane) {
  const int C = a.H * D;
  const float* krow = s < a.T ? Ptrs{a.T, a.H, C}.q(qkv, b, s, h, D) + C : nullptr;
  if constexpr (PE == PEKind::kPope)
    load_pope_key_bf16<D>(krow, s, a, drot, Krow, lane);
  else
    load_row_bf16<D, PE>(krow, s, a, 1.f, Krow, lane);
  for (int c = lane; c < D; c += 32) Vrow[c] = __float2bfloat16_rn(krow ? krow[C + c] : 0.f);
}

// Stores a warp's (16, 8 NT) accumulator tiles as fp32 rows r0..r0+15 of dst (row stride ld).
template <int NT>
__device__ __forceinline__ void store_acc_rows(const mma::Acc (&acc)[NT], float* dst, int ld, int r0, int lane) {
  const int g = lane >> 2, c2 = 2 * (lane & 3);
#pragma unroll
  for (int n = 0; n < NT; ++n) {
    dst[(r0 + g) * ld + 8 * n + c2] = acc[n].v[0];
    dst[(r0 + g) * ld + 8 * n + c2 + 1] = acc[n].v[1];
    dst[(r0 + g + 8) * ld + 8 * n + c2] = acc[n].v[2];
    dst[(r0 + g + 8) * ld + 8 * n + c2 + 1] = acc[n].v[3];
  }
}

// C (16 x 8 NT) += A X over the 16 k of A's fragment fa, from X (bf16, row-major in shared
// memory, row stride ldx): with KRows, a row of X per k (B = X[k0.., :]: values, dO, queries, keys
// as the right operand of P V, dS K ...); without, a row of X per n (B = X[:, k0..]^T: keys or
// queries as the right operand of Q K^T ...).
template <bool KRows, int NT>
__device__ __forceinline__ void mma_times_x(mma::Acc (&c)[NT], const mma::FragA& fa, const bf16* X, int ldx, int k0,
                                            int lane) {
#pragma unroll
  for (int n = 0; n < NT; n += 2) {
    uint32_t fb[4];
    if constexpr (KRows)
      mma::load_b_cols(fb, X, ldx, k0, 8 * n, lane);
    else
      mma::load_b_rows(fb, X, ldx, 8 * n, k0, lane);
    mma::mma_bf16(c[n], fa, fb[0], fb[1]);
    mma::mma_bf16(c[n + 1], fa, fb[2], fb[3]);
  }
}
// C (16 x 8 NT) += A X^T with A (16 x 16 KB, bf16, shared memory, rows r0.., stride lda) and X a
// row per n: S = Q K^T, S^T = K Q^T, dP = dO V^T, dP^T = V dO^T.
template <int KB, int NT>
__device__ __forceinline__ void mma_rows_xt(mma::Acc (&c)[NT], const bf16* A, int lda, int r0, const bf16* X, int ldx,
                                            int lane) {
#pragma unroll
  for (int kb = 0; kb < KB; ++kb) mma_times_x<false>(c, mma::load_a(A, lda, r0, 16 * kb, lane), X, ldx, 16 * kb, lane);
}
// C (16 x 8 NT) += P X with P (16 x 16 KB) in accumulator registers (rounded to bf16 here) and X a
// row per k: O = P V, dV = P^T dO, dK' = dS^T Q, dQ = dS K.
template <int KB, int NT>
__device__ __forceinline__ void mma_acc_x(mma::Acc (&c)[NT], const mma::Acc (&p)[2 * KB], const bf16* X, int ldx,
                                          int lane) {
#pragma unroll
  for (int kb = 0; kb < KB; ++kb)
    mma_times_x<true>(c, mma::pack_a_from_acc(p[2 * kb], p[2 * kb + 1]), X, ldx, 16 * kb, lane);
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
    load_row_bf16<D, PE>(t < T ? Pt.q(qkv, b, t, h, D) : nullptr, t, a, mul, sm.Q + r * Sm::LQ, lane);
  }
  // This lane's two rows: [0] row g of the warp's 16, [1] row g + 8.
  const int t_row[2] = {q0 + r0 + g, q0 + r0 + g + 8};
  int first[2];
  for (int i = 0; i < 2; ++i) first[i] = t_row[i] < T ? first_key(a, b, t_row[i]) : 0;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};  // running max and sum
  mma::Acc o[NO];                                           // O: (16, D) as NO tiles of (16, 8)

  if constexpr (PE == PEKind::kPope) fill_delta_rotation<D>(head_delta(a, b, h, D), sm.drot);
  const int last_key = min(q0 + kBlockQ, T) - 1;
  const int warp_last_row = min(q0 + r0 + kRows, T) - 1;  // < q0 + r0 when the warp has no row
  for (int k0 = 0; k0 <= last_key; k0 += kTileK) {
    __syncthreads();  // the previous tile's K and V are read by every warp until here
    for (int j = r0; j < r0 + kRows; ++j)  // 16 of the tile's 64 keys per warp
      load_key_row_bf16<D, PE>(a, qkv, b, h, k0 + j, sm.drot, sm.K + j * Sm::LQ, sm.V + j * Sm::LV, lane);
    __syncthreads();
    // Warp-uniform: a warp with no row left, or whose rows all precede the tile, adds nothing.
    if (warp_last_row < q0 + r0 || k0 > warp_last_row) continue;

    // S = Q K^T for the warp's 16 rows and the tile's 64 keys, in registers.
    mma::Acc s[NS];
    mma_rows_xt<DQ / 16, NS>(s, sm.Q, Sm::LQ, r0, sm.K, Sm::LQ, lane);

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
    mma_acc_x<NS / 2, NO>(o, s, sm.V, Sm::LV, lane);
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
// of 32 (scaled queries and dO in bf16), the tile's lse and Di; once the loop is done, the fp32
// rows of dK' (the gradient of the transformed keys) for the PE's backward, over the tiles.
template <int D, PEKind PE>
struct FlashBwdKVSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static constexpr int LQ = DQ + 8, LV = D + 8;  // bf16 row strides
  static constexpr int LK = DQ + 4;              // fp32 row stride
  static constexpr size_t kK = 0;
  static constexpr size_t kV = kK + smem_up(sizeof(bf16) * kTileK * LQ);
  static constexpr size_t kQ = kV + smem_up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t kdO = kQ + smem_up(sizeof(bf16) * kBwdQ * LQ);
  static constexpr size_t kTilesEnd = kdO + smem_up(sizeof(bf16) * kBwdQ * LV);
  static constexpr size_t kdK = 0;  // after the loop, over the tiles
  static constexpr size_t kdKEnd = smem_up(sizeof(float) * kTileK * LK);
  static constexpr size_t kStats = kTilesEnd > kdKEnd ? kTilesEnd : kdKEnd;
  static constexpr size_t kDrot = kStats + smem_up(sizeof(float) * 2 * kBwdQ);
  static constexpr size_t bytes = kDrot + smem_up(sizeof(float2) * D);

  bf16 *K, *V, *Q, *dO;  // (64, LQ), (64, LV), (32, LQ), (32, LV)
  float* dK;             // (64, LK), once the loop is done
  float *L, *Di;         // (32) the query tile's lse and rowsum(dO o O)
  float2* drot;          // (D) PoPE's (cos delta, sin delta) of the head
  __device__ explicit FlashBwdKVSmem(unsigned char* base)
      : K(reinterpret_cast<bf16*>(base + kK)), V(reinterpret_cast<bf16*>(base + kV)),
        Q(reinterpret_cast<bf16*>(base + kQ)), dO(reinterpret_cast<bf16*>(base + kdO)),
        dK(reinterpret_cast<float*>(base + kdK)), L(reinterpret_cast<float*>(base + kStats)), Di(L + kBwdQ),
        drot(reinterpret_cast<float2*>(base + kDrot)) {}
};

// One warp loads query row t of the backward's query side into row r: the scaled query (as the
// forward rounded it), dO in bf16, and (lane 0) lse and Di = dO . O; rows past T are zeros.
template <int D, PEKind PE>
__device__ void load_query_row_bwd(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                                   const float* lse, int b, int h, int t, float mul, bf16* Qrow,
                                   bf16* dOrow, float* L, float* Di, int lane) {
  const int T = a.T, C = a.H * D;
  const Ptrs Pt{T, a.H, C};
  load_row_bf16<D, PE>(t < T ? Pt.q(qkv, b, t, h, D) : nullptr, t, a, mul, Qrow, lane);
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
  constexpr int DQ = Sm::DQ, NQ = kBwdQ / 8;  // NQ: n-tiles of S^T (8 queries each)
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);
  const int b = blockIdx.z, h = blockIdx.y, k0 = blockIdx.x * kTileK, T = a.T, C = a.H * D;
  const float slope = a.slopes ? a.slopes[h] : 0.f, mul = head_scale(a, b, h);
  const Ptrs Pt{T, a.H, C};
  const int j0 = w * kRows;  // this warp's first key row in the block
  const float* delta_h = head_delta(a, b, h, D);
  if constexpr (PE == PEKind::kPope) {
    fill_delta_rotation<D>(delta_h, sm.drot);
    __syncthreads();
  }
  for (int j = j0; j < j0 + kRows; ++j)
    load_key_row_bf16<D, PE>(a, qkv, b, h, k0 + j, sm.drot, sm.K + j * Sm::LQ, sm.V + j * Sm::LV, lane);
  const int key[2] = {k0 + j0 + g, k0 + j0 + g + 8};  // this lane's two keys (accumulator rows)
  mma::Acc dk[DQ / 8], dv[D / 8];                     // dK' (16, DQ) and dV (16, D) of the warp's keys
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
    mma::Acc st[NQ], dpt[NQ];
    mma_rows_xt<DQ / 16, NQ>(st, sm.K, Sm::LQ, j0, sm.Q, Sm::LQ, lane);
    mma_rows_xt<D / 16, NQ>(dpt, sm.V, Sm::LV, j0, sm.dO, Sm::LV, lane);
    // P^T (into st) and dS^T (into dpt), element by element.
#pragma unroll
    for (int n = 0; n < NQ; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int s = key[e >> 1], col = 8 * n + c2 + (e & 1), t = q0 + col;
        float p = 0.f, ds = 0.f;
        if (t < T && s <= t && s >= first_key(a, b, t)) {
          p = __expf(st[n].v[e] - slope * float(t - s) - sm.L[col]);
          ds = p * (dpt[n].v[e] - sm.Di[col]);
        }
        st[n].v[e] = p;
        dpt[n].v[e] = ds;
      }
    // dV += P^T dO and dK' += dS^T Q (the scaled queries: S = Q k', so dS/dk' = Q).
    mma_acc_x<NQ / 2, D / 8>(dv, st, sm.dO, Sm::LV, lane);
    mma_acc_x<NQ / 2, DQ / 8>(dk, dpt, sm.Q, Sm::LQ, lane);
  }
  // dV as it is; dK' through the PE's backward (and PoPE's per-key delta terms), from fp32 rows
  // in shared memory that reuse the tiles once every warp is past them.
  __syncthreads();
  store_acc_rows(dk, sm.dK, Sm::LK, j0, lane);
  for (int i = 0; i < 2; ++i) {
    if (key[i] >= T) continue;
    float* vrow = dqkv + (size_t(b) * T + key[i]) * 3 * C + 2 * C + h * D;
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
      vrow[8 * n + c2] = dv[n].v[2 * i];
      vrow[8 * n + c2 + 1] = dv[n].v[2 * i + 1];
    }
  }
  __syncwarp();
  for (int j = j0; j < j0 + kRows; ++j) {
    const int s = k0 + j;
    if (s >= T) break;
    float* base = dqkv + (size_t(b) * T + s) * 3 * C + h * D;
    // The table holds query angles, which are RoPE's key angles too; PoPE's keys take their own.
    pe_backward_row<D, PE, true>(sm.dK + j * Sm::LK, Pt.q(qkv, b, s, h, D) + C, s, a.theta, delta_h, a.n_rot, base + C,
                                 ddelta_part ? ddelta_part + ((size_t(b) * T + s) * a.H + h) * D : nullptr, lane,
                                 PE == PEKind::kPope ? nullptr : query_angles(a, s));
  }
}

// Shared memory of the dQ kernel: the block's 64 queries (scaled, and dO, in bf16; lse and Di),
// one key tile of 64 (keys and values in bf16); once the loop is done, the fp32 rows of dQ over
// the tiles, and one fp32 row a warp for the transformed query of the temperature's term.
template <int D, PEKind PE>
struct FlashBwdQSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static constexpr int LQ = DQ + 8, LV = D + 8;  // bf16 row strides
  static constexpr int LK = DQ + 4;              // fp32 row stride
  static constexpr size_t kQ = 0;
  static constexpr size_t kdO = kQ + smem_up(sizeof(bf16) * kBlockQ * LQ);
  static constexpr size_t kK = kdO + smem_up(sizeof(bf16) * kBlockQ * LV);
  static constexpr size_t kV = kK + smem_up(sizeof(bf16) * kTileK * LQ);
  static constexpr size_t kTilesEnd = kV + smem_up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t kdQ = 0;  // after the loop, over the tiles
  static constexpr size_t kdQEnd = smem_up(sizeof(float) * kBlockQ * LK);
  static constexpr size_t kQt = kTilesEnd > kdQEnd ? kTilesEnd : kdQEnd;
  static constexpr size_t kStats = kQt + smem_up(sizeof(float) * kWarps * DQ);
  static constexpr size_t kDrot = kStats + smem_up(sizeof(float) * 2 * kBlockQ);
  static constexpr size_t bytes = kDrot + smem_up(sizeof(float2) * D);

  bf16 *Q, *dO, *K, *V;  // (64, LQ), (64, LV), (64, LQ), (64, LV)
  float *dQ, *qt;        // (64, LK) once the loop is done; (4, DQ)
  float *L, *Di;         // (64)
  float2* drot;          // (D) PoPE's (cos delta, sin delta) of the head
  __device__ explicit FlashBwdQSmem(unsigned char* base)
      : Q(reinterpret_cast<bf16*>(base + kQ)), dO(reinterpret_cast<bf16*>(base + kdO)),
        K(reinterpret_cast<bf16*>(base + kK)), V(reinterpret_cast<bf16*>(base + kV)),
        dQ(reinterpret_cast<float*>(base + kdQ)), qt(reinterpret_cast<float*>(base + kQt)),
        L(reinterpret_cast<float*>(base + kStats)), Di(L + kBlockQ), drot(reinterpret_cast<float2*>(base + kDrot)) {}
};

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads) attention_bwd_flash_dq_kernel(AttentionArgs a, const float* qkv,
                                                                         const float* out, const float* dout,
                                                                         const float* lse, float* dqkv,
                                                                         float* dtemp_part) {
  using Sm = FlashBwdQSmem<D, PE>;
  constexpr int DQ = Sm::DQ, NS = kTileK / 8;  // NS: n-tiles of S (8 keys each)
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBlockQ, T = a.T, C = a.H * D;
  const float slope = a.slopes ? a.slopes[h] : 0.f, mul = head_scale(a, b, h);
  const Ptrs Pt{T, a.H, C};
  const int r0 = w * kRows;
  for (int r = r0; r < r0 + kRows; ++r)
    load_query_row_bwd<D, PE>(a, qkv, out, dout, lse, b, h, q0 + r, mul, sm.Q + r * Sm::LQ, sm.dO + r * Sm::LV,
                              sm.L + r, sm.Di + r, lane);
  __syncwarp();
  // This lane's two rows: [0] row g of the warp's 16, [1] row g + 8, with their lse and Di.
  const int t_row[2] = {q0 + r0 + g, q0 + r0 + g + 8};
  const float L_row[2] = {sm.L[r0 + g], sm.L[r0 + g + 8]}, Di_row[2] = {sm.Di[r0 + g], sm.Di[r0 + g + 8]};
  int first[2];
  for (int i = 0; i < 2; ++i) first[i] = t_row[i] < T ? first_key(a, b, t_row[i]) : 0;
  mma::Acc dq[DQ / 8];  // dQ (16, DQ) of the warp's (scaled) queries
  if constexpr (PE == PEKind::kPope) fill_delta_rotation<D>(head_delta(a, b, h, D), sm.drot);
  const int last_key = min(q0 + kBlockQ, T) - 1;
  const int warp_last_row = min(q0 + r0 + kRows, T) - 1;
  for (int k0 = 0; k0 <= last_key; k0 += kTileK) {
    __syncthreads();
    for (int j = r0; j < r0 + kRows; ++j)
      load_key_row_bf16<D, PE>(a, qkv, b, h, k0 + j, sm.drot, sm.K + j * Sm::LQ, sm.V + j * Sm::LV, lane);
    __syncthreads();
    if (warp_last_row < q0 + r0 || k0 > warp_last_row) continue;
    // S = Q K^T and dP = dO V^T for the warp's 16 queries and the tile's 64 keys.
    mma::Acc s[NS], dp[NS];
    mma_rows_xt<DQ / 16, NS>(s, sm.Q, Sm::LQ, r0, sm.K, Sm::LQ, lane);
    mma_rows_xt<D / 16, NS>(dp, sm.dO, Sm::LV, r0, sm.V, Sm::LV, lane);
    // dS = P o (dP - Di), into dp.
#pragma unroll
    for (int n = 0; n < NS; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int i = e >> 1, t = t_row[i], key = k0 + 8 * n + c2 + (e & 1);
        float ds = 0.f;
        if (t < T && key <= t && key >= first[i]) {
          const float p = __expf(s[n].v[e] - slope * float(t - key) - L_row[i]);
          ds = p * (dp[n].v[e] - Di_row[i]);
        }
        dp[n].v[e] = ds;
      }
    // dQ (of the scaled queries) += dS K.
    mma_acc_x<NS / 2, DQ / 8>(dq, dp, sm.K, Sm::LQ, lane);
  }
  // dq' = dQ x the scale (the queries were scaled), through the PE's backward; the log-temperature
  // term dq' . q' against the fp32 transformed query (unscaled), as the fp32 kernels take it. The
  // rows of dQ reuse the tiles once every warp is past them.
  __syncthreads();
#pragma unroll
  for (int n = 0; n < DQ / 8; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) dq[n].v[e] *= mul;
  store_acc_rows(dq, sm.dQ, Sm::LK, r0, lane);
  __syncwarp();
  float* qt = sm.qt + w * DQ;
  for (int r = r0; r < r0 + kRows; ++r) {
    const int t = q0 + r;
    if (t >= T) break;
    const float* grow = sm.dQ + r * Sm::LK;
    pe_backward_row<D, PE, false>(grow, Pt.q(qkv, b, t, h, D), t, a.theta, nullptr, a.n_rot,
                                  dqkv + (size_t(b) * T + t) * 3 * C + h * D, nullptr, lane, query_angles(a, t));
    if (dtemp_part) {
      load_transformed<D, PE, false>(Pt.q(qkv, b, t, h, D), t, a.theta, nullptr, a.n_rot, 1.f, qt, lane,
                                     query_angles(a, t));
      __syncwarp();
      temp_grad_row<DQ>(grow, qt, dtemp_part + (size_t(b) * T + t) * a.H + h, lane);
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

}  // namespace

void attention_bwd_flash(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                         float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  for_head_dim_and_pe(AllHeadDims{}, a, "flash attention", [&](auto d, auto pe) {
    launch_bwd_flash<decltype(d)::value, decltype(pe)::value>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
  });
}

void attention_fwd_flash(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  for_head_dim_and_pe(AllHeadDims{}, a, "flash attention", [&](auto d, auto pe) {
    launch_fwd_flash<decltype(d)::value, decltype(pe)::value>(a, qkv, out, lse, s);
  });
}

}  // namespace popebench::cuda::attn
