// What the two whole-sequence attention kernels share (attention_short.cu: the products on CUDA
// cores in fp32; attention_short_tf32.cu: the same products on TF32 tensor cores): the shared
// memory layout, and the phases that are not products (rows PE-transformed into shared memory,
// the softmax, the PE backward from staged gradient rows). Sharing them keeps the two kernels
// the same maths but for the products, so the fp32 kernel is the tf32 one's reference.
// Only included by those two files.
#pragma once
#include <string>
#include <type_traits>

#include "kernels/cuda/attention_common.cuh"

namespace popebench::cuda::attn::short_seq {

constexpr int kThreads = 256, kWarps = kThreads / 32, kMaxRowTiles = kShortMaxT / 16;

// Rows held in shared memory: T rounded up to 16 (rows T..Tp-1 are zeros).
__host__ __device__ inline int padded_rows(int T) { return (T + 15) / 16 * 16; }
// Row stride of the (Tp, Tp) score buffers: 16 mod 32 floats, so that when a warp writes its two
// rows (lanes 0-15 and 16-31, 16 consecutive columns each) the halves fall in different banks.
__host__ __device__ inline int score_stride(int Tp) { return Tp % 32 == 16 ? Tp : Tp + 16; }

template <int D, PEKind PE>
struct ShortSmem {
  using Dm = Dims<D, PE>;
  // forward: Q (Tp, SQ), K (Tp, SQ), V (Tp, SV), P (Tp, SP)
  static size_t fwd_bytes(int T) {
    const int Tp = padded_rows(T);
    return sizeof(float) * Tp * (2 * Dm::SQ + Dm::SV + score_stride(Tp));
  }
  // forward with Q's space reused (the fp32 kernel's, whose products leave S in registers): Q
  // (Tp, SQ), then P (Tp, SP) and V (Tp, SV) in the same region once S is computed; K (Tp, SQ).
  // At the paper's shape (PoPE, D 64, Tp 48) that is 49.5 KB, four blocks an SM (71.3 KB and
  // three apart; bench/log/025-pope-s-forward-in-50-kb.md).
  __host__ __device__ static int q_region(int Tp) { return Tp * max(Dm::SQ, score_stride(Tp) + Dm::SV); }
  static size_t fwd_reuse_bytes(int T) {
    const int Tp = padded_rows(T);
    return sizeof(float) * (q_region(Tp) + Tp * Dm::SQ);
  }
  // backward, every buffer apart (the TF32 kernel's, whose products leave S and dP in shared
  // memory): Q, K (Tp, SQ), V, dO (Tp, SV), P, dS (Tp, SP), Di, lse (Tp); the PE backward's
  // staging rows (Tp, SQ) reuse V and dO once they are dead (2 SV >= SQ).
  static size_t bwd_bytes(int T) {
    const int Tp = padded_rows(T);
    return sizeof(float) * Tp * (2 * Dm::SQ + 2 * Dm::SV + 2 * score_stride(Tp) + 2);
  }
  // backward with buffers reused (the fp32 kernel's, whose products leave S and dP in registers):
  // Q, K (Tp, SQ); region A, V then P; region B, dO then dS; each (Tp, max(SV, SP)); Di and lse in
  // Q's padding columns. A and B together then hold dK' (Tp, SQ) for the PE backward, and K's
  // rows dQ'. At the paper's shape (PoPE, D 64, Tp 48) that is 75.0 KB, three blocks an SM
  // (bench/log/024-pope-s-backward-in-75-kb.md).
  __host__ __device__ static int region_stride(int Tp) { return max(Dm::SV, score_stride(Tp)); }
  static size_t bwd_reuse_bytes(int T) {
    const int Tp = padded_rows(T);
    return sizeof(float) * Tp * (2 * Dm::SQ + 2 * region_stride(Tp));
  }
  static_assert(2 * Dm::SV >= Dm::SQ, "staging rows must fit in V and dO (in A and B)");
  static_assert(Dm::SQ - Dm::DQ >= 2, "Di and lse live in Q's padding columns");
};

// Each row of the sequence, a warp per row: Qs (Tp, SQ) the transformed queries times q_scale
// (the forward's head scale; 1 in the backward) and Ks (Tp, SQ) the transformed keys; rows
// T..Tp-1 zeros (the full products read them with weight 0, so they must be finite). The angles
// come from a.angle_scratch's table when the launcher filled one (AttentionArgs::angle_scratch),
// as in pe_backward_rows.
template <int D, PEKind PE>
__device__ __forceinline__ void stage_qk_rows(const AttentionArgs& a, const float* qkv, int b, int h, float q_scale,
                                              float* Qs, float* Ks) {
  using Dm = Dims<D, PE>;
  constexpr int SQ = Dm::SQ;
  const int T = a.T, C = a.H * D, Tp = padded_rows(T);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const Ptrs P{T, a.H, C};
  const float* delta_h = head_delta(a, b, h, D);
  for (int r = warp; r < Tp; r += kWarps) {
    if (r >= T) {
      for (int c = lane; c < Dm::DQ; c += 32) Qs[r * SQ + c] = Ks[r * SQ + c] = 0.f;
      continue;
    }
    const float* q = P.q(qkv, b, r, h, D);
    load_transformed<D, PE, false>(q, r, a.theta, nullptr, a.n_rot, q_scale, Qs + r * SQ, lane, query_angles(a, r));
    load_transformed<D, PE, true>(q + C, r, a.theta, delta_h, a.n_rot, 1.f, Ks + r * SQ, lane, key_angles(a, b, h, r));
  }
}

// The values, a warp per row, into Vs (Tp, SV); rows T..Tp-1 zeros. Apart from the queries and
// keys because the fp32 forward stages them only once Q is dead (they share its space).
template <int D>
__device__ __forceinline__ void stage_v_rows(const AttentionArgs& a, const float* qkv, int b, int h, int SV, float* Vs) {
  const int T = a.T, C = a.H * D, Tp = padded_rows(T);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const Ptrs P{T, a.H, C};
  for (int r = warp; r < Tp; r += kWarps) {
    const float* v = r < T ? P.q(qkv, b, r, h, D) + 2 * C : nullptr;
    for (int c = lane; c < D; c += 32) Vs[r * SV + c] = v ? v[c] : 0.f;
  }
}

// Softmax over the causal scores in Ps (Tp, SP), in place, a warp per row (columns lane and
// lane + 32), and each row's log-sum-exp to lse. Reads only entries s <= t < T; writes every entry
// of the (Tp, Tp) buffer (zeros above the diagonal and in padded rows), since P V reads them all.
__device__ __forceinline__ void softmax_rows(const AttentionArgs& a, int b, int h, float* Ps, int SP, float* lse) {
  const int T = a.T, Tp = padded_rows(T);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  for (int t = warp; t < Tp; t += kWarps) {
    const int s0 = lane, s1 = lane + 32, lo = first_key(a, b, t);
    const bool v0 = t < T && s0 <= t && s0 >= lo, v1 = t < T && s1 <= t && s1 >= lo;
    const float x0 = v0 ? Ps[t * SP + s0] - slope * float(t - s0) : -INFINITY;
    const float x1 = v1 ? Ps[t * SP + s1] - slope * float(t - s1) : -INFINITY;
    const float m = warp_max(fmaxf(x0, x1));
    const float e0 = v0 ? __expf(x0 - m) : 0.f, e1 = v1 ? __expf(x1 - m) : 0.f;
    const float l = warp_sum(e0 + e1);
    const float inv = t < T ? 1.f / l : 0.f;
    if (s0 < Tp) Ps[t * SP + s0] = e0 * inv;
    if (s1 < Tp) Ps[t * SP + s1] = e1 * inv;
    if (lane == 0 && t < T) lse[(size_t(b) * a.H + h) * T + t] = m + logf(l);
  }
}

// The backward's other rows, a warp per row: dOs (Tp, SV) the output gradients, Ds[r * dl_stride]
// each row's dO . O and Ls[r * dl_stride] its forward log-sum-exp; rows T..Tp-1 zeros.
template <int D>
__device__ __forceinline__ void stage_dout_rows(const AttentionArgs& a, const float* out, const float* dout,
                                                const float* lse, int b, int h, int SV, float* dOs, float* Ds,
                                                float* Ls, int dl_stride) {
  const int T = a.T, C = a.H * D, Tp = padded_rows(T);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int r = warp; r < Tp; r += kWarps) {
    if (r >= T) {
      for (int c = lane; c < D; c += 32) dOs[r * SV + c] = 0.f;
      if (lane == 0) Ds[r * dl_stride] = Ls[r * dl_stride] = 0.f;
      continue;
    }
    const float* dor = dout + (size_t(b) * T + r) * C + h * D;
    const float* orow = out + (size_t(b) * T + r) * C + h * D;
    float di = 0.f;
    for (int c = lane; c < D; c += 32) {
      dOs[r * SV + c] = dor[c];
      di += dor[c] * orow[c];
    }
    di = warp_sum(di);
    if (lane == 0) {
      Ds[r * dl_stride] = di;
      Ls[r * dl_stride] = lse[(size_t(b) * a.H + h) * T + r];
    }
  }
}

