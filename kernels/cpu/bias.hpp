// Bias of a linear layer (ModelConfig::bias): y (N, out) += b (out), and its gradient, the column
// sums of dy (N, out), accumulated into db.
#pragma once
#include <cstddef>

namespace popebench::cpu {

template <typename T>
void bias_fwd(T* y, const T* b, int N, int out) {
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < out; ++o) y[static_cast<size_t>(n) * out + o] += b[o];
}

// Rows in order: deterministic.
template <typename T>
void bias_bwd(const T* dy, T* db, int N, int out) {
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < out; ++o) db[o] += dy[static_cast<size_t>(n) * out + o];
}

}  // namespace popebench::cpu
