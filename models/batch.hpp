// A training or evaluation batch: right-padded token ids of the model's inputs (each example's
// sequence without its target), the answer positions and the targets. Padding sits after each
// example's answer position, so the causal mask keeps it out of every prediction that counts.
#pragma once
#include <cstdint>
#include <vector>

#include "generators/dataset.hpp"
#include "generators/vocab.hpp"

namespace popebench {

struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> tokens;      // (B, T)
  std::vector<int32_t> answer_pos;  // (B,)
  std::vector<int32_t> targets;     // (B,)
};

// T = pad_to when > 0 (static shapes for CUDA graphs), else the longest input in the batch.
inline Batch make_batch(const Dataset& d, const std::vector<size_t>& idx, int pad_to = 0) {
  Batch b;
  b.B = static_cast<int>(idx.size());
  for (size_t i : idx) b.T = std::max(b.T, d.input_length(i));
  if (pad_to > 0) b.T = pad_to;
  b.tokens.assign(static_cast<size_t>(b.B) * b.T, vocab::kPad);
  for (int r = 0; r < b.B; ++r) {
    size_t i = idx[r];
    const uint16_t* s = d.seq(i);
    for (int t = 0; t < d.input_length(i); ++t) b.tokens[static_cast<size_t>(r) * b.T + t] = s[t];
    b.answer_pos.push_back(d.answer_pos(i));
    b.targets.push_back(d.target(i));
  }
  return b;
}

}  // namespace popebench