// The PE backward of the staged gradient rows Gs (Tp, SQ) (of the transformed queries, or with
// key, of the transformed keys, the head's scale already applied), a warp per row, into dqkv;
// keys add delta's per-key gradient to ddelta_part, queries the temperature's to dtemp_part
// (Qs holding the unscaled transformed queries).
template <int D, PEKind PE>
__device__ __forceinline__ void pe_backward_rows(const AttentionArgs& a, const float* qkv, int b, int h, bool key,
                                                 const float* Gs, const float* Qs, float* dqkv, float* ddelta_part,
                                                 float* dtemp_part) {
  using Dm = Dims<D, PE>;
  constexpr int SQ = Dm::SQ;
  const int T = a.T, C = a.H * D;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const Ptrs P{T, a.H, C};
  const float* delta_h = head_delta(a, b, h, D);
  for (int r = warp; r < T; r += kWarps) {
    const float* x = P.q(qkv, b, r, h, D);
    float* dx = dqkv + (size_t(b) * T + r) * 3 * C + h * D;
    if (key)
      pe_backward_row<D, PE, true>(Gs + r * SQ, x + C, r, a.theta, delta_h, a.n_rot, dx + C,
                                   ddelta_part ? ddelta_part + ((size_t(b) * T + r) * a.H + h) * D : nullptr, lane,
                                   key_angles(a, b, h, r));
    else {
      pe_backward_row<D, PE, false>(Gs + r * SQ, x, r, a.theta, nullptr, a.n_rot, dx, nullptr, lane,
                                    query_angles(a, r));
      if (dtemp_part) temp_grad_row<Dm::DQ>(Gs + r * SQ, Qs + r * SQ, dtemp_part + (size_t(b) * T + r) * a.H + h, lane);
    }
  }
}

