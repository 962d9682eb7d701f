// RoPE (SPEC §3): theta_c = base^(-2c/D), c < D/2, half-split pairing (kernels/cpu/rope.hpp).
#pragma once
#include <cmath>
#include <vector>

#include "kernels/cpu/rope.hpp"
#include "models/positional.hpp"

namespace popebench {

// theta_c = base^(-2c/d), or base^(+2c/d) with increasing = true (PEConfig::freqs).
inline std::vector<double> rope_thetas(int head_dim, double base, bool increasing = false) {
  std::vector<double> th(head_dim / 2);
  for (int c = 0; c < head_dim / 2; ++c) th[c] = std::pow(base, (increasing ? 2.0 : -2.0) * c / head_dim);
  return th;
}

// Frequencies of a rot_dim-wide RoPE with the config's test-time scaling (PEConfig::rope_scaling).
// Both variants only change the frequencies, so the CPU and GPU kernels need nothing else:
// PI's angle (t / s) theta equals t (theta / s).
inline std::vector<double> rope_thetas(int rot_dim, const PEConfig& pe) {
  const double s = pe.rope_factor;
  const bool inc = pe.freqs == "increasing";
  if (pe.rope_scaling == "ntk") return rope_thetas(rot_dim, pe.base * std::pow(s, rot_dim / (rot_dim - 2.0)), inc);
  std::vector<double> th = rope_thetas(rot_dim, pe.base, inc);
  if (pe.rope_scaling == "pi")
    for (double& t : th) t /= s;
  return th;
}

template <typename T>
class RoPE final : public PositionalEmbedding<T> {
 public:
  RoPE(int head_dim, const PEConfig& pe) : theta_(rope_thetas(head_dim, pe)) {}
  void fwd(const T* q, const T* k, T* qo, T* ko, const T*, const PEShape& s) const override {
    cpu::rope_fwd(q, qo, s.B * s.H, s.T, s.D, s.D, theta_.data());
    cpu::rope_fwd(k, ko, s.B * s.H, s.T, s.D, s.D, theta_.data());
  }
  void bwd(const T* dqo, const T* dko, const T*, const T*, const T*, T* dq, T* dk, T*,
           const PEShape& s) const override {
    cpu::rope_bwd(dqo, dq, s.B * s.H, s.T, s.D, s.D, theta_.data());
    cpu::rope_bwd(dko, dk, s.B * s.H, s.T, s.D, s.D, theta_.data());
  }

 private:
  std::vector<double> theta_;
};

}  // namespace popebench
