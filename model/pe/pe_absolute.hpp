// Absolute position embeddings added to the token embeddings, no change to attention:
// "sinusoidal" (Vaswani et al.: PE[t, 2i] = sin(t / 10000^(2i/C)), PE[t, 2i+1] = cos(same)) and
// "learned" (a (max_len, C) parameter, initialised N(0, init_std), no weight decay).
#pragma once
#include <cmath>
#include <vector>

#include "model/pe/positional.hpp"

namespace popebench {

inline std::vector<double> sinusoidal_table(int max_len, int C) {
  std::vector<double> t(static_cast<size_t>(max_len) * C);
  for (int p = 0; p < max_len; ++p)
    for (int i = 0; i < C; i += 2) {
      double a = p / std::pow(10000.0, double(i) / C);
      t[static_cast<size_t>(p) * C + i] = std::sin(a);
      if (i + 1 < C) t[static_cast<size_t>(p) * C + i + 1] = std::cos(a);
    }
  return t;
}

template <typename T>
class AbsolutePE final : public PositionalEmbedding<T> {
 public:
  AbsolutePE(bool learned, int max_len, int C) : learned_(learned) {
    if (!learned) table_ = sinusoidal_table(max_len, C);
  }
  size_t embed_params(int max_len, int C) const override { return learned_ ? size_t(max_len) * C : 0; }
  void embed_fwd(T* x, const T* ep, int B, int Tn, int C) const override {
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < Tn; ++t) {
        T* row = x + (static_cast<size_t>(b) * Tn + t) * C;
        for (int c = 0; c < C; ++c)
          row[c] += learned_ ? ep[static_cast<size_t>(t) * C + c] : T(table_[static_cast<size_t>(t) * C + c]);
      }
  }
  void embed_bwd(const T* dx, T* dep, int B, int Tn, int C) const override {
    if (!learned_) return;
    for (int b = 0; b < B; ++b)  // fixed order: deterministic
      for (int t = 0; t < Tn; ++t)
        for (int c = 0; c < C; ++c) dep[static_cast<size_t>(t) * C + c] += dx[(static_cast<size_t>(b) * Tn + t) * C + c];
  }

 private:
  bool learned_;
  std::vector<double> table_;  // (max_len, C), sinusoidal only
};

}  // namespace popebench
