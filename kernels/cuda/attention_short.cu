// Fused causal attention for short sequences (T <= 64, head dim 16, 32 or 64): one block of 256 threads
// holds the whole sequence of one (batch, head) in shared memory, so every query and key row is
// PE-transformed exactly once per kernel, and the products run as small register-tiled matrix
// products instead of the tiled kernels' one-row-per-lane dot products and shuffles.
// Same maths, same inputs and outputs as the tiled kernels in attention.cu (see there); the GPU
// tests compare both families with the CPU reference at T on either side of the switch.
//
// Why (bench/log/006-attention-whole-sequence-per-block-for-t.md): at the paper's shape (T 48, D 64)
// the tiled kernels transform each row up to 4 times per layer (forward, dK/dV, dQ, each
// reloading tiles), run a block per 32-row tile with half of it idle at T 48, and spend their
// issue slots on shuffles and one shared-memory load per two FMAs; they took 1.9 / 3.1 ms of the
// 4.6 / 6.1 ms step (RoPE / PoPE).
//
// Thread layout of every product: 16 x 16 threads (ty, tx); a thread owns rows ty + 16 i
// (i < Tp / 16, at most 4) and columns tx + 16 j of a (T, T) matrix, or the contiguous columns
// tx * W .. tx * W + W - 1 of a (T, width) matrix (W = width / 16). Interleaved rows keep the
// causal work even across threads; within a warp, lanes 0-15 and 16-31 read two rows (broadcast)
// and 16 different rows or contiguous columns of the other operand (conflict-free: rows padded
// by 4 floats, see Dims).
#include "kernels/cuda/attention_short.cuh"

