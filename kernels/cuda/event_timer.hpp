// Median time of a piece of GPU work, as docs/measuring.md says: warm-up runs first, then `iters` runs,
// each bracketed by CUDA events on `stream`; returns the median in milliseconds.
#pragma once
#include <functional>

typedef struct CUstream_st* cudaStream_t;

namespace popebench::cuda {
double median_event_ms(cudaStream_t stream, int warmup, int iters, const std::function<void()>& work);
}
