// Fused causal attention with the positional embedding applied inside the kernel
// (twin of kernels/cpu/attention.hpp + rope.hpp + pope.hpp), and ALiBi's per-head distance bias
// (score -= slope_h (t - s), after the scale, as the CPU twin). PoPE's 2D-wide queries and keys
// exist only in shared memory: the kernels read the D-wide q, k from the qkv buffer and build
// [mu cos, mu sin] tile by tile; nothing 2D-wide is written to global memory.
//
// Two kernel families behind one entry point: for T <= 64 and D <= 64 (every training shape of
// the presets) attention_short.cu holds a (batch, head)'s whole sequence in one block; this file
// holds the tiled kernels for everything else (long T for extrapolation, head dim 128). Head dims
// 16, 32, 64 and 128 are instantiated; at 16 half of each warp's lanes idle in the
// lanes-over-channels loops (Dims::v_lane), which costs nothing that matters at models that small.
//
// Work split of the tiled kernels: blocks of 8 warps over tiles of 32 rows, 4 rows per warp (see
// kWarps for the measured difference from 4 warps of 8 rows); the other side is
// staged 32 rows at a time in shared memory, transformed by the PE as it is loaded. Dot products
// over channels run with lanes over rows (one row per lane, channels looped), accumulations with
// lanes over channels. Rows padded by 4 floats keep both patterns free of bank conflicts.
// Backward: one kernel for dK, dV (and delta's per-key gradient), one for dQ; no atomics, so the
// gradients are bit-identical between runs.
//
// Angles t * theta_c (+ delta) are formed in double and reduced mod 2 pi before sincosf: in fp32,
// t * theta at t = 4096 carries an absolute error of ~5e-4 rad, in double ~1e-12.
#include "kernels/cuda/attention_common.cuh"
#include "kernels/cuda/attention_flash.hpp"
#include "kernels/cuda/attention_flash_wgmma.hpp"

