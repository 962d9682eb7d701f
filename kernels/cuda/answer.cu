#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

__global__ void gather_rows_kernel(const float* x, const int32_t* pos, float* out, int T, int C) {
  int b = blockIdx.x;
  const float* src = x + (static_cast<size_t>(b) * T + pos[b]) * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) out[static_cast<size_t>(b) * C + c] = src[c];
}
// Each example owns distinct rows of dx, so no two blocks touch the same element.
__global__ void scatter_add_rows_kernel(const float* d, const int32_t* pos, float* dx, int T, int C) {
  int b = blockIdx.x;
  float* dst = dx + (static_cast<size_t>(b) * T + pos[b]) * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) dst[c] += d[static_cast<size_t>(b) * C + c];
}

void gather_rows(const float* x, const int32_t* pos, float* out, int B, int T, int C, cudaStream_t s) {
  gather_rows_kernel<<<B, 128, 0, s>>>(x, pos, out, T, C);
  CUDA_CHECK_LAUNCH("gather_rows");
}
void scatter_add_rows(const float* d, const int32_t* pos, float* dx, int B, int T, int C, cudaStream_t s) {
  scatter_add_rows_kernel<<<B, 128, 0, s>>>(d, pos, dx, T, C);
  CUDA_CHECK_LAUNCH("scatter_add_rows");
}

}  // namespace popebench::cuda
