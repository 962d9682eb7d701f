#include "models/batch_sampler.hpp"

#include "common/files.hpp"
#include "common/json_int.hpp"

namespace popebench {

BatchSampler::BatchSampler(const std::string& sampling, uint64_t seed, size_t n_train)
    : epochs_(sampling == "epochs"), seed_(seed), n_(n_train), rng_(make_stream(seed, Stream::kBatches)) {
  if (sampling != "epochs" && sampling != "replacement") throw UserError("unknown batch sampling '" + sampling + "'");
  if (n_ == 0) throw UserError("the training split is empty");
  if (n_ > UINT32_MAX) throw UserError("the training split has more than 2^32 examples");
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

void BatchSampler::next(std::vector<size_t>& idx) {
  for (auto& i : idx) {
    if (!epochs_) {
      i = rng_.bounded(static_cast<uint32_t>(n_));
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