namespace popebench::cuda {

namespace {

using namespace attn;

// 8 warps of 4 rows rather than 4 of 8: the kernels are latency-bound (ncu: 13 cycles per issued
// instruction, 31 % occupancy), so halving each warp's serial chain of rows and cutting the
// per-thread accumulators (registers at D 64, rope dkdv: 96 -> 59) should pay. Measured in
// bench/log/005-attention-8-warps-per-block.md.
constexpr int kTile = 32, kWarps = 8, kRowsPerWarp = kTile / kWarps, kThreads = 32 * kWarps;

// Dot product of two shared-memory rows, 16 bytes per load. The kernels are bound by the rate
// of shared-memory load instructions, not by FMAs: with scalar loads every FMA needed one load
// (25M loads per backward kernel at the training shape, ~0.11 ms each, as measured). float4 loads
// cut the instruction count 4x. Rows are padded by 4 floats (Dims::SQ, SV): they stay 16-byte
// aligned and a quarter-warp's 8 rows start in 8 different 4-bank groups, so lanes reading
// different rows do not conflict.
template <int N>
__device__ __forceinline__ float dot_smem(const float* a, const float* b) {
  static_assert(N % 4 == 0, "row widths are multiples of 32");
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
#pragma unroll 8
  for (int c = 0; c < N / 4; ++c) {
    const float4 x = a4[c], y = b4[c];
    s0 += x.x * y.x;
    s1 += x.y * y.y;
    s2 += x.z * y.z;
    s3 += x.w * y.w;
  }
  return (s0 + s1) + (s2 + s3);
}

// Loads one tile of 32 keys: PE-transformed K and V; rows past T are zeroed, since the
// full-tile loops read them (with weight 0).
template <int D, PEKind PE>
__device__ void load_key_side(const AttentionArgs& a, const float* qkv, int b, int h, int k0, float* Ks, float* Vs) {
  using Dm = Dims<D, PE>;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, T = a.T, C = a.H * D;
  const Ptrs P{T, a.H, C};
  const float* delta_h = head_delta(a, b, h, D);
  for (int i = 0; i < kRowsPerWarp; ++i) {
    const int j = w * kRowsPerWarp + i, s = k0 + j;
    if (s >= T) {  // read by the full-tile loops with ds = 0: keep finite
      for (int c = lane; c < Dm::DQ; c += 32) Ks[j * Dm::SQ + c] = 0.f;
      for (int c = lane; c < D; c += 32) Vs[j * Dm::SV + c] = 0.f;
      continue;
    }
    load_transformed<D, PE, true>(P.q(qkv, b, s, h, D) + C, s, a.theta, delta_h, a.n_rot, 1.f, Ks + j * Dm::SQ, lane);
    const float* v = P.q(qkv, b, s, h, D) + 2 * C;
    for (int c = lane; c < D; c += 32) Vs[j * Dm::SV + c] = v[c];
  }
}

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads) attention_fwd_kernel(AttentionArgs a, const float* qkv, float* out, float* lse) {
  using Dm = Dims<D, PE>;
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);  // 16-byte aligned base for the float4 loads
  float* Qs = smem;                        // (32, SQ) queries of this block, transformed, times scale
  float* Ks = Qs + kTile * Dm::SQ;         // (32, SQ) current key tile, transformed
  float* Vs = Ks + kTile * Dm::SQ;         // (32, SV) current value tile
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kTile, T = a.T, C = a.H * D;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  const Ptrs P{T, a.H, C};
  for (int i = 0; i < kRowsPerWarp; ++i) {
    int r = w * kRowsPerWarp + i, t = q0 + r;
    if (t < T)
      load_transformed<D, PE, false>(P.q(qkv, b, t, h, D), t, a.theta, nullptr, a.n_rot, head_scale(a, b, h),
                                     Qs + r * Dm::SQ, lane);
  }
  float m[kRowsPerWarp], l[kRowsPerWarp], o[kRowsPerWarp][Dm::NV];
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; ++i) {
    m[i] = -INFINITY;
    l[i] = 0.f;
#pragma unroll
    for (int k = 0; k < Dm::NV; ++k) o[i][k] = 0.f;
  }
  const int last_key = min(q0 + kTile, T) - 1;
  for (int k0 = 0; k0 <= last_key; k0 += kTile) {
    __syncthreads();
    load_key_side<D, PE>(a, qkv, b, h, k0, Ks, Vs);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kRowsPerWarp; ++i) {
      const int r = w * kRowsPerWarp + i, t = q0 + r;
      if (t >= T || k0 > t) continue;  // warp-uniform
      // Tiles wholly before the first key are skipped, so every tile seen has a key (lo <= t):
      // the running max stays finite.
      const int lo = first_key(a, b, t);
      if (k0 + kTile <= lo) continue;  // warp-uniform
      const int s = k0 + lane;
      const bool valid = s <= t && s >= lo;
      float sc = -INFINITY;
      if (valid) sc = dot_smem<Dm::DQ>(Qs + r * Dm::SQ, Ks + lane * Dm::SQ) - slope * float(t - s);
      const float mn = fmaxf(m[i], warp_max(sc));
      const float p = valid ? __expf(sc - mn) : 0.f;
      const float corr = __expf(m[i] - mn);
      l[i] = l[i] * corr + warp_sum(p);
      m[i] = mn;
#pragma unroll
      for (int k = 0; k < Dm::NV; ++k) o[i][k] *= corr;
      // Full tile, unrolled: masked lanes hold p = 0, so the extra terms add nothing, and a fixed
      // trip count lets the compiler batch the shuffles instead of waiting on each one.
#pragma unroll 8
      for (int j = 0; j < kTile; ++j) {
        const float pj = __shfl_sync(0xffffffffu, p, j);
#pragma unroll
        for (int k = 0; k < Dm::NV; ++k)
          if (Dm::v_lane(lane, k)) o[i][k] += pj * Vs[j * Dm::SV + lane + 32 * k];
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; ++i) {
    const int t = q0 + w * kRowsPerWarp + i;
    if (t >= T) continue;
    float* orow = out + (size_t(b) * T + t) * C + h * D;
#pragma unroll
    for (int k = 0; k < Dm::NV; ++k)
      if (Dm::v_lane(lane, k)) orow[lane + 32 * k] = o[i][k] / l[i];
    if (lane == 0) lse[(size_t(b) * a.H + h) * T + t] = m[i] + logf(l[i]);
  }
}

