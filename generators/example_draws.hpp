// The tasks whose records are independent draws (Indirect Indexing, associative recall, k-back)
// make a split the same way: `count` examples from the split's stream, each right-padded to the
// task's width. A task of this kind gives its config `Example draw(Pcg32&) const` and the name of
// what its offset counts (kOffsetName), and its generate() calls draw_examples.
#pragma once
#include <algorithm>
#include <cstdint>

#include "common/rng.hpp"
#include "generators/dataset.hpp"
#include "generators/vocab.hpp"

namespace popebench {

template <typename Cfg>
Dataset draw_examples(const Cfg& c, Pcg32& rng, uint64_t count, SplitStats* stats) {
  Dataset d;
  d.width = c.width();
  d.vocab_size = c.vocab_size();
  d.tokens.assign(count * d.width, vocab::kPad);  // (count, width)
  d.lengths.resize(count);                        // (count)
  if (stats) stats->offset_name = Cfg::kOffsetName;
  for (uint64_t i = 0; i < count; ++i) {
    Example ex = c.draw(rng);
    std::copy(ex.tokens.begin(), ex.tokens.end(), d.tokens.begin() + i * d.width);
    d.lengths[i] = static_cast<uint16_t>(ex.tokens.size());
    if (stats) {
      stats->length_hist[ex.length]++;
      stats->offset_hist[ex.offset]++;
    }
  }
  return d;
}

}  // namespace popebench
