#include "backend/run_batch.hpp"

#include <stdexcept>

#include "backend/device_factories.hpp"
#include "common/error.hpp"
#include "kernels/device.hpp"


namespace popebench {

std::string batch_key(const RunConfig& cfg) {
  nlohmann::json j = cfg;
  j["train"].erase("seed");
  j["train"].erase("data_seed");
  return j.dump();
}

// What a run of the batch sees as its Backend: its slot of the batch.
class RunBatchMember final : public Backend {
 public:
  RunBatchMember(RunBatch& batch, int slot) : batch_(batch), slot_(slot) {}
  ~RunBatchMember() override { batch_.leave(slot_); }
  std::string device_name() const override { return batch_.engine_->device_name(); }
  int device_index() const override { return batch_.engine_->device_index(); }
  const ParamLayout& layout() const override { return batch_.engine_->layout(); }
  int static_len() const override { return batch_.engine_->static_len(); }
  void get_state(std::vector<float>& p, std::vector<float>& m, std::vector<float>& v) override {
    std::lock_guard<std::mutex> lk(batch_.mu_);
    batch_.engine_->get_state(slot_, p, m, v);
  }
  void set_state(const std::vector<float>& p, const std::vector<float>& m, const std::vector<float>& v) override {
    std::lock_guard<std::mutex> lk(batch_.mu_);
    batch_.engine_->set_state(slot_, p, m, v);
  }
  using Backend::train_step;
  StepResult train_step(const std::vector<Batch>& micro, double lr, long step) override {
    // The runner batches only runs without accumulation (TrainConfig::grad_accum 1).
    if (micro.size() != 1) throw std::logic_error("a batched run takes one micro-batch per step");
    return batch_.train_step(slot_, micro[0], lr, step);
  }
  double eval_batch(const Batch& b, std::vector<int32_t>& correct) override {
    std::lock_guard<std::mutex> lk(batch_.mu_);
    return batch_.engine_->eval_batch(slot_, b, correct);
  }
  TokenLoss eval_every_token(const Batch& b, std::vector<int32_t>& correct) override {
    std::lock_guard<std::mutex> lk(batch_.mu_);
    return batch_.engine_->eval_every_token(slot_, b, correct);
  }
  nlohmann::json batch_info() const override {
    nlohmann::json j = {{"runs", batch_.runs()}, {"slot", slot_}};
    std::lock_guard<std::mutex> lk(batch_.mu_);
    if (batch_.engine_) j.update(batch_.engine_->describe());
    return j;
  }

 private:
  RunBatch& batch_;
  int slot_;
};

RunBatch::RunBatch(int runs, BatchEngineFactory make_engine)
    : runs_(runs), make_engine_(std::move(make_engine)), slots_(runs, Slot::kPending), joined_(runs, false),
      results_(runs) {
  if (runs < 1) throw std::logic_error("a batch needs at least one run");
}

std::unique_ptr<Backend> RunBatch::join(int r, const RunConfig& cfg) {
  std::lock_guard<std::mutex> lk(mu_);
  if (r < 0 || r >= runs_ || joined_[r] || slots_[r] == Slot::kLeft)
    throw std::logic_error("run batch: slot " + std::to_string(r) + " joined twice, after leaving, or out of range");
  if (!engine_) {
    engine_ = make_engine_(cfg, runs_);
    key_ = batch_key(cfg);
  } else if (batch_key(cfg) != key_) {
    throw std::logic_error("run batch: a run whose config differs from the batch's in more than its seeds");
  }
  engine_->init_run(r, cfg);
  joined_[r] = true;
  return std::make_unique<RunBatchMember>(*this, r);
}

void RunBatch::leave(int r) {
  std::lock_guard<std::mutex> lk(mu_);
  if (slots_[r] == Slot::kLeft) return;
  slots_[r] = Slot::kLeft;
  // The others may now be complete: wake them, one of them runs the step.
  cv_.notify_all();
}

bool RunBatch::all_staged() const {
  bool any = false;
  for (Slot s : slots_) {
    if (s == Slot::kPending) return false;
    any = any || s == Slot::kStaged;
  }
  return any;
}

void RunBatch::run_step() {
  try {
    for (int r = 0; r < runs_; ++r)
      if (slots_[r] == Slot::kLeft) engine_->stage(r, nullptr, 0, 0);
    engine_->step_all();
    for (int r = 0; r < runs_; ++r)
      if (slots_[r] == Slot::kStaged) {
        results_[r] = engine_->result(r);
        slots_[r] = Slot::kPending;
      }
  } catch (...) {
    failure_ = std::current_exception();
  }
  ++generation_;
  cv_.notify_all();
}

StepResult RunBatch::train_step(int r, const Batch& b, double lr, long step) {
  std::unique_lock<std::mutex> lk(mu_);
  if (failure_) std::rethrow_exception(failure_);
  engine_->stage(r, &b, lr, step);
  slots_[r] = Slot::kStaged;
  const uint64_t gen = generation_;
  // Whoever finds every slot staged (or gone) runs the step: the last to arrive, or a waiter
  // woken by the last run to leave.
  cv_.wait(lk, [&] { return generation_ != gen || all_staged(); });
  if (generation_ == gen) run_step();
  if (failure_) std::rethrow_exception(failure_);
  return results_[r];
}

void require_batch_device(const RunConfig& cfg) {
  if (cfg.train.device == DeviceChoice::kCpu) throw UserError("--batch-runs needs the GPU (--device cuda or auto)");
  const DeviceInfo info = query_device();
  if (!info.cuda_built || info.cuda_devices == 0) throw UserError("--batch-runs needs a usable GPU (" + info.error + ")");
}

bool runs_batch_on_gpu(const RunConfig& cfg) {
  if (cfg.train.device == DeviceChoice::kCpu) return false;
  const DeviceInfo info = query_device();
  if (!info.cuda_built || info.cuda_devices == 0) return false;
#ifdef POPEBENCH_HAVE_CUDA_BACKEND
  return cuda_backend_cannot_run(cfg).empty();
#else
  return false;
#endif
}

std::unique_ptr<BatchEngine> make_batch_engine(const RunConfig& cfg, int runs) {
  require_batch_device(cfg);
#ifdef POPEBENCH_HAVE_CUDA_BACKEND
  return make_cuda_batch_engine(cfg, runs);
#else
  (void)runs;
  throw UserError("--batch-runs: this build has no CUDA training backend");
#endif
}

}  // namespace popebench
