// Device code shared by the two attention kernel families (attention.cu: key/query tiles of 32
// for any T; attention_short.cu: the whole sequence of a (batch, head) in one block for short T):
// the PE transforms of a row as it is loaded into shared memory and their backward, and the
// per-device kernel setup. Only included by those two files.
#pragma once
#include <cmath>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <cuda_bf16.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda::attn {

constexpr double kTwoPi = 6.283185307179586, kDeltaMin = -6.283185307179586;

__device__ __forceinline__ void angle_sincos(int pos, double theta, double phase, float* sn, float* cs) {
  double a = double(pos) * theta + phase;
  a -= kTwoPi * rint(a * (1.0 / kTwoPi));
  sincosf(float(a), sn, cs);
}
// e^x as the tensor-core kernels take it: 2^(x log2 e) from the SFU's ex2 (what __expf does),
// with the scale folded into a multiply-add with the subtrahend, e^(x - m) = ex2_approx(fmaf(x,
// kLog2e, -m kLog2e)): one FFMA and one MUFU a score instead of a subtract, a multiply and the
// MUFU (FlashAttention-2's exp2 form). ex2 of -inf is +0.
constexpr float kLog2e = 1.4426950408889634f;
__device__ __forceinline__ float ex2_approx(float x) {
  float y;
  asm("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float softplusf(float x) { return x > 20.f ? x : log1pf(expf(x)); }
__device__ __forceinline__ float sigmoidf(float x) { return 1.f / (1.f + expf(-x)); }
__device__ __forceinline__ double clamp_delta(float d) { return fmin(fmax(double(d), kDeltaMin), 0.0); }
__device__ __forceinline__ bool delta_in_range(float d) { return double(d) >= kDeltaMin && double(d) <= 0.0; }

template <int D, PEKind PE> struct Dims {
  static_assert(D % 16 == 0, "head dims are multiples of 16 (the short kernels' 16 column groups)");
  static constexpr int DQ = PE == PEKind::kPope ? 2 * D : D;   // width the dot product sees
  static constexpr int NQ = (DQ + 31) / 32, NV = (D + 31) / 32;  // elements per lane
  static constexpr int SQ = DQ + 4, SV = D + 4;                // padded smem row strides (see dot_smem)
  // Whether lane holds element k of a lanes-over-channels row. Always at widths that are
  // multiples of 32 (the test compiles away); at D 16 lanes 16-31 hold none of a value row (and,
  // but for PoPE, of a query row): they compute on padding or the next row and never store it.
  __device__ static constexpr bool v_lane(int lane, int k) { return D % 32 == 0 || lane + 32 * k < D; }
  __device__ static constexpr bool q_lane(int lane, int k) { return DQ % 32 == 0 || lane + 32 * k < DQ; }
};

// Channel c's (cos, sin) from a row of the angle table (attention_angles.cu), which holds what
// angle_sincos gives for the row's position, channel and phase.
__device__ __forceinline__ void table_angle(const float2* row, int c, float* sn, float* cs) {
  const float2 v = row[c];
  *cs = v.x, *sn = v.y;
}

// Stores v in a row of fp32 (the CUDA-core kernels) or bf16 (the tensor-core ones: rounded to
// nearest even, as __float2bfloat16_rn).
__device__ __forceinline__ void store_elem(float* dst, int i, float v) { dst[i] = v; }
__device__ __forceinline__ void store_elem(__nv_bfloat16* dst, int i, float v) { dst[i] = __float2bfloat16_rn(v); }

// One warp writes the PE-transformed row (times mul) of x (D floats, global) at position pos,
// into dst (fp32 or bf16: the same fp32 values, rounded once at the store).
// RoPE rotates the first n_rot channels (half-split pairs c, c + n_rot/2) and passes the rest
// through: n_rot = D for rope, D/2 for rope-half (as kernels/cpu/rope.hpp). angles: this row's
// angle table row (for RoPE, n_rot/2 pairs; for PoPE, D), or nullptr.
template <int D, PEKind PE, bool KEY, typename Dst>
__device__ void load_transformed(const float* x, int pos, const double* theta, const float* delta_h, int n_rot,
                                 float mul, Dst* dst, int lane, const float2* angles = nullptr) {
  // A lane per channel (RoPE: per rotated pair), writing both of its outputs from one angle: each
  // angle's double-precision reduction and sincos (and PoPE's softplus) once, not once per output
  // as a lane-per-output loop would; the expressions per output are unchanged.
  if constexpr (PE == PEKind::kNone) {
    for (int e = lane; e < D; e += 32) store_elem(dst, e, x[e] * mul);
  } else if constexpr (PE == PEKind::kRope) {
    const int half = n_rot / 2;
    for (int c = lane; c < half; c += 32) {
      float sn, cs;
      if (angles)
        table_angle(angles, c, &sn, &cs);
      else
        angle_sincos(pos, theta[c], 0.0, &sn, &cs);
      store_elem(dst, c, (x[c] * cs - x[c + half] * sn) * mul);
      store_elem(dst, c + half, (x[c] * sn + x[c + half] * cs) * mul);
    }
    for (int e = n_rot + lane; e < D; e += 32) store_elem(dst, e, x[e] * mul);
  } else {
    for (int c = lane; c < D; c += 32) {
      float sn, cs;
      if (angles)
        table_angle(angles, c, &sn, &cs);
      else
        angle_sincos(pos, theta[c], KEY ? clamp_delta(delta_h[c]) : 0.0, &sn, &cs);
      const float mu = softplusf(x[c]);
      store_elem(dst, c, (mu * cs) * mul);
      store_elem(dst, D + c, (mu * sn) * mul);
    }
  }
}

// Gradient through the PE for one row: g (DQ floats, smem) -> dx (D floats, global);
// PoPE keys also write this row's contribution to d delta (ddelta_row, D floats). angles: the
// row's angle table row, or nullptr (as load_transformed).
template <int D, PEKind PE, bool KEY>
__device__ void pe_backward_row(const float* g, const float* x, int pos, const double* theta, const float* delta_h,
                                int n_rot, float* dx, float* ddelta_row, int lane, const float2* angles = nullptr) {
  for (int c = lane; c < D; c += 32) {
    if constexpr (PE == PEKind::kNone) {
      dx[c] = g[c];
    } else if constexpr (PE == PEKind::kRope) {
      const int half = n_rot / 2;
      if (c >= n_rot) {
        dx[c] = g[c];
      } else {
        const int cc = c < half ? c : c - half;
        float sn, cs;
        if (angles)
          table_angle(angles, cc, &sn, &cs);
        else
          angle_sincos(pos, theta[cc], 0.0, &sn, &cs);
        dx[c] = c < half ? g[c] * cs + g[c + half] * sn : -g[cc] * sn + g[c] * cs;
      }
    } else {
      float sn, cs;
      if (angles)
        table_angle(angles, c, &sn, &cs);
      else
        angle_sincos(pos, theta[c], KEY ? clamp_delta(delta_h[c]) : 0.0, &sn, &cs);
      const float dmu = g[c] * cs + g[D + c] * sn;
      dx[c] = dmu * sigmoidf(x[c]);
      if (KEY) ddelta_row[c] = delta_in_range(delta_h[c]) ? softplusf(x[c]) * (-g[c] * sn + g[D + c] * cs) : 0.f;
    }
  }
}

// Head h's score multiplier for batch row b: the scale, times exp(log-temperature) when it is
// learned (each run of a batch its own: AttentionArgs::runs).
__device__ __forceinline__ float head_scale(const AttentionArgs& a, int b, int h) {
  return a.log_temp ? a.scale * expf(a.log_temp[a.runs.offset(b) + h]) : a.scale;
}
// PoPE's key phases (D floats) of head h for batch row b, or nullptr.
__device__ __forceinline__ const float* head_delta(const AttentionArgs& a, int b, int h, int D) {
  return a.delta ? a.delta + a.runs.offset(b) + size_t(h) * D : nullptr;
}
// First key a query t of row b attends (masked left pads: AttentionArgs::key_start).
__device__ __forceinline__ int first_key(const AttentionArgs& a, int b, int t) {
  if (!a.key_start) return 0;
  const int ks = a.key_start[b];
  return t < ks ? t : ks;
}
// Rows of the angle table in a.angle_scratch (attention_angles.cu fills it before the
// whole-sequence kernels run; nullptr: none). Query rows (T, n) of (cos, sin), n = D for PoPE and
// n_rot / 2 for RoPE; PoPE's key rows (runs, H, T, D) follow, the run of batch row b being
// b / runs.rows. RoPE's keys are rotated by the query angles.
__device__ __forceinline__ const float2* query_angles(const AttentionArgs& a, int t) {
  if (!a.angle_scratch) return nullptr;
  const int n = a.pe == PEKind::kPope ? a.D : a.n_rot / 2;
  return reinterpret_cast<const float2*>(a.angle_scratch) + size_t(t) * n;
}
__device__ __forceinline__ const float2* key_angles(const AttentionArgs& a, int b, int h, int t) {
  if (!a.angle_scratch) return nullptr;
  if (a.pe != PEKind::kPope) return query_angles(a, t);
  const size_t run = a.runs.rows > 0 ? size_t(b / a.runs.rows) : 0;
  return reinterpret_cast<const float2*>(a.angle_scratch) + size_t(a.T) * a.D + ((run * a.H + h) * a.T + t) * a.D;
}

// Row r's term of the log-temperature gradient: g (the gradient of the transformed query, DQ
// floats) . qt (the transformed query, unscaled), one warp; lane 0 writes it to out.
template <int DQ>
__device__ __forceinline__ void temp_grad_row(const float* g, const float* qt, float* out, int lane) {
  float acc = 0.f;
  for (int c = lane; c < DQ; c += 32) acc += g[c] * qt[c];
  acc = warp_sum(acc);
  if (lane == 0) *out = acc;
}

struct Ptrs {
  int T, H, C;  // C = H * D
  __device__ const float* q(const float* qkv, int b, int t, int h, int D) const {
    return qkv + (size_t(b) * T + t) * 3 * C + h * D;
  }
};

// Calls f(dim, pe) with a's head dim and PE kind as compile-time constants (std::integral_constant:
// decltype(dim)::value, decltype(pe)::value) and returns what it returns: the one place a kernel
// family's instantiations are chosen. Dims: the head dims the family is built for (the tiled and
// flash kernels 16, 32, 64 and 128; the whole-sequence ones 16, 32 and 64); `what` names the
// kernels in the error a head dim without one gets.
template <int... Dims, typename F>
auto for_head_dim_and_pe(std::integer_sequence<int, Dims...>, const AttentionArgs& a, const char* what, F&& f) {
  static constexpr int kDims[] = {Dims...};
  using R = decltype(f(std::integral_constant<int, kDims[0]>{}, std::integral_constant<PEKind, PEKind::kNone>{}));
  auto by_pe = [&](auto dim) -> R {
    switch (a.pe) {
      case PEKind::kNone: return f(dim, std::integral_constant<PEKind, PEKind::kNone>{});
      case PEKind::kRope: return f(dim, std::integral_constant<PEKind, PEKind::kRope>{});
      case PEKind::kPope: break;
    }
    return f(dim, std::integral_constant<PEKind, PEKind::kPope>{});
  };
  if constexpr (std::is_void_v<R>) {
    if (((a.D == Dims ? (by_pe(std::integral_constant<int, Dims>{}), true) : false) || ...)) return;
  } else {
    std::optional<R> r;
    ((a.D == Dims ? (r = by_pe(std::integral_constant<int, Dims>{}), true) : false) || ...);
    if (r) return *r;
  }
  std::string dims;
  ((dims += (dims.empty() ? "" : ", ") + std::to_string(Dims)), ...);
  throw CudaError(std::string(what) + ": head dim " + std::to_string(a.D) + " is not supported on the GPU (" + dims + ")");
}
using AllHeadDims = std::integer_sequence<int, 16, 32, 64, 128>;

// Runs a setup function once per device: a kernel attribute such as the dynamic shared-memory
// limit belongs to the device that was current when it was set, and runs of one process may sit
// on different GPUs (`--gpus`) and threads.
class DeviceOnce {
 public:
  template <typename F>
  void run(F&& f) {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (dev < 0 || dev >= kMaxDevices) throw CudaError("device index " + std::to_string(dev) + " out of range");
    std::call_once(flags_[dev], std::forward<F>(f));
  }

 private:
  static constexpr int kMaxDevices = 64;
  std::once_flag flags_[kMaxDevices];
};

// The whole-sequence kernels (attention_short.cu) take (batch, head) pairs whose T is at most
// kShortMaxT and whose head dim is 16, 32 or 64 (at D 128 and T 64 PoPE's backward would need
// 236 KB of shared memory in the TF32 kernel's layout, over the 227 a block may have; 196 KB in the
// fp32 kernel's, which reuses its buffers, but its register tiles are not instantiated at D 128);
// the tiled kernels take the rest.
constexpr int kShortMaxT = 64;
inline bool short_kernels_apply(const AttentionArgs& a) {
  return a.T <= kShortMaxT && (a.D == 16 || a.D == 32 || a.D == 64);
}
// Fills a.angle_scratch with the angle table of a's shape (attention_angles.cu): table_floats =
// attention_angle_floats(...) of that shape, which the caller has checked the scratch holds.
void fill_angle_table(const AttentionArgs& a, size_t table_floats, cudaStream_t s);
void attention_fwd_short(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s);
void attention_bwd_short(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                         const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s);
// The same with the products on TF32 tensor cores (AttentionArgs::tf32_products).
void attention_fwd_short_tf32(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s);
void attention_bwd_short_tf32(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                              const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s);
// The same on bf16 tensor cores (AttentionArgs::bf16_flash), any T: attention_flash.hpp.
// Blocks an SM holds at once of either family's forward and backward at a's shape (T >= 1).
AttentionOccupancy attention_short_occupancy(const AttentionArgs& a);
AttentionOccupancy attention_short_tf32_occupancy(const AttentionArgs& a);

}  // namespace popebench::cuda::attn