// The head dims the whole-sequence kernels are built for (for_head_dim_and_pe, attention_common.cuh).
using ShortHeadDims = std::integer_sequence<int, 16, 32, 64>;

// Raises a whole-sequence kernel's shared-memory limit to what the largest T takes (max_bytes),
// once per device and kernel (`once` is a static of each instantiation of this function).
template <auto kKernel>
void prepare_short(size_t max_bytes) {
  static DeviceOnce once;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(max_bytes)));
    // All of the SM's unified L1/shared memory as shared memory: the carveout is a hint the driver
    // sizes by itself otherwise, and PoPE's backward fits three blocks an SM only in the largest
    // (3 x (75 + 1 reserved) KB = 228 KB on an H200); these kernels read global memory once a row.
    CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
  });
}

// Launches a whole-sequence kernel on a's (head, batch) grid with `bytes` of shared memory.
template <auto kKernel, typename... Args>
void launch_short(size_t max_bytes, size_t bytes, const char* name, const AttentionArgs& a, cudaStream_t s,
                  Args... args) {
  prepare_short<kKernel>(max_bytes);
  kKernel<<<dim3(a.H, a.B), kThreads, bytes, s>>>(a, args...);
  CUDA_CHECK_LAUNCH(name);
}

// Blocks of a whole-sequence kernel an SM holds at once with `bytes` of shared memory (CUDA's
// occupancy calculator, from the registers and shared memory of the build).
template <auto kKernel>
int short_blocks_per_sm(size_t max_bytes, size_t bytes) {
  prepare_short<kKernel>(max_bytes);
  int n = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kKernel, kThreads, bytes));
  return n;
}

