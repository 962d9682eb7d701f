// Deterministic reductions: fixed partitions and fixed summation order, no atomics, so the same
// inputs give the same bits on every run.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

// Block (32 x 32): 32 columns; thread (r, c) sums rows r, r+32, ...; then a fixed tree over r.
// blockIdx.y: the run, whose `rows` rows start at blockIdx.y * rows.
__global__ void column_sum_kernel(const float* in, float* out, int rows, int cols, size_t out_stride) {
  __shared__ float sh[32][33];
  in += size_t(blockIdx.y) * rows * cols;
  out += blockIdx.y * out_stride;
  int c = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.f;
  if (c < cols)
    for (int r = threadIdx.y; r < rows; r += 32) acc += in[static_cast<size_t>(r) * cols + c];
  sh[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  for (int w = 16; w > 0; w >>= 1) {
    if (threadIdx.y < w) sh[threadIdx.y][threadIdx.x] += sh[threadIdx.y + w][threadIdx.x];
    __syncthreads();
  }
  if (threadIdx.y == 0 && c < cols) out[c] = sh[0][threadIdx.x];
}

constexpr int kSsqBlocks = 1024, kSsqThreads = 256;

// blockIdx.y: the run (x + run * x_stride, its own kSsqBlocks partials).
__global__ void ssq_partial_kernel(const float* x, size_t n, float* partial, size_t x_stride) {
  __shared__ float sh[kSsqThreads];
  x += blockIdx.y * x_stride;
  partial += size_t(blockIdx.y) * kSsqBlocks;
  float acc = 0.f;
  for (size_t i = blockIdx.x * size_t(kSsqThreads) + threadIdx.x; i < n; i += size_t(kSsqBlocks) * kSsqThreads)
    acc += x[i] * x[i];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int w = kSsqThreads / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

__global__ void ssq_final_kernel(const float* partial, float* out, size_t out_stride) {
  __shared__ float sh[kSsqBlocks];
  partial += size_t(blockIdx.x) * kSsqBlocks;
  out += blockIdx.x * out_stride;
  sh[threadIdx.x] = partial[threadIdx.x];
  __syncthreads();
  for (int w = kSsqBlocks / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = sqrtf(sh[0]);
}

static_assert(kSsqBlocks == kL2NormPartials, "kernels.hpp promises callers the partials' count");

void column_sum(const float* in, float* out, int rows, int cols, cudaStream_t s, RunStride runs) {
  const int R = runs.count(rows);
  column_sum_kernel<<<dim3((cols + 31) / 32, R), dim3(32, 32), 0, s>>>(in, out, rows / R, cols, runs.param_stride);
  CUDA_CHECK_LAUNCH("column_sum");
}
void l2_norm(const float* x, size_t n, float* partial, float* out, cudaStream_t s, int runs, size_t x_stride,
             size_t out_stride) {
  ssq_partial_kernel<<<dim3(kSsqBlocks, runs), kSsqThreads, 0, s>>>(x, n, partial, x_stride);
  CUDA_CHECK_LAUNCH("l2_norm partial");
  ssq_final_kernel<<<runs, kSsqBlocks, 0, s>>>(partial, out, out_stride);
  CUDA_CHECK_LAUNCH("l2_norm final");
}

}  // namespace popebench::cuda
