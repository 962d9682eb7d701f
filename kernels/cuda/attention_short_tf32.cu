// The whole-sequence attention kernels (attention_short.cu) with their seven matrix products on
// TF32 tensor cores (WMMA m16n16k8, fp32 accumulation) instead of fp32 FMAs: S = Q K^T and O = P V
// forward; S, dP = dO V^T, dV = P^T dO, dQ = dS K and dK = dS^T Q backward. Everything else (the
// PE transforms, the softmax, P and dS, the PE backward) is attention_short.cuh's, the same code
// as the fp32 kernel's, so the two differ only in how the products round: each operand is rounded
// to TF32 (10 mantissa bits, unit roundoff 2^-11) once per product, the sums stay fp32.
// Chosen by AttentionArgs::tf32_products (TrainConfig::gpu_attention "tf32"); T <= 64 only, as
// the fp32 short kernels (the tiled kernels for longer T have no tensor-core form).
//
// Why (bench/log/020-pope-s-attention-on-tensor-cores.md): at R = 8 batched PoPE runs the fused
// attention takes 11.1 of the 26.2 ms step, with its products as register-tiled fp32 FMAs, while
// PyTorch's vmapped step (attention written out, torch.compile) runs them as bf16 tensor-core
// products. Whether the products are what costs is what this variant measures.
//
// Work split: the (Tp, Tp) and (Tp, width) results are 16 x 16 tiles dealt round-robin to the 8
// warps; a causal product computes only the tiles and k-ranges the triangle reaches (S and dP:
// tiles j <= i; P V and dS K: k < 16 (i + 1); P^T dO and dS^T Q: k >= 16 m). Results go through
// shared memory (a tile's register layout is opaque), which also keeps padded rows T..Tp-1 from
// reaching global memory. Every tile pointer is 32-byte aligned as WMMA requires: row strides
// (SQ, SV, SP) are multiples of 4 floats, tiles start at multiples of 16 rows and 8 columns, and
// every buffer starts at a multiple of 16 rows.
#include <mma.h>

#include <type_traits>

#include "kernels/cuda/attention_short.cuh"

