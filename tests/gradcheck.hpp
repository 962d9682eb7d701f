// Central finite differences in double. With h = 1e-5 the truncation error is O(h^2) ~ 1e-10
// relative and rounding ~ 1e-16 / h ~ 1e-11, so a correct backward lands near 1e-9 and a wrong
// one (a missing term, a wrong sign) lands far above 1e-6: the threshold separates them.
#pragma once
#include <cmath>
#include <functional>
#include <vector>

#include "common/rng.hpp"

namespace popebench::test {

inline std::vector<double> randn(size_t n, uint64_t seed, double scale = 1.0) {
  Pcg32 r(seed, 77);
  std::vector<double> v(n);
  for (auto& x : v) x = scale * r.normal();
  return v;
}

// Normwise relative error ||numeric - analytic|| / max(||numeric||, tiny) over all entries of x.
inline double gradcheck(const std::function<double()>& f, std::vector<double>& x, const std::vector<double>& analytic,
                        double h = 1e-5) {
  double num2 = 0, diff2 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double old = x[i];
    x[i] = old + h;
    double fp = f();
    x[i] = old - h;
    double fm = f();
    x[i] = old;
    double g = (fp - fm) / (2 * h);
    num2 += g * g;
    diff2 += (g - analytic[i]) * (g - analytic[i]);
  }
  return std::sqrt(diff2) / std::max(std::sqrt(num2), 1e-30);
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace popebench::test
