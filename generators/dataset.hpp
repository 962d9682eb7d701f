// An in-memory dataset: fixed-width, right-padded token sequences. Every task in popebench has
// the same contract: the model reads tokens [0, len-1) and must predict the last token, so the
// answer is read at position len-2 (the last ',' for Indirect Indexing).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace popebench {

struct Dataset {
  int width = 0;       // tokens per record, the longest sequence the task can produce
  int vocab_size = 0;
  std::vector<uint16_t> tokens;   // (N, width), PAD after each sequence's end
  std::vector<uint16_t> lengths;  // (N,) full length including the target token

  size_t size() const { return lengths.size(); }
  const uint16_t* seq(size_t i) const { return tokens.data() + i * width; }
  int length(size_t i) const { return lengths[i]; }
  int answer_pos(size_t i) const { return lengths[i] - 2; }
  int target(size_t i) const { return seq(i)[lengths[i] - 1]; }
  // Input length the model has to read for example i (everything but the target).
  int input_length(size_t i) const { return lengths[i] - 1; }
};

}  // namespace popebench
