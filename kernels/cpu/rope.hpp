// Rotary position embedding (RoPE), half-split pairing (as GPT-NeoX / Llama's rotate_half):
// channel c pairs with channel c + n_rot/2, rotated by angle t * theta[c], c < n_rot/2.
// Channels from n_rot to D pass through unrotated ("RoPE on part of the channels").
// Angles are computed in double on the CPU so this stays a reference at long positions.
#pragma once
#include <cmath>

namespace popebench::cpu {

// x (B, H, T, D) -> y (B, H, T, D); theta (n_rot/2). Test-time scalings (position interpolation,
// NTK) arrive as scaled frequencies (model/pe/pe_rope.hpp).
template <typename T>
void rope_fwd(const T* x, T* y, int BH, int Tn, int D, int n_rot, const double* theta) {
  const int half = n_rot / 2;
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < BH; ++bh)
    for (int t = 0; t < Tn; ++t) {
      const T* xr = x + (static_cast<size_t>(bh) * Tn + t) * D;
      T* yr = y + (static_cast<size_t>(bh) * Tn + t) * D;
      for (int c = 0; c < half; ++c) {
        double a = t * theta[c];
        T cs = T(std::cos(a)), sn = T(std::sin(a));
        T x1 = xr[c], x2 = xr[c + half];
        yr[c] = x1 * cs - x2 * sn;
        yr[c + half] = x1 * sn + x2 * cs;
      }
      for (int c = n_rot; c < D; ++c) yr[c] = xr[c];
    }
}

// dy -> dx overwritten: the transpose of the rotation (rotation by -angle).
template <typename T>
void rope_bwd(const T* dy, T* dx, int BH, int Tn, int D, int n_rot, const double* theta) {
  const int half = n_rot / 2;
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < BH; ++bh)
    for (int t = 0; t < Tn; ++t) {
      const T* d = dy + (static_cast<size_t>(bh) * Tn + t) * D;
      T* o = dx + (static_cast<size_t>(bh) * Tn + t) * D;
      for (int c = 0; c < half; ++c) {
        double a = t * theta[c];
        T cs = T(std::cos(a)), sn = T(std::sin(a));
        o[c] = d[c] * cs + d[c + half] * sn;
        o[c + half] = -d[c] * sn + d[c + half] * cs;
      }
      for (int c = n_rot; c < D; ++c) o[c] = d[c];
    }
}

}  // namespace popebench::cpu
