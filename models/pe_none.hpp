// NoPE: no positional signal; the causal mask alone orders the sequence.
#pragma once
#include <algorithm>

#include "models/positional.hpp"

namespace popebench {

template <typename T>
class NoPE final : public PositionalEmbedding<T> {
 public:
  std::string name() const override { return "none"; }
  void fwd(const T* q, const T* k, T* qo, T* ko, const T*, const PEShape& s) const override {
    size_t n = static_cast<size_t>(s.B) * s.H * s.T * s.D;
    std::copy(q, q + n, qo);
    std::copy(k, k + n, ko);
  }
  void bwd(const T* dqo, const T* dko, const T*, const T*, const T*, T* dq, T* dk, T*,
           const PEShape& s) const override {
    size_t n = static_cast<size_t>(s.B) * s.H * s.T * s.D;
    std::copy(dqo, dqo + n, dq);
    std::copy(dko, dko + n, dk);
  }
};

}  // namespace popebench