namespace popebench::cuda::attn {

namespace {

using namespace short_seq;
namespace wmma = nvcuda::wmma;

using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using FragAt = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major>;
using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using FragBt = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major>;
using FragC = wmma::fragment<wmma::accumulator, 16, 16, 8, float>;

template <typename Frag>
__device__ __forceinline__ void load_tf32(Frag& f, const float* p, int ld) {
  wmma::load_matrix_sync(f, p, ld);
#pragma unroll
  for (int e = 0; e < f.num_elements; ++e) f.x[e] = wmma::__float_to_tf32(f.x[e]);
}

// Out = scale * A B for a (M, N) result of 16 x 16 tiles, k over [k_lo(i), k_hi(i)) in steps of 8
// for tile row i. A is (M, K) row-major at stride lda, or (TRANS_A) stored as (K, M) row-major, i.e.
// A(m, k) = A[k * lda + m]; B is (K, N) row-major at stride ldb, or (TRANS_B) stored as (N, K),
// B(k, n) = B[n * ldb + k]. CAUSAL_TILES: only tiles j <= i (the (T, T) score products).
// KRange: 0 full, 1 k < 16 (i + 1) (lower-triangular A), 2 k >= 16 i (A^T of a lower-triangular).
template <bool TRANS_A, bool TRANS_B, bool CAUSAL_TILES, int KRange>
__device__ __forceinline__ void tile_product(const float* A, int lda, const float* B, int ldb, float* Out, int ldo,
                                             int row_tiles, int col_tiles, int K, float scale) {
  const int warp = threadIdx.x >> 5;
  const int tiles = CAUSAL_TILES ? row_tiles * (row_tiles + 1) / 2 : row_tiles * col_tiles;
  for (int w = warp; w < tiles; w += kWarps) {
    int i, j;
    if (CAUSAL_TILES) {  // w = i (i + 1) / 2 + j, j <= i
      i = 0;
      while ((i + 1) * (i + 2) / 2 <= w) ++i;
      j = w - i * (i + 1) / 2;
    } else {
      i = w / col_tiles;
      j = w % col_tiles;
    }
    const int k_lo = KRange == 2 ? 16 * i : 0, k_hi = KRange == 1 ? min(K, 16 * (i + 1)) : K;
    FragC c;
    wmma::fill_fragment(c, 0.f);
    for (int k = k_lo; k < k_hi; k += 8) {
      std::conditional_t<TRANS_A, FragAt, FragA> fa;
      std::conditional_t<TRANS_B, FragBt, FragB> fb;
      load_tf32(fa, TRANS_A ? A + k * lda + 16 * i : A + (16 * i) * lda + k, lda);
      load_tf32(fb, TRANS_B ? B + (16 * j) * ldb + k : B + k * ldb + 16 * j, ldb);
      wmma::mma_sync(c, fa, fb, c);
    }
    if (scale != 1.f)
#pragma unroll
      for (int e = 0; e < c.num_elements; ++e) c.x[e] *= scale;
    wmma::store_matrix_sync(Out + (16 * i) * ldo + 16 * j, c, ldo, wmma::mem_row_major);
  }
}

// Rows r < T of a (Tp, width) shared-memory result, stride ld, to base + r * row_stride.
__device__ __forceinline__ void copy_rows_out(const float* S, int ld, int width, int T, float* base,
                                              size_t row_stride) {
  for (int e = threadIdx.x; e < T * width; e += kThreads) {
    const int r = e / width, c = e % width;
    base[r * row_stride + c] = S[r * ld + c];
  }
}

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads) attention_fwd_short_tf32_kernel(AttentionArgs a, const float* qkv,
                                                                           float* out, float* lse) {
  using Dm = Dims<D, PE>;
  constexpr int SQ = Dm::SQ, SV = Dm::SV;
  extern __shared__ __align__(128) float smem_tf32[];
  const int T = a.T, C = a.H * D, h = blockIdx.x, b = blockIdx.y;
  const int Tp = padded_rows(T), SP = score_stride(Tp), nt = Tp / 16;
  float* Qs = smem_tf32;     // (Tp, SQ) transformed queries times scale; then O (Tp, SV)
  float* Ks = Qs + Tp * SQ;  // (Tp, SQ) transformed keys
  float* Vs = Ks + Tp * SQ;  // (Tp, SV)
  float* Ps = Vs + Tp * SV;  // (Tp, SP) scores, then probabilities
  stage_qk_rows<D, PE>(a, qkv, b, h, head_scale(a, b, h), Qs, Ks);
  stage_v_rows<D>(a, qkv, b, h, SV, Vs);
  __syncthreads();
  tile_product<false, true, true, 0>(Qs, SQ, Ks, SQ, Ps, SP, nt, nt, Dm::DQ, 1.f);
  __syncthreads();
  softmax_rows(a, b, h, Ps, SP, lse);
  __syncthreads();
  float* Os = Qs;  // Q is dead
  tile_product<false, false, false, 1>(Ps, SP, Vs, SV, Os, SV, nt, D / 16, Tp, 1.f);
  __syncthreads();
  copy_rows_out(Os, SV, D, T, out + size_t(b) * T * C + h * D, C);
}

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads) attention_bwd_short_tf32_kernel(AttentionArgs a, const float* qkv,
                                                                           const float* out, const float* dout,
                                                                           const float* lse, float* dqkv,
                                                                           float* ddelta_part, float* dtemp_part) {
  using Dm = Dims<D, PE>;
  constexpr int SQ = Dm::SQ, SV = Dm::SV;
  extern __shared__ __align__(128) float smem_tf32[];
  const int T = a.T, C = a.H * D, h = blockIdx.x, b = blockIdx.y;
  const int Tp = padded_rows(T), SP = score_stride(Tp), nt = Tp / 16;
  float* Qs = smem_tf32;      // (Tp, SQ) transformed queries (unscaled)
  float* Ks = Qs + Tp * SQ;   // (Tp, SQ) transformed keys
  float* Vs = Ks + Tp * SQ;   // (Tp, SV); then dV
  float* dOs = Vs + Tp * SV;  // (Tp, SV)
  float* Ps = dOs + Tp * SV;  // (Tp, SP) scores, then probabilities
  float* dSs = Ps + Tp * SP;  // (Tp, SP) dP, then score gradients
  float* Ds = dSs + Tp * SP;  // (Tp) dO . O per row
  float* Ls = Ds + Tp;        // (Tp) log-sum-exp from the forward
  float* Gs = Vs;             // (Tp, SQ) gradient rows for the PE backward, once V, dV and dO are dead
  const float sh = head_scale(a, b, h);
  stage_qk_rows<D, PE>(a, qkv, b, h, 1.f, Qs, Ks);
  stage_v_rows<D>(a, qkv, b, h, SV, Vs);
  stage_dout_rows<D>(a, out, dout, lse, b, h, SV, dOs, Ds, Ls, 1);
  __syncthreads();
  tile_product<false, true, true, 0>(Qs, SQ, Ks, SQ, Ps, SP, nt, nt, Dm::DQ, 1.f);   // S
  tile_product<false, true, true, 0>(dOs, SV, Vs, SV, dSs, SP, nt, nt, D, 1.f);      // dP
  __syncthreads();

  {  // P and dS = P (dP - Di) in place, every entry written (zeros off the causal triangle), as
     // the fp32 kernel computes them from its registers
    const float slope = a.slopes ? a.slopes[h] : 0.f;
    for (int e = threadIdx.x; e < Tp * Tp; e += kThreads) {
      const int t = e / Tp, s = e % Tp;
      float p = 0.f, ds = 0.f;
      if (s <= t && t < T && s >= first_key(a, b, t)) {
        p = __expf(Ps[t * SP + s] * sh - slope * float(t - s) - Ls[t]);
        ds = p * (dSs[t * SP + s] - Ds[t]);
      }
      Ps[t * SP + s] = p;
      dSs[t * SP + s] = ds;
    }
  }
  __syncthreads();

  // dV = P^T dO into V's rows (V is dead once dP is), then to global memory.
  tile_product<true, false, false, 2>(Ps, SP, dOs, SV, Vs, SV, nt, D / 16, Tp, 1.f);
  __syncthreads();
  copy_rows_out(Vs, SV, D, T, dqkv + size_t(b) * T * 3 * C + 2 * C + h * D, 3 * size_t(C));
  __syncthreads();  // V, dV and dO are dead: Gs may overwrite them

  // dQ' = s_h dS K, then dK' = s_h dS^T Q, each staged in Gs for the PE backward (s_h: head_scale).
  tile_product<false, false, false, 1>(dSs, SP, Ks, SQ, Gs, SQ, nt, Dm::DQ / 16, Tp, sh);
  __syncthreads();
  pe_backward_rows<D, PE>(a, qkv, b, h, false, Gs, Qs, dqkv, ddelta_part, dtemp_part);
  __syncthreads();
  tile_product<true, false, false, 2>(dSs, SP, Qs, SQ, Gs, SQ, nt, Dm::DQ / 16, Tp, sh);
  __syncthreads();
  pe_backward_rows<D, PE>(a, qkv, b, h, true, Gs, Qs, dqkv, ddelta_part, dtemp_part);
}

template <int D, PEKind PE>
struct Kernels {
  static constexpr auto fwd = attention_fwd_short_tf32_kernel<D, PE>;
  static constexpr auto bwd = attention_bwd_short_tf32_kernel<D, PE>;
  static constexpr const char* fwd_name = "attention_fwd_short_tf32";
  static constexpr const char* bwd_name = "attention_bwd_short_tf32";
  static size_t fwd_bytes(int T) { return ShortSmem<D, PE>::fwd_bytes(T); }
  static size_t bwd_bytes(int T) { return ShortSmem<D, PE>::bwd_bytes(T); }
};

}  // namespace

void attention_fwd_short_tf32(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  short_fwd<Kernels>(a, "attention (short, tf32)", qkv, out, lse, s);
}
void attention_bwd_short_tf32(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                              const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  short_bwd<Kernels>(a, "attention (short, tf32)", qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
}

AttentionOccupancy attention_short_tf32_occupancy(const AttentionArgs& a) { return short_occupancy<Kernels>(a, "attention (short, tf32)"); }

}  // namespace popebench::cuda::attn
