// Causal scaled-dot-product attention on per-head contiguous tensors, with an optional linear
// distance bias per head (ALiBi: score -= slope_h * (t - s)). Positional embeddings that act on
// q and k (RoPE, PoPE) are applied before this op; it sees their already-transformed q and k.
// The CPU reference keeps the (T, T) probabilities for the backward; the CUDA kernel does not.
// Two options of the model ride on it, as on the CUDA kernels:
// - key_start (B) masks left pads: a query t of row b attends to keys [key_start[b], t], or to
//   itself alone when it is a pad (t < key_start[b]; its output feeds no counted prediction).
// - log_temp (H), a learned log-temperature per head: the scores are (q . k) scale exp(g_h).
//   Its gradient is sum_t dq_t . q_t over the head's rows (dq the gradient of the query as the
//   dot product sees it), since d score / d g = score.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cpu/eigen_types.hpp"

namespace popebench::cpu {

struct AttentionShape {
  int B, H, T;
  int Dqk;  // width of q and k as seen by the dot product (2*head_dim for PoPE)
  int Dv;   // width of v and of the output
};

// First key a query may attend (key_start: masked left pads, see above).
inline int first_key(const int32_t* key_start, int b, int t) {
  if (!key_start) return 0;
  return t < key_start[b] ? t : key_start[b];
}

// q, k (B, H, T, Dqk), v (B, H, T, Dv) -> out (B, H, T, Dv), probs (B, H, T, T) saved
// (0 outside each query's keys). slopes (H), key_start (B), log_temp (H): each or nullptr.
template <typename T>
void attention_fwd(const T* q, const T* k, const T* v, T* out, T* probs, const AttentionShape& s,
                   T scale, const double* slopes, const int32_t* key_start = nullptr, const T* log_temp = nullptr) {
  fix_eigen_products();  // P V sums over T keys: Eigen's blocking of it fixed (eigen_types.hpp)
  const size_t qs = static_cast<size_t>(s.T) * s.Dqk, vs = static_cast<size_t>(s.T) * s.Dv,
               ps = static_cast<size_t>(s.T) * s.T;
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < s.B * s.H; ++bh) {
    const int h = bh % s.H, b = bh / s.H;
    const T sh = log_temp ? scale * std::exp(log_temp[h]) : scale;
    CMapR<T> Q(q + bh * qs, s.T, s.Dqk), K(k + bh * qs, s.T, s.Dqk), V(v + bh * vs, s.T, s.Dv);
    MapR<T> P(probs + bh * ps, s.T, s.T), O(out + bh * vs, s.T, s.Dv);
    P.noalias() = (Q * K.transpose()) * sh;
    for (int t = 0; t < s.T; ++t) {
      const int j0 = first_key(key_start, b, t);
      T m = -std::numeric_limits<T>::infinity();
      for (int j = j0; j <= t; ++j) {
        if (slopes) P(t, j) -= T(slopes[h] * (t - j));
        m = std::max(m, P(t, j));
      }
      T sum = 0;
      for (int j = j0; j <= t; ++j) sum += (P(t, j) = std::exp(P(t, j) - m));
      for (int j = j0; j <= t; ++j) P(t, j) /= sum;
      for (int j = 0; j < j0; ++j) P(t, j) = 0;
      for (int j = t + 1; j < s.T; ++j) P(t, j) = 0;
    }
    O.noalias() = P * V;
  }
}

// dout (B, H, T, Dv) -> dq, dk (B, H, T, Dqk), dv (B, H, T, Dv), all overwritten.
// dS = P * (dP - rowsum(dP * P)); dQ = s_h dS K; dK = s_h dS^T Q; dV = P^T dO, s_h the head's
// scale (times exp(log_temp[h]) when given). Masked keys need nothing here: their P is 0.
// dlog_temp (H) accumulates the log-temperatures' gradient when log_temp is given.
template <typename T>
void attention_bwd(const T* dout, const T* q, const T* k, const T* v, const T* probs, T* dq, T* dk,
                   T* dv, const AttentionShape& s, T scale, const T* log_temp = nullptr, T* dlog_temp = nullptr) {
  fix_eigen_products();
  const size_t qs = static_cast<size_t>(s.T) * s.Dqk, vs = static_cast<size_t>(s.T) * s.Dv,
               ps = static_cast<size_t>(s.T) * s.T;
  std::vector<T> temp_part(log_temp ? static_cast<size_t>(s.B) * s.H : 0);  // (B, H), summed in order below
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < s.B * s.H; ++bh) {
    const T sh = log_temp ? scale * std::exp(log_temp[bh % s.H]) : scale;
    CMapR<T> Q(q + bh * qs, s.T, s.Dqk), K(k + bh * qs, s.T, s.Dqk), V(v + bh * vs, s.T, s.Dv);
    CMapR<T> P(probs + bh * ps, s.T, s.T), dO(dout + bh * vs, s.T, s.Dv);
    MapR<T> dQ(dq + bh * qs, s.T, s.Dqk), dK(dk + bh * qs, s.T, s.Dqk), dV(dv + bh * vs, s.T, s.Dv);
    dV.noalias() = P.transpose() * dO;
    MatR<T> dS = dO * V.transpose();  // dP, then dS in place
    for (int t = 0; t < s.T; ++t) {
      T dot = 0;
      for (int j = 0; j <= t; ++j) dot += dS(t, j) * P(t, j);
      for (int j = 0; j <= t; ++j) dS(t, j) = P(t, j) * (dS(t, j) - dot) * sh;
      for (int j = t + 1; j < s.T; ++j) dS(t, j) = 0;
    }
    dQ.noalias() = dS * K;
    dK.noalias() = dS.transpose() * Q;
    if (log_temp) temp_part[bh] = (dQ.array() * Q.array()).sum();
  }
  if (log_temp && dlog_temp)
    for (int bh = 0; bh < s.B * s.H; ++bh) dlog_temp[bh % s.H] += temp_part[bh];
}

}  // namespace popebench::cpu
