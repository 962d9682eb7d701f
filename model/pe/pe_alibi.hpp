// ALiBi (Press et al. 2022): no change to q and k; each head h adds -m_h * (t - s) to its scores,
// m_h = 2^(-8 (h + 1) / H) (the geometric sequence of the ALiBi paper). "alibi-half": the first
// H/2 heads get the slopes of an H/2-head model and the others none (NoPE), as the PoPE
// paper's "ALiBi on half the heads" baseline (v3 Table 9).
#pragma once
#include <cmath>
#include <vector>

#include "model/pe/positional.hpp"

namespace popebench {

inline std::vector<double> alibi_slopes(int n_head, bool half) {
  std::vector<double> m(n_head, 0.0);
  const int n = half ? n_head / 2 : n_head;
  for (int h = 0; h < n; ++h) m[h] = std::pow(2.0, -8.0 * (h + 1) / n);
  return m;
}

template <typename T>
class ALiBi final : public PositionalEmbedding<T> {
 public:
  ALiBi(int n_head, bool half) : half_(half), slopes_(alibi_slopes(n_head, half)) {}
  const double* score_slopes() const override { return slopes_.data(); }

 private:
  bool half_;
  std::vector<double> slopes_;
};

}  // namespace popebench