// Loads a tile of 32 query rows for the backward: transformed q (unscaled), dO, lse, and
// Di = dO . O (the softmax backward's row term).
template <int D, PEKind PE>
__device__ void load_query_side(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                                const float* lse, int b, int h, int q0, float* Qs, float* dOs, float* Ls, float* Ds) {
  using Dm = Dims<D, PE>;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, T = a.T, C = a.H * D;
  const Ptrs P{T, a.H, C};
  for (int i = 0; i < kRowsPerWarp; ++i) {
    const int r = w * kRowsPerWarp + i, t = q0 + r;
    if (t >= T) {  // read by the full-tile loops with p = ds = 0: keep finite
      for (int c = lane; c < Dm::DQ; c += 32) Qs[r * Dm::SQ + c] = 0.f;
      for (int c = lane; c < D; c += 32) dOs[r * Dm::SV + c] = 0.f;
      if (lane == 0) Ds[r] = Ls[r] = 0.f;
      continue;
    }
    load_transformed<D, PE, false>(P.q(qkv, b, t, h, D), t, a.theta, nullptr, a.n_rot, 1.f, Qs + r * Dm::SQ, lane);
    const float* dor = dout + (size_t(b) * T + t) * C + h * D;
    const float* orow = out + (size_t(b) * T + t) * C + h * D;
    float di = 0.f;
    for (int c = lane; c < D; c += 32) {
      dOs[r * Dm::SV + c] = dor[c];
      di += dor[c] * orow[c];
    }
    di = warp_sum(di);
    if (lane == 0) {
      Ds[r] = di;
      Ls[r] = lse[(size_t(b) * a.H + h) * T + t];
    }
  }
}


