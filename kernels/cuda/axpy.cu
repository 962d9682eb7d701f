// y += alpha * x, for gradient accumulation over micro-batches. CPU twin: the loop in
// backend/cpu_backend.cpp (the CPU model's backward accumulates into its gradient directly).
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

// A separate rounded product and sum (no FMA contraction), so that alpha = 1 adds exactly.
__global__ void axpy_kernel(float alpha, const float* __restrict__ x, float* __restrict__ y, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = __fadd_rn(y[i], __fmul_rn(alpha, x[i]));
}

void axpy(float alpha, const float* x, float* y, size_t n, cudaStream_t s) {
  if (n == 0) return;
  const int threads = 256;
  const int blocks = grid_stride_blocks(n, threads, 4096);
  axpy_kernel<<<blocks, threads, 0, s>>>(alpha, x, y, n);
  CUDA_CHECK_LAUNCH("axpy");
}

}  // namespace popebench::cuda
