// RMSNorm: y = x / sqrt(mean(x^2) + eps) * g.
#pragma once
#include <cmath>

namespace popebench::cpu {

constexpr double kRmsNormEps = 1e-5;

// x (N, C), g (C) -> y (N, C), rstd (N) saved for the backward.
template <typename T>
void rmsnorm_fwd(const T* x, const T* g, T* y, T* rstd, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const T* xr = x + static_cast<size_t>(n) * C;
    T ss = 0;
    for (int c = 0; c < C; ++c) ss += xr[c] * xr[c];
    T r = T(1) / std::sqrt(ss / C + T(kRmsNormEps));
    rstd[n] = r;
    T* yr = y + static_cast<size_t>(n) * C;
    for (int c = 0; c < C; ++c) yr[c] = xr[c] * r * g[c];
  }
}

// dy (N, C) -> dx (N, C) accumulated (it is the residual stream's gradient), dg (C) accumulated.
// With xh = x * rstd: dx = rstd * (dy*g - xh * mean(dy*g*xh)).
template <typename T>
void rmsnorm_bwd(const T* dy, const T* x, const T* g, const T* rstd, T* dx, T* dg, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const T* xr = x + static_cast<size_t>(n) * C;
    const T* dyr = dy + static_cast<size_t>(n) * C;
    T* dxr = dx + static_cast<size_t>(n) * C;
    T r = rstd[n], dot = 0;
    for (int c = 0; c < C; ++c) dot += dyr[c] * g[c] * xr[c] * r;
    dot /= C;
    for (int c = 0; c < C; ++c) {
      T xh = xr[c] * r;
      dg[c] += dyr[c] * xh;
      dxr[c] += r * (dyr[c] * g[c] - xh * dot);
    }
  }
}

}  // namespace popebench::cpu
