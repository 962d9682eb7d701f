// Cross-entropy over rows of logits: one per example (the answer position), mean over the batch;
// or, with row weights, the weighted sum (the loss on every next token: weights 1/count, 0 where
// a position does not count).
#pragma once
#include <cmath>
#include <cstdint>

namespace popebench::cpu {

// logits (B, V), targets (B) -> returns the mean loss, or sum of weight (B) x loss; probs (B, V)
// softmax saved for the backward; correct (B) gets 1 where the arg-max (lowest index on ties)
// equals the target.
template <typename T>
T cross_entropy_fwd(const T* logits, const int32_t* targets, T* probs, int32_t* correct, int B, int V,
                    const double* weight = nullptr) {
  T total = 0;
  for (int b = 0; b < B; ++b) {
    const T* l = logits + static_cast<size_t>(b) * V;
    T* p = probs + static_cast<size_t>(b) * V;
    int arg = 0;
    for (int v = 1; v < V; ++v)
      if (l[v] > l[arg]) arg = v;
    T m = l[arg], s = 0;
    for (int v = 0; v < V; ++v) s += (p[v] = std::exp(l[v] - m));
    for (int v = 0; v < V; ++v) p[v] /= s;
    const T row = m + std::log(s) - l[targets[b]];
    total += weight ? T(weight[b]) * row : row;
    if (correct) correct[b] = arg == targets[b];
  }
  return weight ? total : total / B;
}

// -> dlogits (B, V) = (softmax - onehot) / B, or times weight (B) instead of 1/B
template <typename T>
void cross_entropy_bwd(const T* probs, const int32_t* targets, T* dlogits, int B, int V, const double* weight = nullptr) {
  for (int b = 0; b < B; ++b)
    for (int v = 0; v < V; ++v) {
      const T g = probs[static_cast<size_t>(b) * V + v] - (v == targets[b]);
      dlogits[static_cast<size_t>(b) * V + v] = weight ? g * T(weight[b]) : g / B;
    }
}

}  // namespace popebench::cpu
