// PoPE (SPEC §3): softplus magnitudes, D frequencies theta_c = base^(-c/D), a learnable key
// phase delta per head and component (clamped to [-2 pi, 0]). The attention scale is the
// model's (ModelConfig::attn_scale: by default 1/sqrt(D), the head dim before the 2D expansion).
#pragma once
#include <cmath>
#include <vector>

#include "kernels/cpu/pope.hpp"
#include "model/pe/positional.hpp"

namespace popebench {

// theta_c = base^(-c/d) (SPEC), or base^(+c/d) with increasing = true: the paper's Eq. 4 as
// printed, theta_c = base^((c-1)/d) for c = 1..d, from 1 to ~base^(1-1/d) rad per position.
inline std::vector<double> pope_thetas(int head_dim, double base, bool increasing = false) {
  std::vector<double> th(head_dim);
  for (int c = 0; c < head_dim; ++c) th[c] = std::pow(base, (increasing ? 1.0 : -1.0) * c / head_dim);
  return th;
}
inline std::vector<double> pope_thetas(int head_dim, const PEConfig& pe) {
  return pope_thetas(head_dim, pe.base, pe.freqs == FreqOrder::kIncreasing);
}

template <typename T>
class PoPE final : public PositionalEmbedding<T> {
 public:
  PoPE(int head_dim, const PEConfig& pe) : theta_(pope_thetas(head_dim, pe)), delta_init_(pe.delta_init) {}
  int qk_dim(int head_dim) const override { return 2 * head_dim; }
  size_t params_per_layer(int n_head, int head_dim) const override { return size_t(n_head) * head_dim; }
  void init_layer_params(T* p, int n_head, int head_dim, Pcg32& rng) const override {
    // uniform-positive draws from [0, 2 pi): the other reading of the paper's "delta init range
    // 2 pi". Under the forward clamp every such delta acts as 0 and gets no gradient (the clamp
    // passes none outside [-2 pi, 0]), so it stays a frozen zero phase; --delta-bound project
    // moves it to 0 after the first update, from where it learns as --delta-init zero does.
    for (int i = 0; i < n_head * head_dim; ++i)
      p[i] = delta_init_ == DeltaInit::kUniform           ? T(cpu::kPopeDeltaMin * rng.uniform01())
             : delta_init_ == DeltaInit::kUniformPositive ? T(-cpu::kPopeDeltaMin * rng.uniform01())
                                                          : T(0);
  }
  void fwd(const T* q, const T* k, T* qo, T* ko, const T* delta, const PEShape& s) const override {
    cpu::pope_fwd(q, qo, s.B, s.H, s.T, s.D, theta_.data(), static_cast<const T*>(nullptr));
    cpu::pope_fwd(k, ko, s.B, s.H, s.T, s.D, theta_.data(), delta);
  }
  void bwd(const T* dqo, const T* dko, const T* q, const T* k, const T* delta, T* dq, T* dk, T* ddelta,
           const PEShape& s) const override {
    cpu::pope_bwd(dqo, q, dq, s.B, s.H, s.T, s.D, theta_.data(), static_cast<const T*>(nullptr), static_cast<T*>(nullptr));
    cpu::pope_bwd(dko, k, dk, s.B, s.H, s.T, s.D, theta_.data(), delta, ddelta);
  }

  // Channel c carries frequency theta_c with magnitude mu = softplus(x_c), in q and in k.
  std::vector<FrequencyChannel> frequency_channels() const override {
    std::vector<FrequencyChannel> ch;
    for (int c = 0; c < int(theta_.size()); ++c) ch.push_back({theta_[c], c, -1});
    return ch;
  }

 private:
  std::vector<double> theta_;
  DeltaInit delta_init_;  // PEConfig::delta_init
};

}  // namespace popebench