// Shared memory of both backward kernels: one key tile (transformed K, V) and one query tile
// (transformed Q, dO, lse, Di). The base is 16-byte aligned and every row offset a multiple of 4
// floats, as the float4 loads need.
template <int D, PEKind PE>
struct BwdSmem {
  using Dm = Dims<D, PE>;
  float *Ks, *Vs, *Qs, *dOs, *Ls, *Ds;  // (32, SQ), (32, SV), (32, SQ), (32, SV), (32), (32)
  __device__ explicit BwdSmem(float* base)
      : Ks(base), Vs(Ks + kTile * Dm::SQ), Qs(Vs + kTile * Dm::SV), dOs(Qs + kTile * Dm::SQ),
        Ls(dOs + kTile * Dm::SV), Ds(Ls + kTile) {}
  static constexpr size_t bytes() { return sizeof(float) * (2 * kTile * Dm::SQ + 2 * kTile * Dm::SV + 2 * kTile); }
};

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads) attention_bwd_dkdv_kernel(AttentionArgs a, const float* qkv, const float* out,
                                                                  const float* dout, const float* lse, float* dqkv,
                                                                  float* ddelta_part) {
  using Dm = Dims<D, PE>;
  extern __shared__ float4 smem4[];
  const BwdSmem<D, PE> sm(reinterpret_cast<float*>(smem4));
  float *Ks = sm.Ks, *Vs = sm.Vs, *Qs = sm.Qs, *dOs = sm.dOs, *Ls = sm.Ls, *Ds = sm.Ds;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int b = blockIdx.z, h = blockIdx.y, k0 = blockIdx.x * kTile, T = a.T, C = a.H * D;
  const float slope = a.slopes ? a.slopes[h] : 0.f, sh = head_scale(a, b, h);
  load_key_side<D, PE>(a, qkv, b, h, k0, Ks, Vs);
  float dk[kRowsPerWarp][Dm::NQ], dv[kRowsPerWarp][Dm::NV];
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; ++i) {
#pragma unroll
    for (int k = 0; k < Dm::NQ; ++k) dk[i][k] = 0.f;
#pragma unroll
    for (int k = 0; k < Dm::NV; ++k) dv[i][k] = 0.f;
  }
  for (int q0 = k0; q0 < T; q0 += kTile) {
    __syncthreads();
    load_query_side<D, PE>(a, qkv, out, dout, lse, b, h, q0, Qs, dOs, Ls, Ds);
    __syncthreads();
    const int t = q0 + lane;  // this lane's query row
#pragma unroll
    for (int i = 0; i < kRowsPerWarp; ++i) {
      const int j = w * kRowsPerWarp + i, s = k0 + j;
      if (s >= T) continue;
      float p = 0.f, ds = 0.f;
      if (t < T && t >= s && s >= first_key(a, b, t)) {
        const float sc = dot_smem<Dm::DQ>(Qs + lane * Dm::SQ, Ks + j * Dm::SQ);
        const float dp = dot_smem<D>(dOs + lane * Dm::SV, Vs + j * Dm::SV);
        p = __expf(sc * sh - slope * float(t - s) - Ls[lane]);
        ds = p * (dp - Ds[lane]);
      }
      // Full tile, unrolled (rows past T and before the key hold p = ds = 0).
#pragma unroll 8
      for (int r = 0; r < kTile; ++r) {
        const float pr = __shfl_sync(0xffffffffu, p, r), dsr = __shfl_sync(0xffffffffu, ds, r);
#pragma unroll
        for (int k = 0; k < Dm::NV; ++k)
          if (Dm::v_lane(lane, k)) dv[i][k] += pr * dOs[r * Dm::SV + lane + 32 * k];
#pragma unroll
        for (int k = 0; k < Dm::NQ; ++k)
          if (Dm::q_lane(lane, k)) dk[i][k] += dsr * Qs[r * Dm::SQ + lane + 32 * k];
      }
    }
  }
  __syncthreads();  // Qs is reused below to hold the dK' rows for the PE backward
  const Ptrs P{T, a.H, C};
  const float* delta_h = head_delta(a, b, h, D);
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; ++i) {
    const int j = w * kRowsPerWarp + i, s = k0 + j;
    if (s >= T) continue;
#pragma unroll
    for (int k = 0; k < Dm::NQ; ++k)
      if (Dm::q_lane(lane, k)) Qs[j * Dm::SQ + lane + 32 * k] = dk[i][k] * sh;
    __syncwarp();
    float* base = dqkv + (size_t(b) * T + s) * 3 * C + h * D;
#pragma unroll
    for (int k = 0; k < Dm::NV; ++k)
      if (Dm::v_lane(lane, k)) base[2 * C + lane + 32 * k] = dv[i][k];
    pe_backward_row<D, PE, true>(Qs + j * Dm::SQ, P.q(qkv, b, s, h, D) + C, s, a.theta, delta_h, a.n_rot, base + C,
                                 ddelta_part ? ddelta_part + ((size_t(b) * T + s) * a.H + h) * D : nullptr, lane);
  }
}

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads) attention_bwd_dq_kernel(AttentionArgs a, const float* qkv, const float* out,
                                                                const float* dout, const float* lse, float* dqkv,
                                                                float* dtemp_part) {
  using Dm = Dims<D, PE>;
  extern __shared__ float4 smem4[];
  const BwdSmem<D, PE> sm(reinterpret_cast<float*>(smem4));
  float *Ks = sm.Ks, *Vs = sm.Vs, *Qs = sm.Qs, *dOs = sm.dOs, *Ls = sm.Ls, *Ds = sm.Ds;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kTile, T = a.T, C = a.H * D;
  const float slope = a.slopes ? a.slopes[h] : 0.f, sh = head_scale(a, b, h);
  load_query_side<D, PE>(a, qkv, out, dout, lse, b, h, q0, Qs, dOs, Ls, Ds);
  float dq[kRowsPerWarp][Dm::NQ];
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; ++i)
#pragma unroll
    for (int k = 0; k < Dm::NQ; ++k) dq[i][k] = 0.f;
  const int last_key = min(q0 + kTile, T) - 1;
  for (int k0 = 0; k0 <= last_key; k0 += kTile) {
    __syncthreads();
    load_key_side<D, PE>(a, qkv, b, h, k0, Ks, Vs);
    __syncthreads();
    const int s = k0 + lane;  // this lane's key
#pragma unroll
    for (int i = 0; i < kRowsPerWarp; ++i) {
      const int r = w * kRowsPerWarp + i, t = q0 + r;
      if (t >= T || k0 > t) continue;
      float ds = 0.f;
      if (s <= t && s >= first_key(a, b, t)) {
        const float sc = dot_smem<Dm::DQ>(Qs + r * Dm::SQ, Ks + lane * Dm::SQ);
        const float dp = dot_smem<D>(dOs + r * Dm::SV, Vs + lane * Dm::SV);
        const float p = __expf(sc * sh - slope * float(t - s) - Ls[r]);
        ds = p * (dp - Ds[r]);
      }
#pragma unroll 8
      for (int j = 0; j < kTile; ++j) {  // full tile: masked lanes hold ds = 0
        const float dsj = __shfl_sync(0xffffffffu, ds, j);
#pragma unroll
        for (int k = 0; k < Dm::NQ; ++k)
          if (Dm::q_lane(lane, k)) dq[i][k] += dsj * Ks[j * Dm::SQ + lane + 32 * k];
      }
    }
  }
  __syncthreads();  // Ks is reused for the dQ' rows
  const Ptrs P{T, a.H, C};
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; ++i) {
    const int r = w * kRowsPerWarp + i, t = q0 + r;
    if (t >= T) continue;
#pragma unroll
    for (int k = 0; k < Dm::NQ; ++k)
      if (Dm::q_lane(lane, k)) Ks[r * Dm::SQ + lane + 32 * k] = dq[i][k] * sh;
    __syncwarp();
    pe_backward_row<D, PE, false>(Ks + r * Dm::SQ, P.q(qkv, b, t, h, D), t, a.theta, nullptr, a.n_rot,
                                  dqkv + (size_t(b) * T + t) * 3 * C + h * D, nullptr, lane);
    if (dtemp_part)  // Qs holds this tile's unscaled transformed queries (load_query_side)
      temp_grad_row<Dm::DQ>(Ks + r * Dm::SQ, Qs + r * Dm::SQ, dtemp_part + (size_t(b) * T + t) * a.H + h, lane);
  }
}

