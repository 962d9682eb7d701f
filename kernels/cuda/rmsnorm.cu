#include <cuda_bf16.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

constexpr float kEps = 1e-5f;  // kernels/cpu/rmsnorm.hpp: kRmsNormEps

// Block-wide sum for blocks of up to 1024 threads (result valid in every thread).
__device__ float block_sum(float v, float* sh) {
  v = warp_sum(v);
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  __syncthreads();
  if (lane == 0) sh[w] = v;
  __syncthreads();
  float t = 0.f;
  for (int i = 0; i < nw; ++i) t += sh[i];  // fixed order: deterministic
  return t;
}

__global__ void rmsnorm_fwd_kernel(const float* x, const float* g, float* y, float* rstd, __nv_bfloat16* yb, int C,
                                   RunStride runs) {
  __shared__ float sh[32];
  g += runs.offset(blockIdx.x);
  const float* xr = x + static_cast<size_t>(blockIdx.x) * C;
  float ss = 0.f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) ss += xr[c] * xr[c];
  float r = rsqrtf(block_sum(ss, sh) / C + kEps);
  if (threadIdx.x == 0) rstd[blockIdx.x] = r;
  const size_t off = static_cast<size_t>(blockIdx.x) * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const float v = xr[c] * r * g[c];
    if (y) y[off + c] = v;
    if (yb) yb[off + c] = __float2bfloat16_rn(v);
  }
}

__global__ void rmsnorm_bwd_kernel(const float* dy, const float* x, const float* g, const float* rstd, float* dx,
                                   float* dg_part, __nv_bfloat16* dxb, int C, RunStride runs) {
  __shared__ float sh[32];
  g += runs.offset(blockIdx.x);
  const size_t off = static_cast<size_t>(blockIdx.x) * C;
  const float r = rstd[blockIdx.x];
  float dot = 0.f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) dot += dy[off + c] * g[c] * x[off + c] * r;
  dot = block_sum(dot, sh) / C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    float xh = x[off + c] * r;
    dg_part[off + c] = dy[off + c] * xh;
    const float v = dx[off + c] + r * (dy[off + c] * g[c] - xh * dot);
    dx[off + c] = v;
    if (dxb) dxb[off + c] = __float2bfloat16_rn(v);
  }
}

void rmsnorm_fwd(const float* x, const float* g, float* y, float* rstd, int N, int C, cudaStream_t s, void* y_bf16,
                 RunStride runs) {
  if (!y && !y_bf16) throw CudaError("rmsnorm_fwd: neither an fp32 nor a bf16 output");
  rmsnorm_fwd_kernel<<<N, 128, 0, s>>>(x, g, y, rstd, static_cast<__nv_bfloat16*>(y_bf16), C, runs);
  CUDA_CHECK_LAUNCH("rmsnorm_fwd");
}
void rmsnorm_bwd(const float* dy, const float* x, const float* g, const float* rstd, float* dx, float* dg_part,
                 int N, int C, cudaStream_t s, void* dx_bf16, RunStride runs) {
  rmsnorm_bwd_kernel<<<N, 128, 0, s>>>(dy, x, g, rstd, dx, dg_part, static_cast<__nv_bfloat16*>(dx_bf16), C, runs);
  CUDA_CHECK_LAUNCH("rmsnorm_bwd");
}

}  // namespace popebench::cuda
