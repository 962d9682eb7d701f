// Token embedding lookup: x[n] = wte[tok[n]].
#pragma once
#include <cstdint>
#include <cstring>

namespace popebench::cpu {

// tok (N), wte (V, C) -> x (N, C)
template <typename T>
void embedding_fwd(const int32_t* tok, const T* wte, T* x, int N, int C) {
  for (int n = 0; n < N; ++n)
    std::memcpy(x + static_cast<size_t>(n) * C, wte + static_cast<size_t>(tok[n]) * C, sizeof(T) * C);
}

// dx (N, C) -> dwte (V, C) accumulated. Sequential over n: deterministic.
template <typename T>
void embedding_bwd(const int32_t* tok, const T* dx, T* dwte, int N, int C) {
  for (int n = 0; n < N; ++n) {
    T* row = dwte + static_cast<size_t>(tok[n]) * C;
    const T* d = dx + static_cast<size_t>(n) * C;
    for (int c = 0; c < C; ++c) row[c] += d[c];
  }
}

}  // namespace popebench::cpu
