// y (rows, cols) += b (cols): a linear layer's bias (ModelConfig::bias). CPU twin:
// kernels/cpu/bias.hpp. The gradient is column_sum of dy (reduce.cu).
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

__global__ void add_bias_kernel(float* y, const float* b, size_t n, int cols, RunStride runs) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] += b[runs.offset(static_cast<long long>(i / cols)) + i % cols];
}

void add_bias(float* y, const float* b, int rows, int cols, cudaStream_t s, RunStride runs) {
  const size_t n = size_t(rows) * cols;
  if (n == 0) return;
  const int threads = 256;
  const int blocks = grid_stride_blocks(n, threads, 4096);
  add_bias_kernel<<<blocks, threads, 0, s>>>(y, b, n, cols, runs);
  CUDA_CHECK_LAUNCH("add_bias");
}

}  // namespace popebench::cuda