namespace popebench::cuda::attn {

namespace {

using namespace short_seq;

// W floats from shared memory (16-byte aligned when W >= 4, 8-byte when W == 2; W == 1 at head dim 16).
template <int W>
__device__ __forceinline__ void load_vec(const float* p, float (&v)[W]) {
  if constexpr (W % 4 == 0) {
#pragma unroll
    for (int k = 0; k < W / 4; ++k) {
      const float4 x = reinterpret_cast<const float4*>(p)[k];
      v[4 * k] = x.x, v[4 * k + 1] = x.y, v[4 * k + 2] = x.z, v[4 * k + 3] = x.w;
    }
  } else if constexpr (W == 2) {
    const float2 x = *reinterpret_cast<const float2*>(p);
    v[0] = x.x, v[1] = x.y;
  } else {
    static_assert(W == 1, "widths are 1, 2, 4 or 8 floats per thread");
    v[0] = *p;
  }
}

// acc[i][j] += A[ty + 16 i] . B[tx + 16 j] over N channels, for the causal blocks j <= i < nt
// (blocks j > i are all above the diagonal). Rows have stride S floats (16-byte aligned).
template <int N, int S>
__device__ __forceinline__ void causal_row_dots(const float* A, const float* B, int ty, int tx, int nt,
                                                float (&acc)[kMaxRowTiles][kMaxRowTiles]) {
#pragma unroll 2
  for (int c = 0; c < N; c += 4) {
    float4 av[kMaxRowTiles], bv[kMaxRowTiles];
#pragma unroll
    for (int i = 0; i < kMaxRowTiles; ++i)
      if (i < nt) {
        av[i] = *reinterpret_cast<const float4*>(A + (ty + 16 * i) * S + c);
        bv[i] = *reinterpret_cast<const float4*>(B + (tx + 16 * i) * S + c);
      }
#pragma unroll
    for (int i = 0; i < kMaxRowTiles; ++i)
#pragma unroll
      for (int j = 0; j <= i; ++j)
        if (i < nt)
          acc[i][j] += av[i].x * bv[j].x + av[i].y * bv[j].y + av[i].z * bv[j].z + av[i].w * bv[j].w;
  }
}

// acc[i][w] += sum_k M(row_i, k) X[k][tx W + w] for k < Tp, where M(r, k) is Ms[r * SP + k]
// (TRANSPOSED false) or Ms[k * SP + r] (true), row_i = ty + 16 i: the (T, T) x (T, width)
// products (P V, dS K; P^T dO, dS^T Q). X rows have stride S floats.
template <int W, int S, bool TRANSPOSED>
__device__ __forceinline__ void mat_rows(const float* Ms, int SP, const float* X, int Tp, int ty, int tx, int nt,
                                         float (&acc)[kMaxRowTiles][W]) {
#pragma unroll 4
  for (int k = 0; k < Tp; ++k) {
    float x[W];
    load_vec<W>(X + k * S + tx * W, x);
#pragma unroll
    for (int i = 0; i < kMaxRowTiles; ++i)
      if (i < nt) {
        const int r = ty + 16 * i;
        const float m = TRANSPOSED ? Ms[k * SP + r] : Ms[r * SP + k];
#pragma unroll
        for (int w = 0; w < W; ++w) acc[i][w] += m * x[w];
      }
  }
}

template <int R, int W>
__device__ __forceinline__ void zero(float (&acc)[R][W]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int w = 0; w < W; ++w) acc[i][w] = 0.f;
}

// Rows r = ty + 16 i (i < nt, r < T) of a register tile to global memory: W floats at column
// tx W of the row that starts at base + r * row_stride (attention's output, dV in dqkv).
template <int W>
__device__ __forceinline__ void store_rows(const float (&acc)[kMaxRowTiles][W], float* base, size_t row_stride,
                                           int T, int ty, int tx, int nt) {
#pragma unroll
  for (int i = 0; i < kMaxRowTiles; ++i) {
    const int r = ty + 16 * i;
    if (i >= nt || r >= T) continue;
    float* row = base + r * row_stride + tx * W;
#pragma unroll
    for (int w = 0; w < W; ++w) row[w] = acc[i][w];
  }
}

// A (Tp, Tp) register tile (entries j > i zeros) to shared memory rows of stride SP, every entry
// of the causal blocks' rows written: the backward's products read all Tp columns (the forward's
// softmax rewrites every entry anyway).
__device__ __forceinline__ void store_scores(const float (&m)[kMaxRowTiles][kMaxRowTiles], float* dst, int SP,
                                             int ty, int tx, int nt) {
#pragma unroll
  for (int i = 0; i < kMaxRowTiles; ++i)
#pragma unroll
    for (int j = 0; j < kMaxRowTiles; ++j)
      if (i < nt && j < nt) dst[(ty + 16 * i) * SP + tx + 16 * j] = m[i][j];
}

// The forward in as little shared memory as its phases allow, so that PoPE's at the paper's shape
// (D 64, T 48) fits four blocks an SM instead of three (bench/log/025-pope-s-forward-in-50-kb.md)
//: the scores wait in registers until every thread is done with Q, then P and V take Q's
// space (V staged only then). Capped at 64 registers (four blocks of 256), within which every
// forward fits without spilling (ptxas -v: 63-64 registers, 54-63 uncapped before). The products, their operands and their order are those
// of 1bf32c5 and before, when every buffer had its own space.
template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads, 4)
    attention_fwd_short_kernel(AttentionArgs a, const float* qkv, float* out, float* lse) {
  using Dm = Dims<D, PE>;
  constexpr int SQ = Dm::SQ, SV = Dm::SV, W = D / 16;
  extern __shared__ float4 smem4[];
  const int T = a.T, C = a.H * D, h = blockIdx.x, b = blockIdx.y;
  const int Tp = padded_rows(T), SP = score_stride(Tp), nt = Tp / 16;
  float* Qs = reinterpret_cast<float*>(smem4);         // (Tp, SQ) transformed queries times scale
  float* Ps = Qs;                                      // (Tp, SP) scores, then probabilities, once Q is dead
  float* Vs = Qs + Tp * SP;                            // (Tp, SV) values, once Q is dead
  float* Ks = Qs + ShortSmem<D, PE>::q_region(Tp);     // (Tp, SQ) transformed keys
  const int ty = threadIdx.x >> 4, tx = threadIdx.x & 15;
  stage_qk_rows<D, PE>(a, qkv, b, h, head_scale(a, b, h), Qs, Ks);
  __syncthreads();

  float sc[kMaxRowTiles][kMaxRowTiles];
  zero(sc);
  causal_row_dots<Dm::DQ, SQ>(Qs, Ks, ty, tx, nt, sc);
  __syncthreads();  // Q is dead: P and V may take its space
  store_scores(sc, Ps, SP, ty, tx, nt);
  stage_v_rows<D>(a, qkv, b, h, SV, Vs);
  __syncthreads();

  softmax_rows(a, b, h, Ps, SP, lse);
  __syncthreads();

  float o[kMaxRowTiles][W];
  zero(o);
  mat_rows<W, SV, false>(Ps, SP, Vs, Tp, ty, tx, nt, o);
  store_rows<W>(o, out + size_t(b) * T * C + h * D, C, T, ty, tx, nt);
}

