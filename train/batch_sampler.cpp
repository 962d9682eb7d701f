#include "train/batch_sampler.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/json_int.hpp"

namespace popebench {

BatchSampler::BatchSampler(BatchSampling sampling, uint64_t seed, size_t n_train)
    : epochs_(sampling == BatchSampling::kEpochs), seed_(seed), n_(n_train), rng_(make_stream(seed, Stream::kBatches)) {
  if (n_ == 0) throw UserError("the training split is empty");
  if (n_ > UINT32_MAX) throw UserError("the training split has more than 2^32 examples");
}

BatchSampler::BatchSampler(BatchSampling sampling, uint64_t seed, const std::vector<uint16_t>& lengths,
                           int64_t curriculum_steps)
    : BatchSampler(sampling, seed, lengths.size()) {
  if (curriculum_steps < 0) throw UserError("the curriculum's steps must be >= 0");
  if (curriculum_steps > 0 && epochs_) throw UserError("a curriculum over length draws with replacement: not with --sampling epochs");
  if (curriculum_steps == 0) return;
  lengths_ = &lengths;
  curriculum_steps_ = curriculum_steps;
  const auto [lo, hi] = std::minmax_element(lengths.begin(), lengths.end());
  shortest_ = *lo - 1;  // input length: everything but the target
  longest_ = *hi - 1;
}

int BatchSampler::length_limit(int64_t step) const {
  if (step >= curriculum_steps_) return longest_;
  // Step 0 admits the shortest inputs; the limit reaches the longest at the curriculum's last step.
  const int64_t span = longest_ - shortest_;
  return shortest_ + static_cast<int>(span * (step + 1) / curriculum_steps_);
}

void BatchSampler::build_order(uint64_t epoch) {
  order_.resize(n_);
  for (size_t i = 0; i < n_; ++i) order_[i] = static_cast<uint32_t>(i);
  // Epoch e's own stream: an epoch's order does not depend on how the earlier ones were drawn.
  Pcg32 r(derive_seed(derive_seed(seed_, static_cast<uint64_t>(Stream::kBatches)), epoch),
          static_cast<uint64_t>(Stream::kBatches));
  for (size_t i = n_ - 1; i > 0; --i) std::swap(order_[i], order_[r.bounded(static_cast<uint32_t>(i + 1))]);
  order_epoch_ = epoch;
}

void BatchSampler::next(std::vector<size_t>& idx, int64_t step) {
  const bool limited = lengths_ && step < curriculum_steps_;
  const int limit = limited ? length_limit(step) : 0;
  for (auto& i : idx) {
    if (!epochs_) {
      i = rng_.bounded(static_cast<uint32_t>(n_));
      // The shortest inputs are admitted at every step, so this ends (Indirect Indexing's
      // shortest strings are ~1 in 21 of the split: ~21 draws an example at step 0).
      while (limited && (*lengths_)[i] - 1 > limit) i = rng_.bounded(static_cast<uint32_t>(n_));
    } else {
      const uint64_t epoch = drawn_ / n_;
      if (epoch != order_epoch_) build_order(epoch);
      i = order_[drawn_ % n_];
    }
    ++drawn_;
  }
}

nlohmann::json BatchSampler::state() const { return {{"examples_drawn", drawn_}}; }

void BatchSampler::set_state(const nlohmann::json& j) { drawn_ = json_int<uint64_t>(j, "examples_drawn"); }

}  // namespace popebench
