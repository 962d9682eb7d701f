#include <cuda_bf16.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

// Reads lr, step and the gradient norm from device memory, so a captured graph replays with the
// values of the step (the host writes lr and step into pinned memory that a graph node copies).
__global__ void adamw_kernel(float* p, const float* g, float* m, float* v, const uint8_t* group, size_t n,
                             const AdamWHyper* hyper, AdamWGroups groups, float beta1, float beta2, float eps,
                             float clip, size_t stride, __nv_bfloat16* pb) {
  // blockIdx.y: the run, with its own buffers and hyper-parameters
  const size_t off = blockIdx.y * stride;
  p += off;
  g += off;
  m += off;
  v += off;
  if (pb) pb += off;
  hyper += blockIdx.y;
  if (hyper->active == 0.f) return;
  const float lr = hyper->lr, step = hyper->step, norm = hyper->grad_norm;
  const float scale = (clip > 0.f && norm > clip) ? clip / norm : 1.f;
  const float bc1 = 1.f - powf(beta1, step), bc2 = 1.f - powf(beta2, step);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float gi = g[i] * scale;
    float mi = beta1 * m[i] + (1.f - beta1) * gi;
    float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    const int k = group[i];
    const float lr_k = lr * groups.lr_mult[k];
    float pi = p[i] * (1.f - lr_k * groups.weight_decay[k]);
    pi = pi - lr_k * (mi / bc1) / (sqrtf(vi / bc2) + eps);
    p[i] = pi;
    // The bf16 copy in the same pass: 2 bytes a parameter written here instead of a separate
    // to_bf16 pass reading 4 and writing 2 (bench/log/030-the-bf16-weights-written-by-adamw.md).
    if (pb) pb[i] = __float2bfloat16_rn(pi);
  }
}

void adamw_update(float* p, const float* g, float* m, float* v, const uint8_t* group, size_t n,
                  const AdamWHyper* hyper, const AdamWGroups& groups, float beta1, float beta2, float eps,
                  float grad_clip, cudaStream_t s, int runs, size_t stride, void* p_bf16) {
  int blocks = static_cast<int>(std::min<size_t>((n + 255) / 256, 132 * 8));
  adamw_kernel<<<dim3(blocks, runs), 256, 0, s>>>(p, g, m, v, group, n, hyper, groups, beta1, beta2, eps, grad_clip,
                                                   stride, static_cast<__nv_bfloat16*>(p_bf16));
  CUDA_CHECK_LAUNCH("adamw_update");
}

}  // namespace popebench::cuda
