// CudaBackend's training step of every slot (staging each slot's batch, the CUDA graph captured on
// the second step and replayed, AdamW), gradient accumulation, and evaluation of one slot.
// The class and what each file of it holds: backend/cuda/cuda_backend.cuh.
#include <cstring>
#include <exception>
#include <vector>

#include "common/error.hpp"
#include "kernels/cpu/pope.hpp"
#include "kernels/cuda/capture_lock.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "backend/cuda/cuda_backend.cuh"

namespace popebench {

StepResult CudaBackend::train_step(const std::vector<Batch>& micro, double lr, long step) {
  if (micro.empty()) throw UserError("a training step needs at least one micro-batch");
  for (const Batch& b : micro)
    if (b.B != cfg_.train.batch) throw UserError("CUDA backend: training batches must have the configured size");
  if (micro.size() > 1) return accumulated_step(micro, lr, step);
  stage(0, &micro[0], lr, step);
  step_all();
  return result(0);
}

// Slot r's batch goes to its rows of the staging buffers ([r B, (r + 1) B)); an idle slot keeps
// whatever it held (its rows are computed and never read) and takes no update.
void CudaBackend::stage(int r, const Batch* b, double lr, long step) {
  check_slot(r);
  if (b) {
    if (b->B != cfg_.train.batch) throw UserError("CUDA backend: training batches must have the configured size");
    stage_batch(train_host_, *b, every_token_, r * cfg_.train.batch);
  }
  h_hyper_[r] = cuda::AdamWHyper{static_cast<float>(lr), static_cast<float>(b ? step : 1), 0.f, b ? 1.f : 0.f};
}

// How the batched products are computed (kernels/cuda/gemm.hpp, Gemm::pin_batched_to_single): with
// no batch_heuristic among them, the batch computes each run's products as that run alone would.
nlohmann::json CudaBackend::describe() const {
  const cuda::Gemm::BatchedPlans n = gemm_.batched_plans();
  return {{"gemm_algorithms",
           {{"batched_on_single_algorithm", n.pinned}, {"one_call_per_run", n.looped}, {"batch_heuristic", n.heuristic}}}};
}

double CudaBackend::eval_batch(int r, const Batch& b, std::vector<int32_t>& correct) {
  check_slot(r);
  if (b.B > maxB_) throw UserError("CUDA backend: evaluation batch larger than configured");
  const Span sp{b.B, r, 1};
  // Evaluation has staging buffers of its own: in a batch of runs, the other slots may already
  // have staged their next step's rows in the training ones while this slot evaluates.
  stage_batch(eval_host_, b, false, 0);  // evaluation scores the answer, whatever the training loss
  upload_batch(eval_host_, sp, false);
  forward(sp, false, false);
  CUDA_CHECK(cudaMemcpyAsync(h_loss_rows_, loss_rows_, b.B * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaMemcpyAsync(h_correct_, correct_, b.B * sizeof(int32_t), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  correct.assign(h_correct_, h_correct_ + b.B);
  double loss = 0;
  for (int i = 0; i < b.B; ++i) loss += h_loss_rows_[i];
  return loss / b.B;
}

// The loss on every next token, forward only. The head then runs on every (B T) row, so the
// buffers for it exist only in runs trained with that loss (buffers.cu: head_rows_). Rows whose
// weight is 0 (pads, positions after the answer) are computed against PAD and left out here. The
// answers' rows give what eval_batch gives, from the same pass.
TokenLoss CudaBackend::eval_every_token(int r, const Batch& b, std::vector<int32_t>& correct) {
  check_slot(r);
  if (!every_token_)
    throw UserError("CUDA backend: the loss on every token is evaluated only in runs trained with --loss all");
  if (b.B > maxB_) throw UserError("CUDA backend: evaluation batch larger than configured");
  const Span sp{b.B, r, 1};
  stage_batch(eval_host_, b, true, 0);
  upload_batch(eval_host_, sp, true);
  forward(sp, false, true);
  const int rows = b.B * T_;
  CUDA_CHECK(cudaMemcpyAsync(h_loss_rows_, loss_rows_, rows * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaMemcpyAsync(h_correct_, correct_, rows * sizeof(int32_t), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  TokenLoss t;
  for (int i = 0; i < rows; ++i)
    if (eval_host_.weights[i] > 0) {
      t.nats += h_loss_rows_[i];
      ++t.tokens;
    }
  correct.resize(b.B);
  for (int i = 0; i < b.B; ++i) {
    const int row = i * T_ + b.answer_pos[i];
    correct[i] = h_correct_[row];
    t.answer_nats += h_loss_rows_[row];
  }
  return t;
}

// One training step of every slot with what each was staged: the graph, captured on the second
// step (the first runs eagerly, so that cuBLASLt picks its algorithms and the kernels their
// attributes outside capture).
void CudaBackend::step_all() {
  const Span sp = all_runs();
  if (graph_exec_ && graph_scratch_generation_ != gemm_.scratch_generation()) {
    // A bf16 scratch buffer was reallocated since the capture (an operand larger than the
    // reservation): the graph points at freed memory, so capture it again.
    CUDA_CHECK(cudaGraphExecDestroy(graph_exec_));
    CUDA_CHECK(cudaGraphDestroy(graph_));
    graph_exec_ = nullptr;
    graph_ = nullptr;
    eager_steps_ = 0;
  }
  if (!graph_exec_) {
    // First step eagerly: cuBLASLt picks its algorithms and the kernels their attributes
    // outside capture; later steps replay the graph captured on the second step (or on the
    // first after it whose capture no other thread invalidated).
    if (eager_steps_++ > 0 && capture_step(sp))
      CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream_));
    else
      enqueue_step(sp);
  } else {
    CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream_));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (int r = 0; r < R_; ++r) {
    StepResult& res = results_[r];
    res = StepResult{};
    res.loss = read_step_loss(r, sp.B, res.correct);
    res.grad_norm = h_hyper_[r].grad_norm;
  }
}

// Slot r's loss and answer hits from the downloaded rows (read after the stream synchronised;
// the slot's rows start at example r B): the mean over the answers, or the weighted sum over
// every position. The answers' positions are the staged batch's, still in the pinned buffer.
double CudaBackend::read_step_loss(int r, int B, int& correct) const {
  double loss = 0;
  const int e0 = r * B;  // the slot's first example
  for (int i = e0; i < e0 + B; ++i) correct += h_correct_[every_token_ ? i * T_ + train_host_.ans[i] : i];
  if (!every_token_) {
    for (int i = e0; i < e0 + B; ++i) loss += h_loss_rows_[i];
    return loss / B;
  }
  for (int i = e0 * T_; i < (e0 + B) * T_; ++i) loss += double(train_host_.weights[i]) * h_loss_rows_[i];
  return loss;
}

// Several micro-batches (TrainConfig::grad_accum): each one's forward and backward, its
// gradient added into accum_ with weight 1/K, then the update from the mean. Run eagerly, not
// as a graph: the per-launch cost is small beside K forward-backward passes.
StepResult CudaBackend::accumulated_step(const std::vector<Batch>& micro, double lr, long step) {
  if (R_ != 1) throw std::logic_error("a batch of runs takes no gradient accumulation");
  const Span sp{cfg_.train.batch, 0, 1};
  const float w = 1.f / float(micro.size());
  StepResult r;
  double loss = 0;
  if (!accum_) accum_ = mem_.device<float>(total_);
  CUDA_CHECK(cudaMemsetAsync(accum_, 0, total_ * sizeof(float), stream_));
  for (const Batch& b : micro) {
    stage_batch(train_host_, b, every_token_, 0);  // waits for the previous micro-batch, whose results are read below
    upload_batch(train_host_, sp, every_token_);
    forward(sp, true, every_token_);
    backward(sp, every_token_);
    cuda::axpy(w, grads_, accum_, total_, stream_);
    const int rows = train_rows(b.B);
    CUDA_CHECK(cudaMemcpyAsync(h_loss_rows_, loss_rows_, rows * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaMemcpyAsync(h_correct_, correct_, rows * sizeof(int32_t), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    loss += read_step_loss(0, b.B, r.correct);
  }
  h_hyper_[0] = cuda::AdamWHyper{static_cast<float>(lr), static_cast<float>(step), 0.f, 1.f};
  CUDA_CHECK(cudaMemcpyAsync(hyper_, h_hyper_, sizeof(cuda::AdamWHyper), cudaMemcpyHostToDevice, stream_));
  optimizer_update(accum_);  // the mean gradient, where it was summed
  CUDA_CHECK(cudaMemcpyAsync(h_hyper_, hyper_, sizeof(cuda::AdamWHyper), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  r.loss = loss / double(micro.size());
  r.grad_norm = h_hyper_[0].grad_norm;
  return r;
}

// Copies b into the pinned staging buffers from example e0 on (a slot's rows in a training
// step; 0 for a single pass). every_token: the head's targets and weights for every position
// (every_token_targets).
void CudaBackend::stage_batch(const HostStaging& h, const Batch& b, bool every_token, int e0) {
  if (b.T != T_) throw UserError("CUDA backend: batches must be padded to " + std::to_string(T_) + " tokens");
  CUDA_CHECK(cudaStreamSynchronize(stream_));  // the previous step may still read the pinned buffers
  std::memcpy(h.tokens + size_t(e0) * T_, b.tokens.data(), b.tokens.size() * sizeof(int32_t));
  std::memcpy(h.ans + e0, b.answer_pos.data(), b.B * sizeof(int32_t));
  if (b.key_start.size() != (masked_pads_ ? size_t(b.B) : 0))
    throw UserError("CUDA backend: the batch's pad masking does not match the run's --pad-attention");
  if (masked_pads_) std::memcpy(h.key_start + e0, b.key_start.data(), b.B * sizeof(int32_t));
  if (every_token) {
    const TokenTargets tt = every_token_targets(b);
    std::memcpy(h.targets + size_t(e0) * T_, tt.targets.data(), tt.targets.size() * sizeof(int32_t));
    for (size_t i = 0; i < tt.weights.size(); ++i) h.weights[size_t(e0) * T_ + i] = static_cast<float>(tt.weights[i]);
  } else {
    std::memcpy(h.targets + e0, b.targets.data(), b.B * sizeof(int32_t));
  }
}

void CudaBackend::upload_batch(const HostStaging& h, const Span& sp, bool every_token) {
  const int E = sp.examples(), rows = every_token ? E * T_ : E;
  CUDA_CHECK(cudaMemcpyAsync(tokens_, h.tokens, size_t(E) * T_ * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
  CUDA_CHECK(cudaMemcpyAsync(ans_, h.ans, E * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
  if (masked_pads_)
    CUDA_CHECK(cudaMemcpyAsync(key_start_, h.key_start, E * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
  CUDA_CHECK(cudaMemcpyAsync(targets_, h.targets, rows * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
  if (every_token) CUDA_CHECK(cudaMemcpyAsync(weights_, h.weights, rows * sizeof(float), cudaMemcpyHostToDevice, stream_));
}

// Captures the step of every slot as graph_ / graph_exec_. False, with no graph and the stream
// as it was (nothing of the step ran), when the capture was invalidated: by another thread's
// device-wide call that the CaptureLock cannot hold off (kernels/cuda/capture_lock.hpp), or on
// purpose by a test (invalidate_captures_). A capture that failed for any other reason throws.
bool CudaBackend::capture_step(const Span& sp) {
  cuda::CaptureLock capture;
  CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  if (invalidate_captures_ > 0) {
    --invalidate_captures_;
    (void)cudaStreamQuery(stream_);  // querying a stream under capture is invalid: it invalidates the capture
  }
  std::exception_ptr failed;  // an error inside the capture is read only once the capture has ended
  try {
    enqueue_step(sp);
  } catch (...) {
    failed = std::current_exception();
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
  if (ended == cudaErrorStreamCaptureInvalidated) {
    // An error thrown inside an invalidated capture may be the invalidation's own; dropped here,
    // a real one is thrown again by the eager step that follows, which enqueues the same calls.
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();  // not sticky: clear it, as the eager step that follows starts clean
    ++invalidated_captures_;
    return false;
  }
  if (failed) {
    if (graph) cudaGraphDestroy(graph);
    std::rethrow_exception(failed);
  }
  CUDA_CHECK(ended);
  graph_ = graph;
  CUDA_CHECK(cudaGraphInstantiate(&graph_exec_, graph_, 0));
  graph_scratch_generation_ = gemm_.scratch_generation();
  return true;
}

void CudaBackend::enqueue_step(const Span& sp) {
  upload_batch(train_host_, sp, every_token_);
  // lr, step and active per run (grad_norm is written by the norm kernel before AdamW reads it)
  CUDA_CHECK(cudaMemcpyAsync(hyper_, h_hyper_, R_ * sizeof(cuda::AdamWHyper), cudaMemcpyHostToDevice, stream_));
  forward(sp, true, every_token_);
  backward(sp, every_token_);
  optimizer_update();
  const int rows = train_rows(sp.examples());
  CUDA_CHECK(cudaMemcpyAsync(h_loss_rows_, loss_rows_, rows * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaMemcpyAsync(h_correct_, correct_, rows * sizeof(int32_t), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaMemcpyAsync(h_hyper_, hyper_, R_ * sizeof(cuda::AdamWHyper), cudaMemcpyDeviceToHost, stream_));
}

// Each run's global norm of its gradient g (total_ floats at P_ apart; grads_ unless the step
// accumulated micro-batches), clipped AdamW over every run's parameters (an idle slot's
// untouched), and (bf16 matmuls) the bf16 copy of the parameters the next step's products read:
// written by AdamW itself as it updates them, unless something changes them after it.
void CudaBackend::optimizer_update(const float* g) {
  if (!g) g = grads_;
  cuda::l2_norm(g, total_, norm_partial_, &hyper_->grad_norm, stream_, R_, P_, sizeof(cuda::AdamWHyper) / sizeof(float));
  const auto& o = cfg_.optim;
  const bool project = cfg_.pe.delta_bound == DeltaBound::kProject;  // PEConfig::delta_bound: delta back onto [-2 pi, 0]
  // Each run's padding past total_ is not in AdamW's range, but it stays 0 in params_ and in the
  // copy (refresh_bf16_shadow wrote it at the start), so the copy mirrors all of params_.
  cuda::adamw_update(params_, g, m_, v_, group_, total_, hyper_, groups_, float(o.beta1), float(o.beta2),
                     float(o.eps), float(o.grad_clip), stream_, R_, P_, project ? nullptr : gemm_.bf16_shadow_of(params_));
  if (project) {
    for (int r = 0; r < R_; ++r)
      for (const auto& lp : host_model_.layout().layers)  // a shared delta is projected once per layer: idempotent
        cuda::clamp_range(params_ + r * P_ + lp.pe, size_t(H_) * D_, cpu::pope_delta_min_float(),
                          float(cpu::kPopeDeltaMax), stream_);
    gemm_.refresh_bf16_shadow(stream_);
  }
}

}  // namespace popebench
