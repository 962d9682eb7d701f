// The PE's angle table for the whole-sequence attention kernels (attention_short.cu and
// attention_short_tf32.cu) and the flash kernels' copies (attention_flash_copies.cu, the query
// rows alone): each (position, channel) angle's cos and sin, computed once per attention call
// instead of once per (batch row, head) block, and for the copies once per row and head. In the model PoPE's once per layer
// and step, the backward reading the table its forward filled (AttentionArgs::angle_table_filled),
// and RoPE's, which holds no parameter, once (attention_fill_angles).
//
// Why: every block of a call transforms its T query and key rows, and the backward transforms
// them twice (staging, then the PE backward); each angle is a double-precision reduction and an
// fp32 sincosf, ~60 issue slots. At the paper's shape (B 64, H 8, T 48, D 64) that is 6,144
// angles a block in PoPE's forward and 12,288 in its backward, over 512 blocks, while the distinct
// angles are T x D for the queries (the same for every block) and runs x H x T x D for PoPE's keys
// (delta is per head). bench/log/029-the-angle-table.md has the counts and the measurement.
// The table holds exactly what angle_sincos gives the kernels (the same function of the same
// inputs), so the kernels compute the same bits with and without it; the GPU tests check that.
#include <algorithm>

#include "kernels/cuda/attention_common.cuh"

namespace popebench::cuda {

namespace attn {
namespace {

// Query rows (T, n): angle_sincos(t, theta[c], 0); then, for PoPE, key rows (runs, H, T, D):
// angle_sincos(t, theta[c], clamp(delta of run r, head h, channel c)), as load_transformed and
// pe_backward_row compute them. A thread per entry. total: the table's entries, the query rows
// alone for the flash kernels (which turn PoPE's keys by delta themselves), so the key rows are
// written only where the caller's table (attention_angle_floats) holds them.
__global__ void angle_table_kernel(AttentionArgs a, int n, size_t total, float2* table) {
  const size_t n_query = size_t(a.T) * n;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += size_t(gridDim.x) * blockDim.x) {
    float sn, cs;
    if (i < n_query) {
      const int t = int(i / n), c = int(i % n);
      angle_sincos(t, a.theta[c], 0.0, &sn, &cs);
    } else {
      size_t k = i - n_query;
      const int c = int(k % a.D);
      k /= a.D;
      const int t = int(k % a.T);
      k /= a.T;
      const int h = int(k % a.H);
      const size_t run = k / a.H;
      const float* delta_h = a.delta + run * a.runs.param_stride + size_t(h) * a.D;
      angle_sincos(t, a.theta[c], clamp_delta(delta_h[c]), &sn, &cs);
    }
    table[i] = make_float2(cs, sn);
  }
}

}  // namespace

void fill_angle_table(const AttentionArgs& a, size_t table_floats, cudaStream_t s) {
  const int n = a.pe == PEKind::kPope ? a.D : a.n_rot / 2;
  const size_t total = table_floats / 2;
  if (total == 0) return;
  constexpr int kThreads = 256;
  const int blocks = int(std::min<size_t>((total + kThreads - 1) / kThreads, 65535));
  angle_table_kernel<<<blocks, kThreads, 0, s>>>(a, n, total, reinterpret_cast<float2*>(a.angle_scratch));
  CUDA_CHECK_LAUNCH("angle_table");
}

}  // namespace attn

size_t attention_angle_floats(int T, int D, int H, PEKind pe, int n_rot, int runs, bool flash) {
  AttentionArgs shape{1, T, H, D, pe, nullptr, nullptr, 1.f, n_rot};
  if (pe == PEKind::kNone || T < 1 || (!flash && !attn::short_kernels_apply(shape))) return 0;
  const size_t n = pe == PEKind::kPope ? size_t(D) : size_t(n_rot / 2);
  const size_t keys = pe == PEKind::kPope && !flash ? size_t(runs) * H * T * D : 0;
  return 2 * (size_t(T) * n + keys);
}

}  // namespace popebench::cuda
