// RoPE (SPEC §3): theta_c = base^(-2c/D), c < D/2, half-split pairing (kernels/cpu/rope.hpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/rope.hpp"
#include "model/pe/positional.hpp"

namespace popebench {

// theta_c = base^(-2c/d), or base^(+2c/d) with increasing = true (PEConfig::freqs).
inline std::vector<double> rope_thetas(int head_dim, double base, bool increasing = false) {
  std::vector<double> th(head_dim / 2);
  for (int c = 0; c < head_dim / 2; ++c) th[c] = std::pow(base, (increasing ? 2.0 : -2.0) * c / head_dim);
  return th;
}

// YaRN (Peng et al. 2023, "YaRN: Efficient Context Window Extension of Large Language Models",
// as its reference code computes it). A channel pair whose wavelength 2 pi / theta_c fits many
// times into the training length (more than beta_fast = 32 turns) keeps its frequency
// (extrapolated), one that turns less than beta_slow = 1 time is interpolated (theta_c / s, as PI),
// and between the two a linear ramp over the channel index mixes them. The ramp's ends are the
// channel indices at which the pair turns beta times over train_len:
//   c(beta) = rot_dim ln(train_len / (2 pi beta)) / (2 ln base),
// low = max(0, floor(c(32))), high = min(rot_dim - 1, ceil(c(1))).
constexpr double kYarnBetaFast = 32, kYarnBetaSlow = 1;

inline double yarn_correction_dim(double turns, int rot_dim, double base, double train_len) {
  return rot_dim * std::log(train_len / (turns * 2 * M_PI)) / (2 * std::log(base));
}

inline std::vector<double> yarn_thetas(int rot_dim, double base, double s, double train_len) {
  const double low = std::max(0.0, std::floor(yarn_correction_dim(kYarnBetaFast, rot_dim, base, train_len)));
  double high = std::min(double(rot_dim - 1), std::ceil(yarn_correction_dim(kYarnBetaSlow, rot_dim, base, train_len)));
  if (high == low) high += 0.001;  // the reference's guard against a zero-width ramp
  std::vector<double> th = rope_thetas(rot_dim, base);
  for (size_t c = 0; c < th.size(); ++c) {
    const double ramp = std::clamp((double(c) - low) / (high - low), 0.0, 1.0);  // 0: keep, 1: interpolate
    th[c] = th[c] / s * ramp + th[c] * (1 - ramp);
  }
  return th;
}

// YaRN's attention factor: cos and sin times 0.1 ln(s) + 1, so q and k both, and every score
// times its square. Applied to the score scale (attention_scale times pe_score_factor), which is
// the same where every channel rotates (PEKindInfo::yarn).
inline double yarn_mscale(double s) { return s > 1 ? 0.1 * std::log(s) + 1 : 1.0; }

// The factor a PE's test-time scaling puts on every attention score: 1 but for YaRN.
inline double pe_score_factor(const PEConfig& pe) {
  if (pe.rope_scaling != RopeScaling::kYarn) return 1.0;
  const double m = yarn_mscale(pe.rope_factor);
  return m * m;
}

// Frequencies of a rot_dim-wide RoPE with the config's test-time scaling (PEConfig::rope_scaling).
// The variants change the frequencies (and YaRN the score scale, pe_score_factor), so the CPU and
// GPU kernels need nothing else: PI's angle (t / s) theta equals t (theta / s).
inline std::vector<double> rope_thetas(int rot_dim, const PEConfig& pe) {
  const double s = pe.rope_factor;
  const bool inc = pe.freqs == FreqOrder::kIncreasing;
  if (pe.rope_scaling == RopeScaling::kNtk) return rope_thetas(rot_dim, pe.base * std::pow(s, rot_dim / (rot_dim - 2.0)), inc);
  if (pe.rope_scaling == RopeScaling::kYarn) return yarn_thetas(rot_dim, pe.base, s, pe.rope_train_len);
  std::vector<double> th = rope_thetas(rot_dim, pe.base, inc);
  if (pe.rope_scaling == RopeScaling::kPi)
    for (double& t : th) t /= s;
  return th;
}

// Half-split pairing: channel c rotates with c + n/2, n = 2 theta.size() the rotated width.
inline std::vector<FrequencyChannel> rope_pairs(const std::vector<double>& theta) {
  std::vector<FrequencyChannel> ch;
  const int half = int(theta.size());
  for (int c = 0; c < half; ++c) ch.push_back({theta[c], c, c + half});
  return ch;
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
  std::vector<FrequencyChannel> frequency_channels() const override { return rope_pairs(theta_); }

 private:
  std::vector<double> theta_;
};

}  // namespace popebench
