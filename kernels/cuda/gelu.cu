#include <cuda_bf16.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

__global__ void gelu_fwd_kernel(const float* x, float* y, __nv_bfloat16* yb, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const float v = 0.5f * x[i] * (1.f + erff(x[i] * 0.70710678118654752f));
    if (y) y[i] = v;
    if (yb) yb[i] = __float2bfloat16_rn(v);
  }
}
__global__ void gelu_bwd_kernel(const float* dy, const float* x, float* dx, __nv_bfloat16* dxb, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float xi = x[i];
    float cdf = 0.5f * (1.f + erff(xi * 0.70710678118654752f));
    float pdf = 0.39894228040143268f * __expf(-0.5f * xi * xi);
    const float v = dy[i] * (cdf + xi * pdf);
    if (dx) dx[i] = v;
    if (dxb) dxb[i] = __float2bfloat16_rn(v);
  }
}

static int blocks_for(size_t n) { return static_cast<int>(std::min<size_t>((n + 255) / 256, 132 * 16)); }

void gelu_fwd(const float* x, float* y, size_t n, cudaStream_t s, void* y_bf16) {
  if (!y && !y_bf16) throw CudaError("gelu_fwd: neither an fp32 nor a bf16 output");
  gelu_fwd_kernel<<<blocks_for(n), 256, 0, s>>>(x, y, static_cast<__nv_bfloat16*>(y_bf16), n);
  CUDA_CHECK_LAUNCH("gelu_fwd");
}
void gelu_bwd(const float* dy, const float* x, float* dx, size_t n, cudaStream_t s, void* dx_bf16) {
  if (!dx && !dx_bf16) throw CudaError("gelu_bwd: neither an fp32 nor a bf16 output");
  gelu_bwd_kernel<<<blocks_for(n), 256, 0, s>>>(dy, x, dx, static_cast<__nv_bfloat16*>(dx_bf16), n);
  CUDA_CHECK_LAUNCH("gelu_bwd");
}

}  // namespace popebench::cuda
