// The flash kernels' bf16 copies (attention_flash_scratch.cuh), one pass per attention call:
// each key, value and scaled query row (and, for the backward, each dO row, lse and dO . O)
// transformed by the PE and rounded to bf16 once, where every block that reads a tile used to do
// it for itself (bench/log/033). Each row is computed by the same function of the same inputs as
// the kernels computed it before (load_transformed, and PoPE's key turned by the block's delta
// rotation), so the outputs keep their bits.
#include <cuda_bf16.h>

#include "kernels/cuda/attention_common.cuh"
#include "kernels/cuda/attention_flash_scratch.cuh"

namespace popebench::cuda {

namespace attn {
namespace {

using bf16 = __nv_bfloat16;

constexpr int kWarps = 4, kRowsPerWarp = 4;
constexpr int kRowsPerBlock = kWarps * kRowsPerWarp;  // 16
static_assert(FlashScratch::kRowsPad % kRowsPerBlock == 0, "a block's rows lie inside the padded rows");

// One warp writes the bf16 row dst (DQ wide): the PE-transformed query x at position pos (times
// mul; RoPE's and PoPE's angles from the call's table where there is one), each value rounded
// once from fp32; x == nullptr writes zeros (rows past T, read with weight 0). RoPE's keys too,
// whose angles are the queries'.
template <int D, PEKind PE>
__device__ void write_row_bf16(const float* x, int pos, const AttentionArgs& a, float mul, bf16* dst, int lane) {
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
// table's row, or angle_sincos with phase 0: the same bits) and drot. Each angle is a table read
// and four products instead of a double-precision reduction and sincosf; it differs from
// angle_sincos(pos, theta, delta) by a few fp32 ulps, far below the bf16 rounding that follows.
template <int D>
__device__ void write_pope_key_bf16(const float* x, int pos, const AttentionArgs& a, const float2* drot, bf16* dst,
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

// One warp writes key s of row b, head h: the PE-transformed key (PoPE turned by drot) and the
// value, both bf16; s past T gives zero rows.
template <int D, PEKind PE>
__device__ void write_key_row(const AttentionArgs& a, const float* qkv, int b, int h, int s, const float2* drot,
                              bf16* Krow, bf16* Vrow, int lane) {
  const int C = a.H * D;
  const float* krow = s < a.T ? Ptrs{a.T, a.H, C}.q(qkv, b, s, h, D) + C : nullptr;
  if constexpr (PE == PEKind::kPope)
    write_pope_key_bf16<D>(krow, s, a, drot, Krow, lane);
  else
    write_row_bf16<D, PE>(krow, s, a, 1.f, Krow, lane);
  for (int c = lane; c < D; c += 32) Vrow[c] = __float2bfloat16_rn(krow ? krow[C + c] : 0.f);
}

// One warp writes what the backward reads of query row t besides the query: dO in bf16, and (lane
// 0) lse (times log2 e) and Di = dO . O; rows past T are zeros.
template <int D>
__device__ void write_grad_row(const AttentionArgs& a, const float* out, const float* dout, const float* lse, int b,
                               int h, int t, bf16* dOrow, float* L, float* Di, int lane) {
  const int T = a.T, C = a.H * D;
  float di = 0.f;
  for (int c = lane; c < D; c += 32) {
    const float g = t < T ? dout[(size_t(b) * T + t) * C + h * D + c] : 0.f;
    dOrow[c] = __float2bfloat16_rn(g);
    if (t < T) di += g * out[(size_t(b) * T + t) * C + h * D + c];
  }
  di = warp_sum(di);
  if (lane == 0) {
    *Di = di;
    *L = t < T ? lse[(size_t(b) * a.H + h) * T + t] * kLog2e : 0.f;  // in log2 units (the scratch's L)
  }
}

// Grid (Tp / 16, H, B): a block writes 16 rows of one (batch row, head), a warp 4 of them.
template <int D, PEKind PE, bool kBackward>
__global__ void __launch_bounds__(32 * kWarps) flash_copies_kernel(AttentionArgs a, const float* qkv,
                                                                    const float* out, const float* dout,
                                                                    const float* lse, FlashScratch fs) {
  constexpr int DQ = Dims<D, PE>::DQ;
  __shared__ float2 drot[D];  // PoPE's (cos delta, sin delta) of the head
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int b = blockIdx.z, h = blockIdx.y, t0 = blockIdx.x * kRowsPerBlock + w * kRowsPerWarp;
  if constexpr (PE == PEKind::kPope) {
    fill_delta_rotation<D>(head_delta(a, b, h, D), drot);
    __syncthreads();
  }
  // The queries scaled (the score's multiplier folded in, as the fp32 kernels do), as rounded for
  // the forward's products and for the backward's recomputation of them alike.
  const float mul = head_scale(a, b, h);
  const int T = a.T, C = a.H * D;
  for (int t = t0; t < t0 + kRowsPerWarp; ++t) {
    const size_t row = fs.row(b, h, t);
    write_key_row<D, PE>(a, qkv, b, h, t, drot, fs.K + row * DQ, fs.V + row * D, lane);
    write_row_bf16<D, PE>(t < T ? Ptrs{T, a.H, C}.q(qkv, b, t, h, D) : nullptr, t, a, mul, fs.Q + row * DQ, lane);
    if constexpr (kBackward)
      write_grad_row<D>(a, out, dout, lse, b, h, t, fs.dO + row * D, fs.L + row, fs.Di + row, lane);
  }
}

}  // namespace

FlashScratch flash_scratch_of(const AttentionArgs& a) {
  return FlashScratch(a.flash_scratch, a.B, a.T, a.H, a.D, a.pe == PEKind::kPope ? 2 * a.D : a.D);
}

void write_flash_copies(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                        const float* lse, cudaStream_t s) {
  const FlashScratch fs = flash_scratch_of(a);
  const dim3 grid(fs.Tp / kRowsPerBlock, a.H, a.B);
  const bool backward = out != nullptr;
  for_head_dim_and_pe(AllHeadDims{}, a, "flash attention", [&](auto d, auto pe) {
    constexpr int D = decltype(d)::value;
    constexpr PEKind PE = decltype(pe)::value;
    if (backward)
      flash_copies_kernel<D, PE, true><<<grid, 32 * kWarps, 0, s>>>(a, qkv, out, dout, lse, fs);
    else
      flash_copies_kernel<D, PE, false><<<grid, 32 * kWarps, 0, s>>>(a, qkv, nullptr, nullptr, nullptr, fs);
  });
  CUDA_CHECK_LAUNCH("attention_flash_copies");
}

}  // namespace attn

size_t attention_flash_scratch_bytes(int B, int T, int H, int D, PEKind pe) {
  return attn::FlashScratch::bytes(B, T, H, D, pe == PEKind::kPope ? 2 * D : D);
}

}  // namespace popebench::cuda
