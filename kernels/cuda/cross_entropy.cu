#include <cfloat>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

// One warp per example; vocabularies are small (66 for the paper's task).
__global__ void cross_entropy_kernel(const float* logits, const int32_t* targets, float* loss_rows,
                                     int32_t* correct, float* dlogits, int B, int V, const float* weight) {
  // B: the rows that share the 1/B of the mean (one run's)
  int b = blockIdx.x, lane = threadIdx.x;
  const float* l = logits + static_cast<size_t>(b) * V;
  // arg-max with the lowest index on ties, as the CPU reference
  float best = -FLT_MAX;
  int arg = V;
  for (int v = lane; v < V; v += 32)
    if (l[v] > best) { best = l[v]; arg = v; }
  for (int o = 16; o > 0; o >>= 1) {
    float ob = __shfl_xor_sync(0xffffffffu, best, o);
    int oa = __shfl_xor_sync(0xffffffffu, arg, o);
    if (ob > best || (ob == best && oa < arg)) { best = ob; arg = oa; }
  }
  float sum = 0.f;
  for (int v = lane; v < V; v += 32) sum += expf(l[v] - best);
  sum = warp_sum(sum);
  const int t = targets[b];
  if (lane == 0) {
    loss_rows[b] = best + logf(sum) - l[t];
    correct[b] = arg == t;
  }
  if (dlogits) {
    const float w = weight ? weight[b] : 0.f;
    for (int v = lane; v < V; v += 32) {
      const float g = expf(l[v] - best) / sum - (v == t ? 1.f : 0.f);
      dlogits[static_cast<size_t>(b) * V + v] = weight ? g * w : g / B;
    }
  }
}

void cross_entropy(const float* logits, const int32_t* targets, float* loss_rows, int32_t* correct,
                   float* dlogits, int B, int V, cudaStream_t s, const float* weight, int rows_per_run) {
  cross_entropy_kernel<<<B, 32, 0, s>>>(logits, targets, loss_rows, correct, dlogits, rows_per_run > 0 ? rows_per_run : B,
                                        V, weight);
  CUDA_CHECK_LAUNCH("cross_entropy");
}

}  // namespace popebench::cuda
