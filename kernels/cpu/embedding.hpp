// Token embedding lookup: x[n] = scale * wte[tok[n]] (scale: 1, or sqrt(d_model) for the
// "scaled-embedding" init).
#pragma once
#include <cstdint>
#include <cstring>

namespace popebench::cpu {

// tok (N), wte (V, C) -> x (N, C)
template <typename T>
void embedding_fwd(const int32_t* tok, const T* wte, T* x, int N, int C, T scale = T(1)) {
  for (int n = 0; n < N; ++n) {
    T* dst = x + static_cast<size_t>(n) * C;
    const T* src = wte + static_cast<size_t>(tok[n]) * C;
    if (scale == T(1)) std::memcpy(dst, src, sizeof(T) * C);  // bit-exact copy, the SPEC model
    else for (int c = 0; c < C; ++c) dst[c] = scale * src[c];
  }
}

// dx (N, C) -> dwte (V, C) accumulated. Sequential over n: deterministic.
template <typename T>
void embedding_bwd(const int32_t* tok, const T* dx, T* dwte, int N, int C, T scale = T(1)) {
  for (int n = 0; n < N; ++n) {
    T* row = dwte + static_cast<size_t>(tok[n]) * C;
    const T* d = dx + static_cast<size_t>(n) * C;
    for (int c = 0; c < C; ++c) row[c] += scale * d[c];
  }
}

}  // namespace popebench::cpu