// Rows r = ty + 16 i (i < nt) of a register tile, times mul, to shared memory rows of stride S at
// column tx W (the PE backward's staged gradient rows).
template <int W, int S>
__device__ __forceinline__ void stage_rows(const float (&acc)[kMaxRowTiles][W], float mul, float* dst, int ty, int tx,
                                           int nt) {
#pragma unroll
  for (int i = 0; i < kMaxRowTiles; ++i) {
    if (i >= nt) continue;
    float* g = dst + (ty + 16 * i) * S + tx * W;
#pragma unroll
    for (int w = 0; w < W; ++w) g[w] = acc[i][w] * mul;
  }
}

// Blocks an SM the backward is compiled for (the register cap __launch_bounds__ derives from it:
// 64K / (256 x blocks), rounded down to 8): PoPE's at D 64 needs 80 registers with nothing spilled
// and its 75 KB of shared memory allows 3; every other backward fits 4 in its shared memory at
// T 48 and, capped at 64 registers, spills nothing but no PE's at D 32 (4 bytes stored, 24 loaded
// from L1). Uncapped, ptxas gave some of them 75-80 registers, a block an SM fewer
// (bench/kernel_resources.py prints these numbers from the build).
template <int D, PEKind PE>
constexpr int kBwdBlocksPerSM = PE == PEKind::kPope && D == 64 ? 3 : 4;

