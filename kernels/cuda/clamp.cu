// Projection onto [lo, hi], elementwise. CPU twin: kernels/cpu/clamp.hpp.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

__global__ void clamp_range_kernel(float* x, size_t n, float lo, float hi) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) x[i] = fminf(fmaxf(x[i], lo), hi);
}

void clamp_range(float* x, size_t n, float lo, float hi, cudaStream_t s) {
  if (n == 0) return;
  const int threads = 256;
  const int blocks = grid_stride_blocks(n, threads, 1024);
  clamp_range_kernel<<<blocks, threads, 0, s>>>(x, n, lo, hi);
  CUDA_CHECK_LAUNCH("clamp_range");
}

}  // namespace popebench::cuda
