// A training or evaluation batch: padded token ids of the model's inputs (each example's
// sequence without its target), the answer positions and the targets.
// Right padding (the default) puts the pads after each example's answer position, so the causal
// mask keeps them out of every prediction that counts. Left padding puts them before the
// example, where attention sees them unless they are masked (InputConfig::pad, pad_attention); a context crop keeps only the last
// InputConfig::context input tokens, positions starting at 0 at the first one kept.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/error.hpp"
#include "generators/dataset.hpp"
#include "generators/vocab.hpp"
#include "config/config.hpp"

namespace popebench {

struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> tokens;      // (B, T)
  std::vector<int32_t> answer_pos;  // (B,)
  std::vector<int32_t> targets;     // (B,)
  // (B,) or empty: with masked left pads (InputConfig::pad_attention), each row's first real
  // position; its queries attend from there on (the attention ops' key_start).
  std::vector<int32_t> key_start;
  // Training batches only (make_training_batch): TrainConfig::loss_fields, the input fields whose
  // tokens are targets of the loss on every token (empty: all).
  std::vector<int> loss_fields;
};

// T = pad_to when > 0 (static shapes for CUDA graphs; left padding always needs it, since the
// visible pads are part of the input), else the longest (cropped) input in the batch.
inline Batch make_batch(const Dataset& d, const std::vector<size_t>& idx, int pad_to = 0, const InputConfig& in = {}) {
  auto kept = [&](size_t i) { return in.context > 0 ? std::min(d.input_length(i), in.context) : d.input_length(i); };
  Batch b;
  b.B = static_cast<int>(idx.size());
  for (size_t i : idx) b.T = std::max(b.T, kept(i));
  if (pad_to > 0 && pad_to < b.T)
    throw UserError("an input of " + std::to_string(b.T) + " tokens does not fit rows of " + std::to_string(pad_to));
  if (pad_to > 0) b.T = pad_to;
  const bool left = in.pad == PadSide::kLeft, masked = in.pad_attention == PadAttention::kMasked;
  b.tokens.assign(static_cast<size_t>(b.B) * b.T, vocab::kPad);
  for (int r = 0; r < b.B; ++r) {
    const size_t i = idx[r];
    const int n = kept(i), first = d.input_length(i) - n;  // input tokens [first, first + n) are kept
    const int at = left ? b.T - n : 0;                     // where they go in the row
    const uint16_t* s = d.seq(i) + first;
    for (int t = 0; t < n; ++t) b.tokens[static_cast<size_t>(r) * b.T + at + t] = s[t];
    b.answer_pos.push_back(at + n - 1);
    if (masked) b.key_start.push_back(at);
    b.targets.push_back(d.target(i));
  }
  return b;
}

// A batch the optimizer trains on: make_batch's, with the run's choice of targets for the loss on
// every token. The one place that builds training batches, so that no backend misses the choice.
inline Batch make_training_batch(const Dataset& d, const std::vector<size_t>& idx, int pad_to, const RunConfig& cfg) {
  Batch b = make_batch(d, idx, pad_to, cfg.input);
  b.loss_fields = cfg.train.loss_fields;
  return b;
}

// The loss on every next token (TrainConfig::loss "all"): every row position t that holds an
// input token (not a pad) and is at or before the answer position predicts the next input token,
// or the target at the answer position. Every (B, T) position gets a target and a weight: 1/count
// where it counts (so the loss is the mean over the counted tokens, as PyTorch's cross-entropy
// with ignored positions), 0 (and target PAD) where it does not. With b.loss_fields, a prediction
// of an input token counts only when that token lies in one of those fields (the ',' closing a
// field belongs to it); the answer always counts.
struct TokenTargets {
  std::vector<int32_t> targets;  // (B, T)
  std::vector<double> weights;   // (B, T), summing to 1 (double: the double model's loss is exact)
};
inline TokenTargets every_token_targets(const Batch& b) {
  TokenTargets r;
  const size_t N = static_cast<size_t>(b.B) * b.T;
  r.targets.assign(N, vocab::kPad);
  r.weights.assign(N, 0.0);
  std::vector<size_t> counted;
  auto field_counts = [&](int field) {
    return b.loss_fields.empty() || std::find(b.loss_fields.begin(), b.loss_fields.end(), field) != b.loss_fields.end();
  };
  for (int row = 0; row < b.B; ++row) {
    int field = 0;  // of the token at t + 1: the commas before it
    for (int t = 0; t <= b.answer_pos[row]; ++t) {
      const size_t i = static_cast<size_t>(row) * b.T + t;
      if (b.tokens[i] == vocab::kComma) ++field;
      if (b.tokens[i] == vocab::kPad) continue;
      if (t < b.answer_pos[row] && !field_counts(field)) continue;
      r.targets[i] = t < b.answer_pos[row] ? b.tokens[i + 1] : b.targets[row];
      counted.push_back(i);
    }
  }
  for (size_t i : counted) r.weights[i] = 1.0 / static_cast<double>(counted.size());
  return r;
}

}  // namespace popebench
