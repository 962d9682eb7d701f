// AdamW with decoupled weight decay (Loshchilov & Hutter; as torch.optim.AdamW), and the global
// gradient norm used for clipping. Operate on slices of the one parameter buffer.
#pragma once
#include <cmath>
#include <cstddef>

namespace popebench::cpu {

// Sum of squares in double, sequential: the same value on every run and thread count.
template <typename T>
double sum_squares(const T* g, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += double(g[i]) * double(g[i]);
  return s;
}

// One update of n parameters. step is 1-based (bias correction); grad_scale multiplies the
// gradient first (clipping).
template <typename T>
void adamw_update(T* p, const T* g, T* m, T* v, size_t n, double lr, double weight_decay, double beta1,
                  double beta2, double eps, long step, double grad_scale) {
  const double bc1 = 1.0 - std::pow(beta1, double(step)), bc2 = 1.0 - std::pow(beta2, double(step));
  for (size_t i = 0; i < n; ++i) {
    double gi = double(g[i]) * grad_scale;
    double mi = beta1 * m[i] + (1 - beta1) * gi;
    double vi = beta2 * v[i] + (1 - beta2) * gi * gi;
    m[i] = T(mi);
    v[i] = T(vi);
    double pi = double(p[i]) * (1 - lr * weight_decay);
    p[i] = T(pi - lr * (mi / bc1) / (std::sqrt(vi / bc2) + eps));
  }
}

}  // namespace popebench::cpu
