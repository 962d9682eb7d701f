// Linear layer without bias: y = x W^T, W stored (out, in) row-major as in PyTorch.
#pragma once
#include "kernels/cpu/eigen_types.hpp"

namespace popebench::cpu {

// x (N, in), w (out, in) -> y (N, out)
template <typename T>
void linear_fwd(const T* x, const T* w, T* y, int N, int in, int out) {
  MapR<T>(y, N, out).noalias() = CMapR<T>(x, N, in) * CMapR<T>(w, out, in).transpose();
}

// dy (N, out) -> dx (N, in) overwritten (when dx != nullptr), dw (out, in) accumulated.
template <typename T>
void linear_bwd(const T* dy, const T* x, const T* w, T* dx, T* dw, int N, int in, int out) {
  if (dx) MapR<T>(dx, N, in).noalias() = CMapR<T>(dy, N, out) * CMapR<T>(w, out, in);
  MapR<T>(dw, out, in).noalias() += CMapR<T>(dy, N, out).transpose() * CMapR<T>(x, N, in);
}

}  // namespace popebench::cpu
