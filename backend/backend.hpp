// What the training loop needs from a device. The CPU backend (backend/cpu_backend.cpp) and the
// CUDA backend implement it; the loop, schedule, data, checkpoints and JSON are shared.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/batch.hpp"
#include "config/config.hpp"
#include "model/params.hpp"

namespace popebench {

// The loss on every next token of an evaluation batch (every_token_targets' counted positions):
// the sum of their cross-entropies in nats and how many there are. Language modelling reports it
// as bits per token (bits per byte on the text task): nats / tokens / ln 2.
struct TokenLoss {
  double nats = 0;  // summed over the counted next-token predictions
  long tokens = 0;
  double answer_nats = 0;  // the answers' cross-entropy, summed over the batch (eval_batch's, unaveraged)
};

struct StepResult {
  double loss = 0;
  double grad_norm = 0;  // before clipping
  int correct = 0;       // arg-max hits in the batch
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string device_name() const = 0;
  // The CUDA device this backend runs on (`--gpus` puts runs on different ones); -1 on the CPU.
  virtual int device_index() const { return -1; }
  virtual const ParamLayout& layout() const = 0;
  // Parameters and AdamW moments, each layout().total floats, for init and checkpoints.
  virtual void get_state(std::vector<float>& params, std::vector<float>& m, std::vector<float>& v) = 0;
  virtual void set_state(const std::vector<float>& params, const std::vector<float>& m, const std::vector<float>& v) = 0;
  // Forward and backward of each micro-batch, their gradients averaged (TrainConfig::grad_accum),
  // global-norm clipping and one AdamW update at learning rate lr; step is the 1-based optimizer
  // step. loss is the mean of the micro-batches' mean losses, correct their sum.
  virtual StepResult train_step(const std::vector<Batch>& micro, double lr, long step) = 0;
  // One batch, no accumulation.
  StepResult train_step(const Batch& b, double lr, long step) { return train_step(std::vector<Batch>{b}, lr, step); }
  // Forward only: mean loss over the batch; correct (B,) filled.
  virtual double eval_batch(const Batch& b, std::vector<int32_t>& correct) = 0;
  // Forward only, the loss on every next token (the text task's bits per byte), and from the same
  // pass what eval_batch gives: the answers' loss (answer_nats) and correct (B,). The CUDA backend
  // holds the buffers for it only in runs trained with TrainConfig::loss "all".
  virtual TokenLoss eval_every_token(const Batch& b, std::vector<int32_t>& correct) = 0;
  // Sequence length every batch must be padded to (static shapes, e.g. CUDA graphs); 0: any.
  virtual int static_len() const { return 0; }
  // A run trained in a batch of runs (backend/run_batch.hpp): {"runs": R, "slot": r}, recorded in
  // its run JSON; null for a run trained alone.
  virtual nlohmann::json batch_info() const { return nullptr; }
};

// device: "cpu", "cuda" or "auto" (the GPU when one is usable, else the CPU with a notice).
std::unique_ptr<Backend> make_backend(const RunConfig& cfg, DeviceChoice device);

}  // namespace popebench

namespace popebench {
// Benchmark hook (CUDA builds, backend/cuda/hooks.cu): median ms of the graph-captured step and of
// its parts, for a backend of `runs` runs of cfg (seeds cfg's, +1, ...; 1: a run alone), each on b.
// batch_heuristic_products: the batched products take cuBLASLt's choice for the batch instead of
// a run alone's algorithm (kernels/cuda/gemm.hpp, Gemm::pin_batched_to_single).
nlohmann::json cuda_benchmark_step(const RunConfig& cfg, int runs, const Batch& b, int warmup, int iters,
                                   bool batch_heuristic_products = false);
// Benchmark hook (CUDA builds): `runs` runs of cfg trained alone at once, each its own backend on
// its own stream (sweep --concurrent without --batch-runs): median ms of one step of all of them.
nlohmann::json cuda_benchmark_streams(const RunConfig& cfg, int runs, const Batch& b, int warmup, int iters);
// Test hook (CUDA builds): one batch's loss and gradient at the given parameters on the CUDA
// backend, no update.
double cuda_loss_and_grad(const RunConfig& cfg, const std::vector<float>& params, const Batch& b,
                          std::vector<float>& grads);
// Test hook (CUDA builds): a run of cfg trained one step per batch (step s at learning rate lr),
// the first `invalidate` captures of its step's graph invalidated on purpose, as another
// thread's device-wide call invalidates one (kernels/cuda/capture_lock.hpp).
struct CapturedRun {
  std::vector<double> losses;  // (steps)
  std::vector<float> params;   // after the last step
  int invalidated = 0;         // captures invalidated, whatever the cause
  bool graph = false;          // the step's graph exists after the last step
};
CapturedRun cuda_train_invalidating_captures(const RunConfig& cfg, const std::vector<Batch>& batches, double lr,
                                             int invalidate);
}  // namespace popebench
