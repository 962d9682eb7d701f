// Every CUDA call and launch is checked; failures become exceptions that name the call, so the
// CLI reports them on one line (out of memory included) instead of crashing.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace popebench::cuda {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw CudaError(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                    "): " + cudaGetErrorString(e));
}

}  // namespace popebench::cuda

namespace popebench::cuda {
// Blocks of `threads` for a grid-stride loop over n elements: one element per thread, at most
// max_blocks (the loop covers the rest).
inline int grid_stride_blocks(size_t n, int threads, size_t max_blocks) {
  const size_t b = (n + threads - 1) / threads;
  return static_cast<int>(b < max_blocks ? b : max_blocks);
}
}  // namespace popebench::cuda

#define CUDA_CHECK(call) ::popebench::cuda::check((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_LAUNCH(name) ::popebench::cuda::check(cudaGetLastError(), name, __FILE__, __LINE__)

#ifdef __CUDACC__  // device helpers, for .cu files only
namespace popebench::cuda {
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
}  // namespace popebench::cuda
#endif  // __CUDACC__
