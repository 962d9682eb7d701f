#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

// The absolute position embedding, when there is one, is added here (one pass over x instead of
// two); the sum is the CPU's float sum of the same two values, so both paths round alike.
// The scale (ModelConfig::init "scaled-embedding") is a separate rounded product, not fused into
// an FMA with the position, as the CPU computes it.
__global__ void embedding_fwd_kernel(const int32_t* tok, const float* wte, const float* pos, float* x, int N, int T,
                                     int C, float scale, RunStride wte_runs, RunStride pos_runs) {
  int n = blockIdx.x;
  const float* src = wte + wte_runs.offset(n) + static_cast<size_t>(tok[n]) * C;
  const float* p = pos ? pos + pos_runs.offset(n) + static_cast<size_t>(n % T) * C : nullptr;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const float e = scale == 1.f ? src[c] : __fmul_rn(scale, src[c]);
    x[static_cast<size_t>(n) * C + c] = p ? e + p[c] : e;
  }
}

// One block per vocabulary row (and run: blockIdx.y), threads over channels; positions summed in
// index order, so the gradient is the same on every run (no atomics). The V x N token scan hits
// the cache. N is the rows of one run; run r's rows start at r N.
__global__ void embedding_bwd_kernel(const int32_t* tok, const float* dx, float* dwte, int N, int C, float scale,
                                     bool accumulate, size_t param_stride) {
  const int v = blockIdx.x, r = blockIdx.y;
  tok += size_t(r) * N;
  dx += size_t(r) * N * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    float acc = 0.f;
    for (int n = 0; n < N; ++n)
      if (tok[n] == v) acc += dx[static_cast<size_t>(n) * C + c];
    if (scale != 1.f) acc *= scale;
    float* out = dwte + r * param_stride + static_cast<size_t>(v) * C + c;
    *out = accumulate ? *out + acc : acc;
  }
}

void embedding_fwd(const int32_t* tok, const float* wte, const float* pos, float* x, int N, int T, int C,
                   cudaStream_t s, float scale, RunStride wte_runs, RunStride pos_runs) {
  embedding_fwd_kernel<<<N, 128, 0, s>>>(tok, wte, pos, x, N, T, C, scale, wte_runs, pos_runs);
  CUDA_CHECK_LAUNCH("embedding_fwd");
}
void embedding_bwd(const int32_t* tok, const float* dx, float* dwte, int N, int C, int V, cudaStream_t s, float scale,
                   bool accumulate, RunStride runs) {
  const int R = runs.count(N);
  embedding_bwd_kernel<<<dim3(V, R), 256, 0, s>>>(tok, dx, dwte, N / R, C, scale, accumulate, runs.param_stride);
  CUDA_CHECK_LAUNCH("embedding_bwd");
}

}  // namespace popebench::cuda
