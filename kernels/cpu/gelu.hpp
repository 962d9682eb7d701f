// GELU, exact form (erf), as PyTorch's nn.GELU() default: g(x) = x * Phi(x).
#pragma once
#include <cmath>
#include <cstddef>

namespace popebench::cpu {

template <typename T>
void gelu_fwd(const T* x, T* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = T(0.5) * x[i] * (T(1) + std::erf(x[i] * T(M_SQRT1_2)));
}

// dy -> dx overwritten. g'(x) = Phi(x) + x * phi(x).
template <typename T>
void gelu_bwd(const T* dy, const T* x, T* dx, size_t n) {
  const T inv_sqrt_2pi = T(0.3989422804014327);
  for (size_t i = 0; i < n; ++i) {
    T cdf = T(0.5) * (T(1) + std::erf(x[i] * T(M_SQRT1_2)));
    T pdf = inv_sqrt_2pi * std::exp(T(-0.5) * x[i] * x[i]);
    dx[i] = dy[i] * (cdf + x[i] * pdf);
  }
}

}  // namespace popebench::cpu
