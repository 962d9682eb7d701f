// Causal attention forward on bf16 tensor cores for long sequences (AttentionArgs::bf16_flash):
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
// Forward only: the backward of a training step still runs the fp32 kernels, which recompute P
// from their own forward's lse; attention_bwd refuses bf16_flash.
#include <mma.h>

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
    for (int j = r0; j < r0 + kRows; ++j) {  // 16 of the tile's 64 keys per warp
      const int s = k0 + j;
      const float* krow = s < T ? Pt.q(qkv, b, s, h, D) + C : nullptr;
      load_row_bf16<D, PE, true>(krow, s, a, delta_h, 1.f, stage, sm.K + j * Sm::LQ, lane);
      for (int c = lane; c < D; c += 32)
        sm.V[j * Sm::LV + c] = __float2bfloat16_rn(krow ? krow[C + c] : 0.f);
    }
    __syncthreads();
    // Warp-uniform: a warp with no row left, or whose rows all precede the tile, adds nothing.
    if (warp_last_row < q0 + r0 || k0 > warp_last_row) continue;

    // S = Q K^T for the warp's 16 rows and the tile's 64 keys.
#pragma unroll
    for (int n = 0; n < kTileK / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.f);
#pragma unroll 4
      for (int kk = 0; kk < DQ / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fq;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> fk;  // K^T: K's rows are its columns
        wmma::load_matrix_sync(fq, sm.Q + r0 * Sm::LQ + kk * 16, Sm::LQ);
        wmma::load_matrix_sync(fk, sm.K + n * 16 * Sm::LQ + kk * 16, Sm::LQ);
        wmma::mma_sync(acc, fq, fk, acc);
      }
      wmma::store_matrix_sync(sm.S + r0 * Sm::LS + n * 16, acc, Sm::LS, wmma::mem_row_major);
    }
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
#pragma unroll
    for (int n = 0; n < D / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, sm.O + r0 * Sm::LO + n * 16, Sm::LO, wmma::mem_row_major);
#pragma unroll
      for (int kk = 0; kk < kTileK / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fp;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> fv;
        wmma::load_matrix_sync(fp, sm.P + r0 * Sm::LP + kk * 16, Sm::LP);
        wmma::load_matrix_sync(fv, sm.V + kk * 16 * Sm::LV + n * 16, Sm::LV);
        wmma::mma_sync(acc, fp, fv, acc);
      }
      wmma::store_matrix_sync(sm.O + r0 * Sm::LO + n * 16, acc, Sm::LO, wmma::mem_row_major);
    }
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

void attention_fwd_flash(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  switch (a.pe) {
    case PEKind::kNone: return dispatch_fwd_flash<PEKind::kNone>(a, qkv, out, lse, s);
    case PEKind::kRope: return dispatch_fwd_flash<PEKind::kRope>(a, qkv, out, lse, s);
    case PEKind::kPope: return dispatch_fwd_flash<PEKind::kPope>(a, qkv, out, lse, s);
  }
}

}  // namespace popebench::cuda::attn