template <int D, PEKind PE>
size_t fwd_smem() { return sizeof(float) * (2 * kTile * Dims<D, PE>::SQ + kTile * Dims<D, PE>::SV); }
template <int D, PEKind PE>
size_t bwd_smem() { return BwdSmem<D, PE>::bytes(); }

template <int D, PEKind PE>
void launch_fwd(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  static DeviceOnce once;
  const size_t sm = fwd_smem<D, PE>();
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_fwd_kernel<D, PE>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm)));
  });
  dim3 grid((a.T + kTile - 1) / kTile, a.H, a.B);
  attention_fwd_kernel<D, PE><<<grid, kThreads, sm, s>>>(a, qkv, out, lse);
  CUDA_CHECK_LAUNCH("attention_fwd");
}

template <int D, PEKind PE>
void launch_bwd(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  static DeviceOnce once;
  const size_t sm = bwd_smem<D, PE>();
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_bwd_dkdv_kernel<D, PE>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm)));
    CUDA_CHECK(cudaFuncSetAttribute(attention_bwd_dq_kernel<D, PE>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm)));
  });
  dim3 grid((a.T + kTile - 1) / kTile, a.H, a.B);
  attention_bwd_dkdv_kernel<D, PE><<<grid, kThreads, sm, s>>>(a, qkv, out, dout, lse, dqkv, ddelta_part);
  CUDA_CHECK_LAUNCH("attention_bwd_dkdv");
  attention_bwd_dq_kernel<D, PE><<<grid, kThreads, sm, s>>>(a, qkv, out, dout, lse, dqkv, dtemp_part);
  CUDA_CHECK_LAUNCH("attention_bwd_dq");
}

// n_rot defaults to 0, which would silently leave RoPE unrotated: refuse it here, once for every
// caller, rather than trusting each to fill it in.
void check_args(const AttentionArgs& a) {
  if (a.pe == PEKind::kRope && (a.n_rot < 2 || a.n_rot > a.D || a.n_rot % 2 != 0))
    throw CudaError("attention: rope needs an even n_rot in [2, " + std::to_string(a.D) + "] (got " +
                    std::to_string(a.n_rot) + ")");
}

}  // namespace

bool attention_has_tf32_form(int T, int D) {
  AttentionArgs a{};
  a.T = T;
  a.D = D;
  return attn::short_kernels_apply(a);
}

std::optional<AttentionOccupancy> attention_blocks_per_sm(const AttentionArgs& a) {
  if (!attn::short_kernels_apply(a) || a.T < 1) return std::nullopt;
  return a.tf32_products ? attn::attention_short_tf32_occupancy(a) : attn::attention_short_occupancy(a);
}