// The forward and backward launches of a kernel family: Kernels<D, PE>::fwd and ::bwd are its
// kernels and ::fwd_bytes(T), ::bwd_bytes(T) their shared memory (attention_short.cu's fp32 products,
// attention_short_tf32.cu's TF32 ones), whose public entry points call short_fwd / short_bwd.
template <template <int, PEKind> class Kernels>
struct Launch {
  struct Fwd {
    template <int D, PEKind PE>
    static void run(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
      using K = Kernels<D, PE>;
      launch_short<K::fwd>(K::fwd_bytes(kShortMaxT), K::fwd_bytes(a.T), K::fwd_name, a, s, qkv, out, lse);
    }
  };
  struct Bwd {
    template <int D, PEKind PE>
    static void run(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                    float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
      using K = Kernels<D, PE>;
      launch_short<K::bwd>(K::bwd_bytes(kShortMaxT), K::bwd_bytes(a.T), K::bwd_name, a, s, qkv, out, dout, lse, dqkv,
                           ddelta_part, dtemp_part);
    }
  };
  struct BlocksPerSM {
    template <int D, PEKind PE>
    static AttentionOccupancy run(const AttentionArgs& a) {
      using K = Kernels<D, PE>;
      return {short_blocks_per_sm<K::fwd>(K::fwd_bytes(kShortMaxT), K::fwd_bytes(a.T)),
              short_blocks_per_sm<K::bwd>(K::bwd_bytes(kShortMaxT), K::bwd_bytes(a.T))};
    }
  };
};
template <template <int, PEKind> class Kernels>
void short_fwd(const AttentionArgs& a, const char* what, const float* qkv, float* out, float* lse, cudaStream_t s) {
  if (a.T >= 1) for_head_dim_and_pe(ShortHeadDims{}, a, what, [&](auto d, auto pe) {
      Launch<Kernels>::Fwd::template run<decltype(d)::value, decltype(pe)::value>(a, qkv, out, lse, s);
    });
}
template <template <int, PEKind> class Kernels>
void short_bwd(const AttentionArgs& a, const char* what, const float* qkv, const float* out, const float* dout,
               const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  if (a.T >= 1)
    for_head_dim_and_pe(ShortHeadDims{}, a, what, [&](auto d, auto pe) {
      Launch<Kernels>::Bwd::template run<decltype(d)::value, decltype(pe)::value>(a, qkv, out, dout, lse, dqkv,
                                                                                   ddelta_part, dtemp_part, s);
    });
}
template <template <int, PEKind> class Kernels>
AttentionOccupancy short_occupancy(const AttentionArgs& a, const char* what) {
  return for_head_dim_and_pe(ShortHeadDims{}, a, what, [&](auto d, auto pe) {
    return Launch<Kernels>::BlocksPerSM::template run<decltype(d)::value, decltype(pe)::value>(a);
  });
}

}  // namespace popebench::cuda::attn::short_seq