// The backward in as little shared memory as its phases allow, so that PoPE's at the paper's shape
// (D 64, T 48) fits three blocks an SM instead of two (bench/log/024-pope-s-backward-in-75-kb.md)
//: P and dS wait in registers until V and dO are dead and then take their space, Di and
// lse sit in Q's padding columns, and the two gradients of the transformed rows are staged one
// after the other (dQ' over K, dK' over V|P and dO|dS), so that no thread holds both at once.
// The products, their operands and their order are the same as when every buffer had its own
// space (1bf32c5 and before), so the results should be the same bits (bench/log/024-pope-s-backward-in-75-kb.md says how
// that is checked).
template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads, kBwdBlocksPerSM<D, PE>)
    attention_bwd_short_kernel(AttentionArgs a, const float* qkv, const float* out, const float* dout, const float* lse,
                               float* dqkv, float* ddelta_part, float* dtemp_part) {
  using Dm = Dims<D, PE>;
  constexpr int SQ = Dm::SQ, SV = Dm::SV, DQ = Dm::DQ, W = D / 16, WQ = DQ / 16;
  extern __shared__ float4 smem4[];
  const int T = a.T, C = a.H * D, h = blockIdx.x, b = blockIdx.y;
  const int Tp = padded_rows(T), SP = score_stride(Tp), SR = ShortSmem<D, PE>::region_stride(Tp), nt = Tp / 16;
  float* Qs = reinterpret_cast<float*>(smem4);  // (Tp, SQ) transformed queries (unscaled)
  float* Ds = Qs + DQ;                          // (Tp) at stride SQ: dO . O per row, in Q's padding
  float* Ls = Qs + DQ + 1;                      // (Tp) at stride SQ: log-sum-exp from the forward
  float* Ks = Qs + Tp * SQ;                     // (Tp, SQ) transformed keys; then dQ'
  float* As = Ks + Tp * SQ;                     // region A (Tp, SR): V (stride SV); then P (stride SP)
  float* Bs = As + Tp * SR;                     // region B (Tp, SR): dO (stride SV); then dS (stride SP)
  float *Vs = As, *Ps = As, *dOs = Bs, *dSs = Bs;
  float* dQs = Ks;  // (Tp, SQ) gradient rows of the transformed queries, once K is dead
  float* dKs = As;  // (Tp, SQ) over A and B (2 SR >= 2 SV >= SQ), once P and dS are dead
  const int ty = threadIdx.x >> 4, tx = threadIdx.x & 15;
  const float sh = head_scale(a, b, h);
  stage_qk_rows<D, PE>(a, qkv, b, h, 1.f, Qs, Ks);
  stage_v_rows<D>(a, qkv, b, h, SV, Vs);
  stage_dout_rows<D>(a, out, dout, lse, b, h, SV, dOs, Ds, Ls, SQ);
  __syncthreads();

  // P and dS = P (dP - Di), in registers (zeros off the causal triangle)
  float p[kMaxRowTiles][kMaxRowTiles], ds[kMaxRowTiles][kMaxRowTiles];
  {
    float dp[kMaxRowTiles][kMaxRowTiles];
    zero(p);
    zero(dp);
    causal_row_dots<DQ, SQ>(Qs, Ks, ty, tx, nt, p);  // the scores, before the head scale
    causal_row_dots<D, SV>(dOs, Vs, ty, tx, nt, dp);
    const float slope = a.slopes ? a.slopes[h] : 0.f;
#pragma unroll
    for (int i = 0; i < kMaxRowTiles; ++i)
#pragma unroll
      for (int j = 0; j < kMaxRowTiles; ++j) {
        const int t = ty + 16 * i, s = tx + 16 * j;
        float pv = 0.f, dsv = 0.f;
        if (i < nt && j <= i && s <= t && t < T && s >= first_key(a, b, t)) {
          pv = __expf(p[i][j] * sh - slope * float(t - s) - Ls[t * SQ]);
          dsv = pv * (dp[i][j] - Ds[t * SQ]);
        }
        p[i][j] = pv;
        ds[i][j] = dsv;
      }
  }
  __syncthreads();  // V is dead: P may take its space
  store_scores(p, Ps, SP, ty, tx, nt);
  __syncthreads();

  {  // dV = P^T dO (no PE on values): straight to global memory
    float dv[kMaxRowTiles][W];
    zero(dv);
    mat_rows<W, SV, true>(Ps, SP, dOs, Tp, ty, tx, nt, dv);
    store_rows<W>(dv, dqkv + size_t(b) * T * 3 * C + 2 * C + h * D, 3 * size_t(C), T, ty, tx, nt);
  }
  __syncthreads();  // dO is dead: dS may take its space
  store_scores(ds, dSs, SP, ty, tx, nt);
  __syncthreads();

  // dQ' = s_h dS K and dK' = s_h dS^T Q, the gradients of the transformed rows (s_h: head_scale),
  // one register tile at a time.
  float g[kMaxRowTiles][WQ];
  zero(g);
  mat_rows<WQ, SQ, false>(dSs, SP, Ks, Tp, ty, tx, nt, g);
  __syncthreads();  // K is dead: dQ' may take its space
  stage_rows<WQ, SQ>(g, sh, dQs, ty, tx, nt);
  zero(g);
  mat_rows<WQ, SQ, true>(dSs, SP, Qs, Tp, ty, tx, nt, g);
  __syncthreads();  // P and dS are dead: dK' may take A and B
  stage_rows<WQ, SQ>(g, sh, dKs, ty, tx, nt);
  __syncthreads();

  // The PE backward, a warp per row, from the staged rows: queries (with the temperature's
  // gradient, from Qs), then keys (with delta's per-key gradient), through the same row functions
  // as the tiled kernels. The two write disjoint outputs, so no barrier between them.
  pe_backward_rows<D, PE>(a, qkv, b, h, false, dQs, Qs, dqkv, ddelta_part, dtemp_part);
  pe_backward_rows<D, PE>(a, qkv, b, h, true, dKs, Qs, dqkv, ddelta_part, dtemp_part);
}

template <int D, PEKind PE>
struct Kernels {
  static constexpr auto fwd = attention_fwd_short_kernel<D, PE>;
  static constexpr auto bwd = attention_bwd_short_kernel<D, PE>;
  static constexpr const char* fwd_name = "attention_fwd_short";
  static constexpr const char* bwd_name = "attention_bwd_short";
  static size_t fwd_bytes(int T) { return ShortSmem<D, PE>::fwd_reuse_bytes(T); }
  static size_t bwd_bytes(int T) { return ShortSmem<D, PE>::bwd_reuse_bytes(T); }
};

}  // namespace

void attention_fwd_short(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  short_fwd<Kernels>(a, "attention (short)", qkv, out, lse, s);
}
void attention_bwd_short(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                         const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  short_bwd<Kernels>(a, "attention (short)", qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
}

AttentionOccupancy attention_short_occupancy(const AttentionArgs& a) { return short_occupancy<Kernels>(a, "attention (short)"); }

}  // namespace popebench::cuda::attn
