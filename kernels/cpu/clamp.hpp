// Projection onto an interval: x = min(max(x, lo), hi) elementwise (PoPE's delta after an
// optimizer update, PEConfig::delta_bound "project").
#pragma once
#include <algorithm>
#include <cstddef>

namespace popebench::cpu {

template <typename T>
void clamp_range(T* x, size_t n, T lo, T hi) {
  for (size_t i = 0; i < n; ++i) x[i] = std::clamp(x[i], lo, hi);
}

}  // namespace popebench::cpu
