#include "report/frequency_usage.hpp"

#include <cmath>

#include "generators/vocab.hpp"
#include "kernels/cpu/pope.hpp"

namespace popebench {

FrequencyUsage::FrequencyUsage(int n_layer, int n_head, std::vector<FrequencyChannel> channels)
    : L_(n_layer), H_(n_head), ch_(std::move(channels)) {
  q_.assign(size_t(L_) * H_ * ch_.size(), 0.0);
  k_ = q_;
}

namespace {
double magnitude(const float* x, const FrequencyChannel& c) {
  if (c.b < 0) return cpu::softplus(double(x[c.a]));
  return std::hypot(double(x[c.a]), double(x[c.b]));
}
}  // namespace

void FrequencyUsage::add(const Transformer<float>& model, const Batch& b) {
  if (ch_.empty()) return;
  const int D = model.config().head_dim(), F = int(ch_.size());
  for (int r = 0; r < b.B; ++r)
    for (int t = 0; t < b.T; ++t) {
      if (b.tokens[size_t(r) * b.T + t] == vocab::kPad) continue;
      ++positions_;
      for (int l = 0; l < L_; ++l) {
        const auto &q = model.queries(l), &k = model.keys(l);  // (B, H, T, D)
        for (int h = 0; h < H_; ++h) {
          const size_t row = ((size_t(r) * H_ + h) * b.T + t) * D, at = (size_t(l) * H_ + h) * F;
          for (int f = 0; f < F; ++f) {
            q_[at + f] += magnitude(q.data() + row, ch_[f]);
            k_[at + f] += magnitude(k.data() + row, ch_[f]);
          }
        }
      }
    }
}

nlohmann::json FrequencyUsage::json(const std::vector<std::vector<double>>* delta) const {
  if (ch_.empty()) return nullptr;
  const int F = int(ch_.size());
  const double n = positions_ ? double(positions_) : 1.0;
  nlohmann::json theta = nlohmann::json::array(), layers = nlohmann::json::array();
  for (const auto& c : ch_) theta.push_back(c.theta);
  for (int l = 0; l < L_; ++l) {
    nlohmann::json q = nlohmann::json::array(), k = nlohmann::json::array(), dl = nlohmann::json::array();
    for (int h = 0; h < H_; ++h) {
      nlohmann::json qh = nlohmann::json::array(), kh = nlohmann::json::array(), dh = nlohmann::json::array();
      for (int f = 0; f < F; ++f) {
        qh.push_back(q_[(size_t(l) * H_ + h) * F + f] / n);
        kh.push_back(k_[(size_t(l) * H_ + h) * F + f] / n);
        if (delta) dh.push_back((*delta)[l][size_t(h) * F + f]);
      }
      q.push_back(qh);
      k.push_back(kh);
      dl.push_back(dh);
    }
    nlohmann::json layer = {{"layer", l}, {"q", q}, {"k", k}};
    if (delta) layer["delta"] = dl;
    layers.push_back(layer);
  }
  return {{"measure", ch_[0].b < 0 ? "softplus magnitude of each channel (PoPE's mu)" : "norm of each rotated channel pair"},
          {"theta", theta}, {"positions", positions_}, {"layers", layers}};
}

}  // namespace popebench