namespace {
// The floats of a's angle table, checked against its scratch (0: no scratch or no table).
size_t checked_angle_floats(const AttentionArgs& a) {
  if (!a.angle_scratch) return 0;
  const size_t need = attention_angle_floats(a.T, a.D, a.H, a.pe, a.n_rot, a.runs.count(a.B), a.bf16_flash);
  if (need > a.angle_scratch_floats)
    throw CudaError("attention: the angle scratch holds " + std::to_string(a.angle_scratch_floats) +
                    " floats, the table of this call needs " + std::to_string(need));
  return need;
}
// Where the whole-sequence or flash kernels run with an angle scratch, fills it with the call's
// angle table (attention_angles.cu), which they then read, unless the caller says it already holds
// it (AttentionArgs::angle_table_filled); refuses a scratch too small for it either way.
void prepare_angles(const AttentionArgs& a, cudaStream_t s) {
  const size_t need = checked_angle_floats(a);
  if (need > 0 && !a.angle_table_filled) attn::fill_angle_table(a, need, s);
}
}  // namespace

void attention_fill_angles(const AttentionArgs& a, cudaStream_t s) {
  const size_t need = checked_angle_floats(a);
  if (need > 0) attn::fill_angle_table(a, need, s);
}

namespace {
// The flash kernels' scratch (AttentionArgs::flash_scratch) is there and holds a's copies.
void check_flash_scratch(const AttentionArgs& a) {
  const size_t need = attention_flash_scratch_bytes(a.B, a.T, a.H, a.D, a.pe);
  if (!a.flash_scratch || a.flash_scratch_bytes < need)
    throw CudaError("attention: the flash kernels need a scratch of " + std::to_string(need) +
                    " bytes (AttentionArgs::flash_scratch), got " +
                    (a.flash_scratch ? std::to_string(a.flash_scratch_bytes) : std::string("none")));
}
}  // namespace

void attention_fwd(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  check_args(a);
  if (a.bf16_flash) {
    check_flash_scratch(a);
    prepare_angles(a, s);
    // On Hopper the warpgroup kernels: the forward 1.30x the mma.sync kernel's speed at T 4096,
    // D 64, and no slower at any measured shape (bench/log/037, one H100), with two warpgroups a
    // block or each tile's softmax under the next products where the forward's fwd_kernel says (039,
    // 040); both families pass the same GPU tests
    // (tests/test_cuda_attention_flash.cpp).
    if (attn::flash_wgmma_runs(a)) return attn::attention_fwd_flash_wgmma(a, qkv, out, lse, s);
    return attn::attention_fwd_flash(a, qkv, out, lse, s);
  }
  if (attn::short_kernels_apply(a)) {
    prepare_angles(a, s);
    return a.tf32_products ? attn::attention_fwd_short_tf32(a, qkv, out, lse, s)
                           : attn::attention_fwd_short(a, qkv, out, lse, s);
  }
  attn::for_head_dim_and_pe(attn::AllHeadDims{}, a, "attention", [&](auto d, auto pe) {
    launch_fwd<decltype(d)::value, decltype(pe)::value>(a, qkv, out, lse, s);
  });
}
void attention_bwd(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                   float* dqkv, float* ddelta_part, cudaStream_t s, float* dtemp_part) {
  check_args(a);
  if (a.log_temp && !dtemp_part) throw CudaError("attention backward: a learned temperature needs dtemp_part");
  if (a.bf16_flash) {
    check_flash_scratch(a);
    prepare_angles(a, s);
    // On Hopper dQ, dK and dV on warpgroup products: 1.32x the mma.sync backward's speed at T 4096,
    // D 64 (bench/log/038, one H100), and no slower than 1 % at any measured shape.
    if (attn::flash_wgmma_runs(a))
      return attn::attention_bwd_flash_wgmma_kv(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
    return attn::attention_bwd_flash(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
  }
  if (attn::short_kernels_apply(a)) {
    prepare_angles(a, s);
    return a.tf32_products ? attn::attention_bwd_short_tf32(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s)
                           : attn::attention_bwd_short(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
  }
  attn::for_head_dim_and_pe(attn::AllHeadDims{}, a, "attention", [&](auto d, auto pe) {
    launch_bwd<decltype(d)::value, decltype(pe)::value>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
  });
}

}  // namespace popebench::cuda
