// Several runs trained as one batched model on one device (`--batch-runs`: a sweep's seeds).
//
// Each run keeps its own thread and its own trainer loop (train/trainer.cpp, unchanged): data,
// batch sampling, schedule, evaluation, checkpoints, resume and run JSON. What it sees as its
// Backend is a member of a RunBatch: the member's train_step hands the run's batch, learning rate
// and step to the batch and waits until every other run of the batch has handed its own; the
// last to arrive runs one step of the whole batch on the device (BatchEngine::step_all) and wakes
// the others with their results. Evaluation, checkpoints and resume go to the run's own slot,
// one caller at a time.
//
// A run that ends, whatever the way (finished, stopped, diverged, failed), leaves the batch, and
// the others go on without waiting for it; its slot still computes in every later step, with its
// parameters frozen (BatchEngine::stage with no batch). A run that has not joined yet (still
// loading its data) is waited for: the runner that made the batch promises that every slot
// either joins or leaves (RunBatch::leave, called when a run's job ends).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.hpp"

namespace popebench {

// The device side of a batch of R runs: R copies of the model's parameters and moments, and one
// training step that updates all of them.
class BatchEngine {
 public:
  virtual ~BatchEngine() = default;
  virtual std::string device_name() const = 0;
  virtual int device_index() const = 0;
  virtual const ParamLayout& layout() const = 0;
  virtual int static_len() const = 0;
  // Slot r starts from the initial parameters of cfg (its seed) and zero moments.
  virtual void init_run(int r, const RunConfig& cfg) = 0;
  virtual void get_state(int r, std::vector<float>& params, std::vector<float>& m, std::vector<float>& v) = 0;
  virtual void set_state(int r, const std::vector<float>& params, const std::vector<float>& m,
                         const std::vector<float>& v) = 0;
  // What slot r trains on in the next step_all: its batch, learning rate and 1-based step; b ==
  // nullptr: the slot idles (its parameters and moments stay as they are).
  virtual void stage(int r, const Batch* b, double lr, long step) = 0;
  // One training step of every slot, with what each was staged.
  virtual void step_all() = 0;
  // Slot r's loss, gradient norm and hits in the last step_all.
  virtual StepResult result(int r) const = 0;
  // Forward only, slot r's parameters (as Backend::eval_batch).
  virtual double eval_batch(int r, const Batch& b, std::vector<int32_t>& correct) = 0;
  // Forward only, slot r's parameters (as Backend::eval_every_token).
  virtual TokenLoss eval_every_token(int r, const Batch& b, std::vector<int32_t>& correct) = 0;
  // What a member's run JSON records of how the batch computes (environment.batch), beside its
  // size and slot: e.g. how the CUDA engine chose its batched products' algorithms.
  virtual nlohmann::json describe() const { return nlohmann::json::object(); }
};

// Builds the engine for `runs` slots, sized by the first run that joins.
using BatchEngineFactory = std::function<std::unique_ptr<BatchEngine>(const RunConfig& cfg, int runs)>;

// The engine on this thread's GPU (backend/run_batch.cpp); a UserError where there is none.
std::unique_ptr<BatchEngine> make_batch_engine(const RunConfig& cfg, int runs);
// A UserError, saying why, when runs of cfg cannot be batched on this machine (no GPU, --device cpu).
void require_batch_device(const RunConfig& cfg);
// Whether a run of cfg trains on the GPU here (what make_backend would choose: --device cuda or
// auto, a usable GPU, kernels that cover the config): what --batch-runs auto batches.
bool runs_batch_on_gpu(const RunConfig& cfg);

// The runs of a batch must differ only in what the engine keeps per slot: their seeds. This is
// the config with those removed; runs with equal keys may share a batch.
std::string batch_key(const RunConfig& cfg);

class RunBatch {
 public:
  RunBatch(int runs, BatchEngineFactory make_engine);
  RunBatch(const RunBatch&) = delete;
  RunBatch& operator=(const RunBatch&) = delete;
  int runs() const { return runs_; }
  // The Backend of the run in slot r (the first join builds the engine). Leaves when destroyed.
  std::unique_ptr<Backend> join(int r, const RunConfig& cfg);
  // Slot r takes no part in later steps. Idempotent; the runner calls it when a run's job ends.
  void leave(int r);

 private:
  friend class RunBatchMember;
  enum class Slot { kPending, kStaged, kLeft };
  StepResult train_step(int r, const Batch& b, double lr, long step);
  bool all_staged() const;  // every slot staged or left, and one at least staged (under mu_)
  void run_step();           // under mu_, by the thread that found all_staged()

  const int runs_;
  BatchEngineFactory make_engine_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<BatchEngine> engine_;  // built at the first join
  std::string key_;                      // batch_key of the first run that joined
  std::vector<Slot> slots_;
  std::vector<bool> joined_;
  std::vector<StepResult> results_;
  uint64_t generation_ = 0;     // steps run so far
  std::exception_ptr failure_;  // a step that failed: every member rethrows it from then on
};

}  // namespace popebench
