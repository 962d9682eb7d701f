// Which training examples each micro-batch holds (TrainConfig::sampling), shared by every
// backend. "replacement" (SPEC): each index uniform over the split, independently, from the run's
// batch stream. "epochs": the split in a random order per epoch (epoch e's order from its own
// stream, derived from the seed and e), taken in turn; a batch that crosses an epoch's end
// continues in the next epoch's order.
// A curriculum over length (TrainConfig::curriculum_steps, with replacement only): during its
// first N steps a drawn example is kept only if its input is no longer than a limit that grows
// linearly from the split's shortest input to its longest; longer ones are drawn again from the
// same stream, so the run stays a function of its seed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/rng.hpp"
#include "config/choices.hpp"

namespace popebench {

class BatchSampler {
 public:
  BatchSampler(BatchSampling sampling, uint64_t seed, size_t n_train);
  // The curriculum: input lengths (N,) of the split and the steps it lasts (0: none).
  BatchSampler(BatchSampling sampling, uint64_t seed, const std::vector<uint16_t>& lengths, int64_t curriculum_steps);
  // Fills idx (its size is the batch) with the indices of the examples of optimizer step `step`
  // (0-based; it matters only during a curriculum).
  void next(std::vector<size_t>& idx, int64_t step = 0);
  // The longest input length a curriculum admits at that step (the longest of the split after it).
  int length_limit(int64_t step) const;
  // What a checkpoint keeps, and restores it: the with-replacement stream's state and the count
  // of examples drawn (epochs: the position in the epoch order, which is rebuilt from it).
  nlohmann::json state() const;
  void set_state(const nlohmann::json& j);
  // Checkpoints written before this class kept only the stream (with replacement).
  void set_stream_state(uint64_t state, uint64_t inc) { rng_.set_state(state, inc); }
  uint64_t stream_state() const { return rng_.state(); }
  uint64_t stream_inc() const { return rng_.inc(); }

 private:
  void build_order(uint64_t epoch);
  bool epochs_;
  uint64_t seed_;
  size_t n_;
  Pcg32 rng_;
  uint64_t drawn_ = 0;          // examples handed out so far
  uint64_t order_epoch_ = ~0ull;  // the epoch order_ belongs to
  std::vector<uint32_t> order_;   // (n_train,) epochs only
  const std::vector<uint16_t>* lengths_ = nullptr;  // (n_train,) full lengths; curriculum only
  int64_t curriculum_steps_ = 0;
  int shortest_ = 0, longest_ = 0;  // input lengths of the split
};

}  // namespace popebench
