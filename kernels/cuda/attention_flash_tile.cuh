// What the flash kernels on mma.sync (attention_flash.cu) and on Hopper's warpgroup products
// (attention_flash_wgmma_fwd.cu, _bwd.cu) share, all on the same registers (the m16n8 accumulator layout, which
// wgmma's accumulators repeat per warp): the tile sizes, the whole-tile rule, the forward's online
// softmax and output rows, and the dQ kernels' dS and end (the PE's backward on fp32 rows).
#pragma once
#include <cmath>
#include <type_traits>

#include "kernels/cuda/attention_common.cuh"
#include "kernels/cuda/mma_bf16.cuh"

namespace popebench::cuda::attn {
namespace {

constexpr int kRows = 16;                   // query rows per warp: one mma tile's M
constexpr int kWarps = 4;
constexpr int kBlockQ = kRows * kWarps;     // 64 query rows per block
constexpr int kTileK = 64;                  // keys per tile
constexpr int kThreads = 32 * kWarps;

// Whether a warp's 16 query rows (from row0; last_row the last inside the sequence) see every key
// of the tile from k0 unmasked: the tile lies wholly at or before the first row, every row is
// inside the sequence, and the tile is past the batch row's left pads (key_start). Such a "whole"
// tile needs neither the causal nor the pad mask, and none of its scores is -inf. bench/log/034
// counted ~13 instructions a score on every tile, half of them the masks and ALiBi's term, where
// only the tile of the diagonal needs the mask (1 of ~32 at T 4096); entry 035 has the
// prediction for the whole-tile paths below.
__device__ __forceinline__ bool whole_tile(int k0, int row0, int last_row, int key_start) {
  return k0 + kTileK - 1 <= row0 && last_row == row0 + kRows - 1 && k0 >= key_start;
}

// A lane's two query rows (g and g + 8 of its warp's 16, from block row r0 of the block at q0) and
// the first key each sees (its left pads' rule); rows past T see key 0, and are masked anyway.
__device__ __forceinline__ void lane_rows(const AttentionArgs& a, int b, int q0, int r0, int g, int (&t_row)[2],
                                          int (&first)[2]) {
  t_row[0] = q0 + r0 + g, t_row[1] = q0 + r0 + g + 8;
  for (int i = 0; i < 2; ++i) first[i] = t_row[i] < a.T ? first_key(a, b, t_row[i]) : 0;
}
// The warp's last row inside the sequence (< q0 + r0 when the warp has none).
__device__ __forceinline__ int warp_last_row_of(int q0, int r0, int T) { return min(q0 + r0 + kRows, T) - 1; }
// The key tiles the block of queries from q0 sees (causal: up to its last row in the sequence).
__device__ __forceinline__ int key_tiles_of(int q0, int T) { return (min(q0 + kBlockQ, T) - 1) / kTileK + 1; }

// The forward's online softmax over one key tile, for a lane's two rows (g and g + 8 of its warp's
// 16): the mask, ALiBi's term, the running max m and sum l, and P = exp(S - max) in s, with corr the
// factor that rescales O. kWhole (whole_tile): the compares and selects are left out. kSlope: the
// head has an ALiBi slope; the caller chooses it once per head, because a run-time test inside the
// element loop was turned by the compiler into the term computed for every score and a select
// (~5 of the whole path's ~10 PTX instructions a score, bench/log/036). For finite scores the
// paths give the same bits (the general path without a slope adds no term, as it subtracted 0 * d,
// which leaves x), so the GPU tests' same-bits checks hold across the choice.
template <bool kWhole, bool kSlope, int NS>
__device__ __forceinline__ void online_softmax_tile(mma::Acc (&s)[NS], float (&m)[2], float (&l)[2], float (&corr)[2],
                                                    const int (&t_row)[2], const int (&first)[2], int k0, int c2,
                                                    int T, float slope) {
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
        if constexpr (kSlope) x = x - slope * float(t - key);
        if constexpr (!kWhole) x = t < T && key <= t && key >= first[i] ? x : -INFINITY;
        mx = fmaxf(mx, x);
      }
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    const float mn = fmaxf(m[i], mx);
    float sum = 0.f;
    corr[i] = 1.f;
    // A row none of whose keys has come yet (its pads' tile) keeps max -inf and adds nothing.
    if (kWhole || mn != -INFINITY) {
      // e^(x - mn) in exp2 form (ex2_approx); a masked score (-inf) gives 0, and so does corr
      // while m is -inf (the sum and output are still 0).
      const float mn2 = mn * kLog2e;
      corr[i] = ex2_approx(fmaf(m[i], kLog2e, -mn2));
#pragma unroll
      for (int n = 0; n < NS; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[n].v[2 * i + e];
          x = ex2_approx(fmaf(x, kLog2e, -mn2));
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
}

// Stores a warp's (16, 8 NT) accumulator tiles as fp32 rows r0..r0+15 of dst (row stride ld, even:
// a lane writes its two columns as one 8-byte store).
template <int NT>
__device__ __forceinline__ void store_acc_rows(const mma::Acc (&acc)[NT], float* dst, int ld, int r0, int lane) {
  const int g = lane >> 2, c2 = 2 * (lane & 3);
#pragma unroll
  for (int n = 0; n < NT; ++n) {
    *reinterpret_cast<float2*>(dst + (r0 + g) * ld + 8 * n + c2) = make_float2(acc[n].v[0], acc[n].v[1]);
    *reinterpret_cast<float2*>(dst + (r0 + g + 8) * ld + 8 * n + c2) = make_float2(acc[n].v[2], acc[n].v[3]);
  }
}

// dS = P o (dP - Di) of the dQ kernel's tile, into dp, for a lane's two rows, with P = 2^(S log2 e -
// L2) (L2: the row's lse in log2 units, as the scratch holds it); kWhole and kSlope as the
// forward's online_softmax_tile (no mask; ALiBi's term only with a slope; the same bits).
template <bool kWhole, bool kSlope, int NS>
__device__ __forceinline__ void dq_ds_tile(mma::Acc (&dp)[NS], const mma::Acc (&s)[NS], const int (&t_row)[2],
                                           const int (&first)[2], const float (&L2_row)[2], const float (&Di_row)[2],
                                           int k0, int c2, int T, float slope) {
#pragma unroll
  for (int n = 0; n < NS; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int i = e >> 1, t = t_row[i], key = k0 + 8 * n + c2 + (e & 1);
      float x = s[n].v[e];
      if constexpr (kSlope) x = x - slope * float(t - key);
      const float ds = ex2_approx(fmaf(x, kLog2e, -L2_row[i])) * (dp[n].v[e] - Di_row[i]);
      if constexpr (kWhole)
        dp[n].v[e] = ds;
      else
        dp[n].v[e] = t < T && key <= t && key >= first[i] ? ds : 0.f;
    }
}


// A tile function's variant, chosen at run time and passed on at compile time: f(kSlope) with
// kSlope std::true_type for a head with an ALiBi slope (the element loops' reason, bench/log/036),
// and f(kWhole, kSlope) with kWhole whole_tile's answer too. Both answers are warp-uniform (the
// slope block-uniform), so the branch costs no divergence.
template <typename F>
__device__ __forceinline__ void with_slope(float slope, F&& f) {
  if (slope != 0.f)
    f(std::true_type{});
  else
    f(std::false_type{});
}
template <typename F>
__device__ __forceinline__ void with_tile_variant(bool whole, float slope, F&& f) {
  with_slope(slope, [&](auto kSlope) {
    if (whole)
      f(std::true_type{}, kSlope);
    else
      f(std::false_type{}, kSlope);
  });
}

// The forward's online softmax of a tile in its variant, leaving O alone: corr, the factor that
// rescales O's rows, for the caller to apply (rescale_rows) once O's pending products are done.
template <int NS>
__device__ __forceinline__ void online_softmax_corr(bool whole, mma::Acc (&s)[NS], float (&m)[2], float (&l)[2],
                                                    float (&corr)[2], const int (&t_row)[2], const int (&first)[2],
                                                    int k0, int c2, int T, float slope) {
  with_tile_variant(whole, slope, [&](auto kWhole, auto kSlope) {
    online_softmax_tile<decltype(kWhole)::value, decltype(kSlope)::value>(s, m, l, corr, t_row, first, k0, c2, T,
                                                                          slope);
  });
}
// O (the warp's 16 rows, NO tiles of 8 columns) rescaled by the change of the rows' max.
template <int NO>
__device__ __forceinline__ void rescale_rows(mma::Acc (&o)[NO], const float (&corr)[2]) {
#pragma unroll
  for (int n = 0; n < NO; ++n) {
    o[n].v[0] *= corr[0], o[n].v[1] *= corr[0];
    o[n].v[2] *= corr[1], o[n].v[3] *= corr[1];
  }
}
// Both, one after the other: the kernels whose O has no product pending.
template <int NS, int NO>
__device__ __forceinline__ void online_softmax_any(bool whole, mma::Acc (&s)[NS], float (&m)[2], float (&l)[2],
                                                   mma::Acc (&o)[NO], const int (&t_row)[2], const int (&first)[2],
                                                   int k0, int c2, int T, float slope) {
  float corr[2];
  online_softmax_corr(whole, s, m, l, corr, t_row, first, k0, c2, T, slope);
  rescale_rows(o, corr);
}

// dq_ds_tile in its variant.
template <int NS>
__device__ __forceinline__ void dq_ds_any(bool whole, mma::Acc (&dp)[NS], const mma::Acc (&s)[NS], const int (&t_row)[2],
                                          const int (&first)[2], const float (&L2_row)[2], const float (&Di_row)[2],
                                          int k0, int c2, int T, float slope) {
  with_tile_variant(whole, slope, [&](auto kWhole, auto kSlope) {
    dq_ds_tile<decltype(kWhole)::value, decltype(kSlope)::value>(dp, s, t_row, first, L2_row, Di_row, k0, c2, T, slope);
  });
}

// The end of both dQ kernels: dq' = dQ x the scale (the queries were scaled), through the PE's
// backward, and the log-temperature term dq' . q' against the fp32 transformed query (unscaled),
// as the fp32 kernels take it, for the warp's 16 rows from r0 (block rows; q0 the block's first
// query). dQ_rows (64 rows of stride LK, fp32) and qt (DQ floats a warp) are shared memory that
// reuse the tiles, which every warp is past.
template <int D, PEKind PE, int NT>
__device__ __forceinline__ void dq_rows_out(mma::Acc (&dq)[NT], float mul, float* dQ_rows, int LK, float* qt,
                                            const AttentionArgs& a, const float* qkv, float* dqkv, float* dtemp_part,
                                            int b, int h, int q0, int r0, int lane) {
  constexpr int DQ = Dims<D, PE>::DQ;
  const int T = a.T, C = a.H * D;
  const Ptrs Pt{T, a.H, C};
#pragma unroll
  for (int n = 0; n < NT; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) dq[n].v[e] *= mul;
  store_acc_rows(dq, dQ_rows, LK, r0, lane);
  __syncwarp();
  for (int r = r0; r < r0 + kRows; ++r) {
    const int t = q0 + r;
    if (t >= T) break;
    const float* grow = dQ_rows + r * LK;
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

// Whether every query of a dK dV kernel's tile (NQ from q0) sees every one of a warp's 16 keys
// (from first_key): the keys all come at or before the tile's first query, every query is inside
// the sequence, and the keys are past the batch row's left pads. Such a tile needs no mask in
// dkdv_p_ds_tile (bench/log/041): all but the tiles along the diagonal, and a padded row's first.
template <int NQ>
__device__ __forceinline__ bool dkdv_whole_tile(int first_key, int q0, int T, int key_start) {
  return first_key + kRows - 1 <= q0 && q0 + NQ <= T && first_key >= key_start;
}

// P^T and dS^T = P^T o (dP^T - Di) of a dK dV kernel's tile, in place of S^T (st) and dP^T (dpt),
// for a lane's two keys against the tile's 8 NQ queries (from q0), with P = 2^(S log2 e - L) (L, Di:
// the tile's rows, L in log2 units). Every element is computed and the masked ones (key after the
// query, query past T, key among a padded row's left pads but its own) selected to 0: written as
// a branch around the exp (as first), the compiler made ~30 PTX instructions and two branches of
// each element, twice this; kSlope as the forward's (ALiBi's term only for ALiBi's heads); kWhole
// (dkdv_whole_tile): no element is masked, so the compares and selects are left out (the same
// bits: they selected every element).
// first_key's rule inline: key s is seen from query t iff s <= t and (s >= key_start or s == t).
template <bool kSlope, bool kWhole, int NQ>
__device__ __forceinline__ void dkdv_p_ds_tile(mma::Acc (&st)[NQ], mma::Acc (&dpt)[NQ], const int (&key)[2],
                                               const float* L, const float* Di, int q0, int c2, int T, int key_start,
                                               float slope) {
#pragma unroll
  for (int n = 0; n < NQ; ++n) {
    const float2 l2 = *reinterpret_cast<const float2*>(L + 8 * n + c2);  // c2 is even: 8-byte aligned
    const float2 di = *reinterpret_cast<const float2*>(Di + 8 * n + c2);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int s = key[e >> 1], t = q0 + 8 * n + c2 + (e & 1);
      float x = st[n].v[e];
      if constexpr (kSlope) x = x - slope * float(t - s);
      const float p = ex2_approx(fmaf(x, kLog2e, -(e & 1 ? l2.y : l2.x)));
      const float ds = p * (dpt[n].v[e] - (e & 1 ? di.y : di.x));
      if constexpr (kWhole) {  // before the mask, not beside it: as an else branch around it, the
        st[n].v[e] = p;         // masked path's PTX moved (and its PoPE variant at D 128 spilled)
        dpt[n].v[e] = ds;
        continue;
      }
      const bool seen = t < T && s <= t && (s >= key_start || s == t);
      st[n].v[e] = seen ? p : 0.f;
      dpt[n].v[e] = seen ? ds : 0.f;
    }
  }
}

// dkdv_p_ds_tile in its variant, whole tile's and slope's. The mma.sync dK dV kernel passes whole =
// false (its masked path on every tile, as measured; bench/log/041 measures the whole-tile path in
// the warpgroup kernel only): its PTX is then the same as before the flag.
template <int NQ>
__device__ __forceinline__ void dkdv_p_ds_any(bool whole, mma::Acc (&st)[NQ], mma::Acc (&dpt)[NQ], const int (&key)[2],
                                              const float* L, const float* Di, int q0, int c2, int T, int key_start,
                                              float slope) {
  with_tile_variant(whole, slope, [&](auto kWhole, auto kSlope) {
    dkdv_p_ds_tile<decltype(kSlope)::value, decltype(kWhole)::value>(st, dpt, key, L, Di, q0, c2, T, key_start,
                                                                     slope);
  });
}

// The end of both dK dV kernels: dV as it is, and dK' (the transformed keys' gradient) through the
// PE's backward, with PoPE's per-key delta terms, for the warp's 16 keys from k0 + j0. dK_rows (64
// rows of stride LK, fp32) is shared memory that reuses the tiles, which every warp is past.
template <int D, PEKind PE, int NK>
__device__ __forceinline__ void dkdv_rows_out(const mma::Acc (&dk)[NK], const mma::Acc (&dv)[D / 8], float* dK_rows,
                                              int LK, const AttentionArgs& a, const float* qkv, float* dqkv,
                                              float* ddelta_part, int b, int h, int k0, int j0, int lane) {
  const int T = a.T, C = a.H * D, g = lane >> 2, c2 = 2 * (lane & 3);
  const Ptrs Pt{T, a.H, C};
  const float* delta_h = head_delta(a, b, h, D);
  store_acc_rows(dk, dK_rows, LK, j0, lane);
  for (int i = 0; i < 2; ++i) {
    const int key = k0 + j0 + g + 8 * i;
    if (key >= T) continue;
    float* vrow = dqkv + (size_t(b) * T + key) * 3 * C + 2 * C + h * D;
#pragma unroll
    for (int n = 0; n < D / 8; ++n)  // 8-byte stores, as the forward's output
      *reinterpret_cast<float2*>(vrow + 8 * n + c2) = make_float2(dv[n].v[2 * i], dv[n].v[2 * i + 1]);
  }
  __syncwarp();
  for (int j = j0; j < j0 + kRows; ++j) {
    const int s = k0 + j;
    if (s >= T) break;
    float* base = dqkv + (size_t(b) * T + s) * 3 * C + h * D;
    // The table holds query angles, which are RoPE's key angles too; PoPE's keys take their own.
    pe_backward_row<D, PE, true>(dK_rows + j * LK, Pt.q(qkv, b, s, h, D) + C, s, a.theta, delta_h, a.n_rot,
                                 base + C, ddelta_part ? ddelta_part + ((size_t(b) * T + s) * a.H + h) * D : nullptr, lane,
                                 PE == PEKind::kPope ? nullptr : query_angles(a, s));
  }
}

// The end of both forwards: O / l and lse = m + log l of the lane's two rows (t_row) into out and
// lse. One 8-byte store a lane and n-tile: the 4 lanes of a row fill a 32-byte sector (two 4-byte
// stores used half of each sector per instruction: entry 034's excess sectors).
template <int D>
__device__ __forceinline__ void out_rows(const mma::Acc (&o)[D / 8], const float (&m)[2], const float (&l)[2],
                                         const int (&t_row)[2], const AttentionArgs& a, int b, int h, int c2, int lane,
                                         float* out, float* lse) {
  const int T = a.T, C = a.H * D;
  for (int i = 0; i < 2; ++i) {
    const int t = t_row[i];
    if (t >= T) continue;
    const float inv = 1.f / l[i];
    float* orow = out + (size_t(b) * T + t) * C + h * D;
#pragma unroll
    for (int n = 0; n < D / 8; ++n)
      *reinterpret_cast<float2*>(orow + 8 * n + c2) = make_float2(o[n].v[2 * i] * inv, o[n].v[2 * i + 1] * inv);
    if ((lane & 3) == 0) lse[(size_t(b) * a.H + h) * T + t] = m[i] + logf(l[i]);
  }
}

}  // namespace
}  // namespace popebench::cuda::attn
