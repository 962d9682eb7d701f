// Causal scaled-dot-product attention on per-head contiguous tensors, with an optional linear
// distance bias per head (ALiBi: score -= slope_h * (t - s)). Positional embeddings that act on
// q and k (RoPE, PoPE) are applied before this op; it sees their already-transformed q and k.
// The CPU reference keeps the (T, T) probabilities for the backward; the CUDA kernel does not.
#pragma once
#include <cmath>
#include <limits>

#include "kernels/cpu/eigen_types.hpp"

namespace popebench::cpu {

struct AttentionShape {
  int B, H, T;
  int Dqk;  // width of q and k as seen by the dot product (2*head_dim for PoPE)
  int Dv;   // width of v and of the output
};

// q, k (B, H, T, Dqk), v (B, H, T, Dv) -> out (B, H, T, Dv), probs (B, H, T, T) saved
// (upper triangle written as 0). slopes (H) or nullptr.
template <typename T>
void attention_fwd(const T* q, const T* k, const T* v, T* out, T* probs, const AttentionShape& s,
                   T scale, const double* slopes) {
  const size_t qs = static_cast<size_t>(s.T) * s.Dqk, vs = static_cast<size_t>(s.T) * s.Dv,
               ps = static_cast<size_t>(s.T) * s.T;
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < s.B * s.H; ++bh) {
    const int h = bh % s.H;
    CMapR<T> Q(q + bh * qs, s.T, s.Dqk), K(k + bh * qs, s.T, s.Dqk), V(v + bh * vs, s.T, s.Dv);
    MapR<T> P(probs + bh * ps, s.T, s.T), O(out + bh * vs, s.T, s.Dv);
    P.noalias() = (Q * K.transpose()) * scale;
    for (int t = 0; t < s.T; ++t) {
      T m = -std::numeric_limits<T>::infinity();
      for (int j = 0; j <= t; ++j) {
        if (slopes) P(t, j) -= T(slopes[h] * (t - j));
        m = std::max(m, P(t, j));
      }
      T sum = 0;
      for (int j = 0; j <= t; ++j) sum += (P(t, j) = std::exp(P(t, j) - m));
      for (int j = 0; j <= t; ++j) P(t, j) /= sum;
      for (int j = t + 1; j < s.T; ++j) P(t, j) = 0;
    }
    O.noalias() = P * V;
  }
}

// dout (B, H, T, Dv) -> dq, dk (B, H, T, Dqk), dv (B, H, T, Dv), all overwritten.
// dS = P * (dP - rowsum(dP * P)); dQ = scale dS K; dK = scale dS^T Q; dV = P^T dO.
template <typename T>
void attention_bwd(const T* dout, const T* q, const T* k, const T* v, const T* probs, T* dq, T* dk,
                   T* dv, const AttentionShape& s, T scale) {
  const size_t qs = static_cast<size_t>(s.T) * s.Dqk, vs = static_cast<size_t>(s.T) * s.Dv,
               ps = static_cast<size_t>(s.T) * s.T;
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < s.B * s.H; ++bh) {
    CMapR<T> Q(q + bh * qs, s.T, s.Dqk), K(k + bh * qs, s.T, s.Dqk), V(v + bh * vs, s.T, s.Dv);
    CMapR<T> P(probs + bh * ps, s.T, s.T), dO(dout + bh * vs, s.T, s.Dv);
    MapR<T> dQ(dq + bh * qs, s.T, s.Dqk), dK(dk + bh * qs, s.T, s.Dqk), dV(dv + bh * vs, s.T, s.Dv);
    dV.noalias() = P.transpose() * dO;
    MatR<T> dS = dO * V.transpose();  // dP, then dS in place
    for (int t = 0; t < s.T; ++t) {
      T dot = 0;
      for (int j = 0; j <= t; ++j) dot += dS(t, j) * P(t, j);
      for (int j = 0; j <= t; ++j) dS(t, j) = P(t, j) * (dS(t, j) - dot) * scale;
      for (int j = t + 1; j < s.T; ++j) dS(t, j) = 0;
    }
    dQ.noalias() = dS * K;
    dK.noalias() = dS.transpose() * Q;
  }
}

}  // namespace popebench::cpu
