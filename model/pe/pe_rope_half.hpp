// RoPE on half the channels (the PoPE paper's "RoPE half" baseline): the first D/2 channels of
// q and k are rotated with the frequencies of a D/2-wide RoPE, theta_c = base^(-2c / (D/2)),
// pairing c with c + D/4; the other D/2 channels carry no position.
#pragma once
#include "kernels/cpu/rope.hpp"
#include "model/pe/pe_rope.hpp"

namespace popebench {

template <typename T>
class RoPEHalf final : public PositionalEmbedding<T> {
 public:
  RoPEHalf(int head_dim, const PEConfig& pe) : n_rot_(head_dim / 2), theta_(rope_thetas(head_dim / 2, pe)) {}
  void fwd(const T* q, const T* k, T* qo, T* ko, const T*, const PEShape& s) const override {
    cpu::rope_fwd(q, qo, s.B * s.H, s.T, s.D, n_rot_, theta_.data());
    cpu::rope_fwd(k, ko, s.B * s.H, s.T, s.D, n_rot_, theta_.data());
  }
  void bwd(const T* dqo, const T* dko, const T*, const T*, const T*, T* dq, T* dk, T*,
           const PEShape& s) const override {
    cpu::rope_bwd(dqo, dq, s.B * s.H, s.T, s.D, n_rot_, theta_.data());
    cpu::rope_bwd(dko, dk, s.B * s.H, s.T, s.D, n_rot_, theta_.data());
  }
  // The rotated half only: the other half carries no frequency.
  std::vector<FrequencyChannel> frequency_channels() const override { return rope_pairs(theta_); }

 private:
  int n_rot_;
  std::vector<double> theta_;
};

}  // namespace popebench
