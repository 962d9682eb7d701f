// PoPE (SPEC §3): d-dim q, k -> 2d-dim "polar" vectors whose dot product is the PoPE score
//   a(t, s) = sum_c mu_q[t,c] mu_k[s,c] cos((s - t) theta_c + delta_c),
// with mu = softplus(x), queries [mu cos(t theta), mu sin(t theta)],
// keys [mu cos(s theta + delta), mu sin(s theta + delta)], delta clamped to [-2 pi, 0].
// Layout of the 2d output: the d cosine parts, then the d sine parts.
// The CPU reference materialises these 2d vectors; the CUDA kernel never stores them.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

namespace popebench::cpu {

constexpr double kPopeDeltaMin = -2.0 * M_PI, kPopeDeltaMax = 0.0;

template <typename T> inline T softplus(T x) { return x > T(20) ? x : std::log1p(std::exp(x)); }
template <typename T> inline T sigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }
inline double clamp_delta(double d) { return std::clamp(d, kPopeDeltaMin, kPopeDeltaMax); }
// The float nearest -2 pi that lies inside [-2 pi, 0]: float(-2 pi) rounds to just below -2 pi,
// where the forward clamp would give delta no gradient, so a projection must use this bound.
inline float pope_delta_min_float() {
  float f = static_cast<float>(kPopeDeltaMin);
  return double(f) < kPopeDeltaMin ? std::nextafter(f, 0.f) : f;
}

// cos and sin of t * theta_c (+ clamped delta[h, c]) for every (h, t, c), in double
// then rounded to T: the angles depend on position and channel only, so one table serves the
// whole batch (measured: sincos was 13% of a CPU training step before this table).
template <typename T>
void pope_angle_table(std::vector<T>& cs, std::vector<T>& sn, int H, int Tn, int D, const double* theta,
                      const T* delta) {
  const int Ht = delta ? H : 1;
  cs.resize(static_cast<size_t>(Ht) * Tn * D);
  sn.resize(cs.size());
  for (int h = 0; h < Ht; ++h)
    for (int t = 0; t < Tn; ++t)
      for (int c = 0; c < D; ++c) {
        double a = t * theta[c] + (delta ? clamp_delta(double(delta[h * D + c])) : 0.0);
        size_t i = (static_cast<size_t>(h) * Tn + t) * D + c;
        cs[i] = T(std::cos(a));
        sn[i] = T(std::sin(a));
      }
}

// x (B, H, T, D) -> y (B, H, T, 2D). delta (H, D) for keys, nullptr for queries.
template <typename T>
void pope_fwd(const T* x, T* y, int B, int H, int Tn, int D, const double* theta, const T* delta) {
  std::vector<T> cs, sn;
  pope_angle_table(cs, sn, H, Tn, D, theta, delta);
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < B * H; ++bh) {
    const size_t tab = delta ? static_cast<size_t>(bh % H) * Tn * D : 0;
    for (int t = 0; t < Tn; ++t) {
      const T* xr = x + (static_cast<size_t>(bh) * Tn + t) * D;
      T* yr = y + (static_cast<size_t>(bh) * Tn + t) * 2 * D;
      const T* c_ = cs.data() + tab + static_cast<size_t>(t) * D;
      const T* s_ = sn.data() + tab + static_cast<size_t>(t) * D;
      for (int c = 0; c < D; ++c) {
        T mu = softplus(xr[c]);
        yr[c] = mu * c_[c];
        yr[D + c] = mu * s_[c];
      }
    }
  }
}

// dy (B, H, T, 2D) -> dx (B, H, T, D) overwritten; ddelta (H, D) accumulated when delta given.
// The clamp passes the gradient where delta lies inside [-2 pi, 0] (bounds included), as
// torch.clamp does; outside, delta gets no gradient.
template <typename T>
void pope_bwd(const T* dy, const T* x, T* dx, int B, int H, int Tn, int D, const double* theta,
              const T* delta, T* ddelta) {
  std::vector<T> cs, sn;
  pope_angle_table(cs, sn, H, Tn, D, theta, delta);
  for (int bh = 0; bh < B * H; ++bh) {  // sequential: ddelta sums over (b, t) in a fixed order
    const int h = bh % H;
    const size_t tab = delta ? static_cast<size_t>(h) * Tn * D : 0;
    for (int t = 0; t < Tn; ++t) {
      const T* xr = x + (static_cast<size_t>(bh) * Tn + t) * D;
      const T* dr = dy + (static_cast<size_t>(bh) * Tn + t) * 2 * D;
      T* o = dx + (static_cast<size_t>(bh) * Tn + t) * D;
      const T* c_ = cs.data() + tab + static_cast<size_t>(t) * D;
      const T* s_ = sn.data() + tab + static_cast<size_t>(t) * D;
      for (int c = 0; c < D; ++c) {
        T dmu = dr[c] * c_[c] + dr[D + c] * s_[c];
        o[c] = dmu * sigmoid(xr[c]);
        if (delta) {
          double d = double(delta[h * D + c]);
          if (d >= kPopeDeltaMin && d <= kPopeDeltaMax)
            ddelta[h * D + c] += softplus(xr[c]) * (-dr[c] * s_[c] + dr[D + c] * c_[c]);
        }
      }
    }
  }
}

}  // namespace popebench::cpu
