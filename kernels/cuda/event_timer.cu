#include <algorithm>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/event_timer.hpp"

namespace popebench::cuda {

double median_event_ms(cudaStream_t stream, int warmup, int iters, const std::function<void()>& work) {
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  for (int i = 0; i < warmup; ++i) work();
  std::vector<float> ms;
  for (int i = 0; i < std::max(iters, 1); ++i) {
    CUDA_CHECK(cudaEventRecord(e0, stream));
    work();
    CUDA_CHECK(cudaEventRecord(e1, stream));
    CUDA_CHECK(cudaEventSynchronize(e1));
    float t;
    CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace popebench::cuda
