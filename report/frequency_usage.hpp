// Which frequencies a trained model uses (the paper's frequency-usage analysis): per layer, head
// and frequency, the mean magnitude q and k carry on that frequency at the real tokens of held-out
// examples. RoPE: the norm of each rotated channel pair (the rotation leaves it unchanged); PoPE:
// the softplus magnitude mu of each channel. A channel with small magnitude contributes little to
// any score, whatever its frequency, so the curve over frequencies says which ones attention
// uses. PoPE's key phase delta is reported per frequency beside it.
#pragma once
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/batch.hpp"
#include "model/pe/positional.hpp"
#include "model/transformer.hpp"

namespace popebench {

class FrequencyUsage {
 public:
  // n_layer, n_head and the PE's channels (Transformer::frequency_channels; none: nothing to
  // measure, json() is null).
  FrequencyUsage(int n_layer, int n_head, std::vector<FrequencyChannel> channels);
  // Adds the model's last forward, on batch b: every position whose token is not a pad.
  void add(const Transformer<float>& model, const Batch& b);
  // {"measure", "theta" [F], "positions", "layers": [{"layer", "q" [H][F], "k" [H][F]}]}; with
  // delta (PoPE's, per layer (H, D) as the forward sees it, clamped) also "delta" [H][F] per layer.
  nlohmann::json json(const std::vector<std::vector<double>>* delta = nullptr) const;

 private:
  int L_, H_;
  std::vector<FrequencyChannel> ch_;
  std::vector<double> q_, k_;  // (L, H, F) sums over positions
  size_t positions_ = 0;
};

}  // namespace popebench
