// Positional embeddings behind one interface, on the CPU. A PE that acts on q and k (RoPE, PoPE)
// transforms them before the attention op; one that biases scores (ALiBi) supplies slopes; an
// absolute one adds to the token embedding. Each PE is a class in model/pe/pe_<name>.hpp and a
// registration in model/pe/pe_<name>.cpp (model/pe/pe_registry.hpp: its name, options, CPU factory
// and what the GPU kernels take for it).
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/rng.hpp"
#include "config/config.hpp"

namespace popebench {

struct PEShape {
  int B, H, T, D;  // D = head dim of q and k before the transform
};

// A frequency a PE rotates q and k by, and the channels of q (or k) whose magnitude carries it:
// a pair (a, b) rotated together, its magnitude the pair's norm (RoPE), or with b < 0 one channel
// whose softplus is the magnitude (PoPE's mu). The frequency-usage analysis reads them
// (report/frequency_usage.hpp).
struct FrequencyChannel {
  double theta;
  int a, b;
};

template <typename T>
class PositionalEmbedding {
 public:
  virtual ~PositionalEmbedding() = default;
  // Width of q and k after the transform, i.e. what the attention dot product sees.
  virtual int qk_dim(int head_dim) const { return head_dim; }
  // Learnable parameters per layer (PoPE: delta per head and component).
  virtual size_t params_per_layer(int /*n_head*/, int /*head_dim*/) const { return 0; }
  virtual void init_layer_params(T* /*p*/, int /*n_head*/, int /*head_dim*/, Pcg32& /*rng*/) const {}
  // q, k (B, H, T, D) -> qo, ko (B, H, T, qk_dim). lp: this layer's PE params (or nullptr).
  // Default: identity, for PEs that leave q and k alone (NoPE, ALiBi, absolute embeddings).
  virtual void fwd(const T* q, const T* k, T* qo, T* ko, const T* /*lp*/, const PEShape& s) const {
    const size_t n = static_cast<size_t>(s.B) * s.H * s.T * s.D;
    std::copy(q, q + n, qo);
    std::copy(k, k + n, ko);
  }
  // dqo, dko -> dq, dk overwritten; dlp accumulated. Default: identity.
  virtual void bwd(const T* dqo, const T* dko, const T* /*q*/, const T* /*k*/, const T* /*lp*/, T* dq, T* dk,
                   T* /*dlp*/, const PEShape& s) const {
    const size_t n = static_cast<size_t>(s.B) * s.H * s.T * s.D;
    std::copy(dqo, dqo + n, dq);
    std::copy(dko, dko + n, dk);
  }
  // The frequencies and the channels that carry them; none for PEs without rotation.
  virtual std::vector<FrequencyChannel> frequency_channels() const { return {}; }
  // ALiBi-style per-head score slopes (H), or nullptr.
  virtual const double* score_slopes() const { return nullptr; }

  // Absolute position embeddings added to the token embeddings (sinusoidal, learned).
  // Learnable parameters for them: (max_len, d_model) or none.
  virtual size_t embed_params(int /*max_len*/, int /*d_model*/) const { return 0; }
  // x (B, T, C) += position embedding of each row's position; ep: the embed params or nullptr.
  virtual void embed_fwd(T* /*x*/, const T* /*ep*/, int /*B*/, int /*T*/, int /*C*/) const {}
  // dep (max_len, C) accumulated from dx (B, T, C).
  virtual void embed_bwd(const T* /*dx*/, T* /*dep*/, int /*B*/, int /*T*/, int /*C*/) const {}
};

}  // namespace popebench
