// RoPE with interleaved pairing (the original RoFormer / GPT-J / Meta Llama reference layout):
// channel 2c pairs with 2c + 1, rotated by angle t theta_c, theta_c = base^(-2c/D), c < D/2 (the
// same frequencies as `rope`, model/pe/pe_rope.hpp, which pairs c with c + D/2). The two are the
// same function of a head's channels up to a fixed permutation of them (tests/test_pe_facts.cpp
// checks it), so with a learned q/k projection they differ only in how the initial weights land.
// CPU only: the GPU's fused attention kernel rotates half-split pairs (the registration gives no
// GpuPE, so `--device cuda` refuses it and `auto` trains it on the CPU).
#pragma once
#include <cmath>
#include <vector>

#include "model/pe/pe_rope.hpp"
#include "model/pe/positional.hpp"

namespace popebench {

template <typename T>
class RoPEInterleaved final : public PositionalEmbedding<T> {
 public:
  RoPEInterleaved(int head_dim, const PEConfig& pe) : theta_(rope_thetas(head_dim, pe)) {}
  void fwd(const T* q, const T* k, T* qo, T* ko, const T*, const PEShape& s) const override {
    rotate(q, qo, s, 1.0);
    rotate(k, ko, s, 1.0);
  }
  // The transpose of a rotation is the rotation by -angle.
  void bwd(const T* dqo, const T* dko, const T*, const T*, const T*, T* dq, T* dk, T*,
           const PEShape& s) const override {
    rotate(dqo, dq, s, -1.0);
    rotate(dko, dk, s, -1.0);
  }
  std::vector<FrequencyChannel> frequency_channels() const override {
    std::vector<FrequencyChannel> ch;
    for (int c = 0; c < int(theta_.size()); ++c) ch.push_back({theta_[c], 2 * c, 2 * c + 1});
    return ch;
  }

 private:
  // x (B, H, T, D) -> y (B, H, T, D), pairs (2c, 2c + 1) rotated by sign * t * theta_c. Angles in
  // double, as kernels/cpu/rope.hpp computes them.
  void rotate(const T* x, T* y, const PEShape& s, double sign) const {
    const int BH = s.B * s.H, Tn = s.T, D = s.D;
#pragma omp parallel for schedule(static)
    for (int bh = 0; bh < BH; ++bh)
      for (int t = 0; t < Tn; ++t) {
        const T* xr = x + (static_cast<size_t>(bh) * Tn + t) * D;
        T* yr = y + (static_cast<size_t>(bh) * Tn + t) * D;
        for (int c = 0; c < D / 2; ++c) {
          const double a = sign * t * theta_[c];
          const T cs = T(std::cos(a)), sn = T(std::sin(a)), x0 = xr[2 * c], x1 = xr[2 * c + 1];
          yr[2 * c] = x0 * cs - x1 * sn;
          yr[2 * c + 1] = x0 * sn + x1 * cs;
        }
      }
  }
  std::vector<double> theta_;  // (D/2)
};

}  // namespace popebench
