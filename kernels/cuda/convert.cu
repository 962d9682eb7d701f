// fp32 -> bf16 (round to nearest even, as __float2bfloat16_rn), for the bf16 matrix products.
// CPU twin: tests/cuda_testing.hpp round_bf16.
#include <cuda_bf16.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

// Four elements per thread with 16-byte loads when the input is 16-byte aligned (every buffer
// here is: cudaMalloc'd, offsets multiples of 4 floats); the tail is handled element-wise.
__global__ void to_bf16_kernel(const float* __restrict__ x, __nv_bfloat16* __restrict__ y, size_t n) {
  const size_t n4 = n / 4, stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 v = reinterpret_cast<const float4*>(x)[i];
    __nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y), hi = __floats2bfloat162_rn(v.z, v.w);
    reinterpret_cast<__nv_bfloat162*>(y)[2 * i] = lo;
    reinterpret_cast<__nv_bfloat162*>(y)[2 * i + 1] = hi;
  }
  for (size_t i = 4 * n4 + size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = __float2bfloat16_rn(x[i]);
}

__global__ void to_bf16_scalar_kernel(const float* __restrict__ x, __nv_bfloat16* __restrict__ y, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = __float2bfloat16_rn(x[i]);
}

void to_bf16(const float* x, void* y, size_t n, cudaStream_t s) {
  if (n == 0) return;
  const int threads = 256;
  const int blocks = int(std::min<size_t>((n / 4 + threads - 1) / threads + 1, 132 * 16));
  auto* yb = static_cast<__nv_bfloat16*>(y);
  if (reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 8 == 0)
    to_bf16_kernel<<<blocks, threads, 0, s>>>(x, yb, n);
  else
    to_bf16_scalar_kernel<<<blocks, threads, 0, s>>>(x, yb, n);
  CUDA_CHECK_LAUNCH("to_bf16");
}

}  // namespace popebench::cuda
