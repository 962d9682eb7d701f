// The CUDA backend: the same model as model/transformer.cpp, op for op, on the GPU.
// fp32 master weights, AdamW state and activations; matrix products through cuBLASLt (TF32,
// exact fp32, or bf16 operands with fp32 accumulation: TrainConfig::gpu_matmul); fused attention
// with the PE inside (kernels/cuda/attention.cu). A training step (batch upload, forward,
// backward, norm, AdamW, result download) is captured once as a CUDA graph and replayed; shapes
// are static: every batch is padded to static_len().
//
// One backend holds R runs of one config (R = 1 for a run trained alone; R > 1 is a batch of runs,
// backend/run_batch.hpp, each run its own seed): R copies of the parameters, gradients and moments
// at a stride of P floats in one buffer, the runs' examples one run after another in every
// activation, every product a strided batch of R (kernels.hpp's RunStride, gemm.hpp's GemmBatch),
// one AdamW launch over the R copies with each run's own learning rate, step and gradient norm.
// A training step computes every run; an evaluation one run (a Span says which).
//
// The class is declared here and defined by concern, one file each:
//   buffers.cu  the buffer plan (every allocation, sized once from the config) and run state in and out
//   step.cu     a training step of every slot: staging, the graph-capture state machine, AdamW,
//               gradient accumulation, evaluation
//   passes.cu   the forward and backward passes and the blocks' matrix products
//   hooks.cu    the benchmark harness and the tests' loss-and-gradient, behind functions that
//               build their own backend (backend/backend.hpp)
//   factory.cu  what the GPU can run, and the makers backend/make_backend.cpp and backend/run_batch.cpp call
// Only these files include this header.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/gemm.hpp"
#include "kernels/cuda/kernels.hpp"
#include "backend/backend.hpp"
#include "backend/run_batch.hpp"
#include "model/model_description.hpp"

namespace popebench {

class CudaBackend final : public Backend, public BatchEngine {
 public:
  // Allocates every buffer of `runs` runs of cfg (a batch too large for the GPU fails here) and
  // initialises each slot with cfg's seed; init_run gives a slot another.
  explicit CudaBackend(const RunConfig& cfg, int runs = 1);
  ~CudaBackend() override;

  std::string device_name() const override { return name_; }
  int device_index() const override { return dev_; }
  const ParamLayout& layout() const override { return host_model_.layout(); }
  int static_len() const override { return T_; }

  // The Backend of a run alone: slot 0.
  void get_state(std::vector<float>& p, std::vector<float>& m, std::vector<float>& v) override { get_state(0, p, m, v); }
  void set_state(const std::vector<float>& p, const std::vector<float>& m, const std::vector<float>& v) override {
    set_state(0, p, m, v);
  }
  using Backend::train_step;
  StepResult train_step(const std::vector<Batch>& micro, double lr, long step) override;
  double eval_batch(const Batch& b, std::vector<int32_t>& correct) override { return eval_batch(0, b, correct); }
  TokenLoss eval_every_token(const Batch& b, std::vector<int32_t>& correct) override {
    return eval_every_token(0, b, correct);
  }

  // The BatchEngine of a batch of runs (backend/run_batch.hpp): slot r.
  void init_run(int r, const RunConfig& cfg) override;
  void get_state(int r, std::vector<float>& p, std::vector<float>& m, std::vector<float>& v) override;
  void set_state(int r, const std::vector<float>& p, const std::vector<float>& m, const std::vector<float>& v) override;
  void stage(int r, const Batch* b, double lr, long step) override;
  void step_all() override;
  StepResult result(int r) const override { return results_.at(r); }
  double eval_batch(int r, const Batch& b, std::vector<int32_t>& correct) override;
  TokenLoss eval_every_token(int r, const Batch& b, std::vector<int32_t>& correct) override;
  nlohmann::json describe() const override;

  // hooks.cu: the benchmark harness (every slot trains on b) and, for tests, one batch's loss
  // and gradient in slot 0 with no update.
  nlohmann::json benchmark(const Batch& b, int warmup, int iters);
  double loss_and_grad(const Batch& b, std::vector<float>& g);
  // For the comparison with runs on streams (cuda_benchmark_streams): steps every slot on b until
  // the step's graph exists, then replays it on the backend's own stream, unsynchronised.
  void build_step_graph(const Batch& b, int steps);
  void launch_step_graph();
  cudaStream_t stream() const { return stream_; }
  // For tests: the next n captures of the step's graph are invalidated, as another thread's
  // device-wide call invalidates one; how many captures were invalidated, whatever the cause;
  // whether the step's graph exists.
  void invalidate_next_captures(int n) { invalidate_captures_ = n; }
  int invalidated_captures() const { return invalidated_captures_; }
  bool has_step_graph() const { return graph_exec_ != nullptr; }
  // For the benchmark's comparison: the batched products take cuBLASLt's heuristic choice for
  // the batch instead of a run alone's algorithm (Gemm::pin_batched_to_single); before any step.
  void use_batch_heuristic_products() { gemm_.pin_batched_to_single(false); }

 private:
  // Which runs a pass computes: `runs` slots from slot `first`, B examples each, their rows one
  // run after another from row 0 of every activation. A training step is every slot; an
  // evaluation, the tests' loss_and_grad and an accumulated micro-batch one.
  struct Span {
    int B, first, runs;
    int examples() const { return B * runs; }
  };
  Span all_runs() const { return Span{cfg_.train.batch, 0, R_}; }
  void check_slot(int r) const {
    if (r < 0 || r >= R_) throw std::logic_error("CUDA backend: no slot " + std::to_string(r));
  }
  // The span's first run's parameters and gradients; the others follow at P_.
  float* params(const Span& sp) const { return params_ + sp.first * P_; }
  float* grads(const Span& sp) const { return grads_ + sp.first * P_; }
  // Each row's run, for the kernels that read a parameter: rows of T tokens, or of one answer.
  cuda::RunStride token_runs(const Span& sp) const { return {sp.B * T_, P_}; }
  cuda::RunStride example_runs(const Span& sp) const { return {sp.B, P_}; }
  int train_rows(int B) const { return every_token_ ? B * T_ : B; }  // rows the training head computes

  struct Layer {
    float *ln1, *rstd1, *qkv, *att, *lse, *mid, *ln2, *rstd2, *fc, *gelu;  // ln1, ln2, gelu: nullptr with mirrors
    void *ln1_b, *att_b, *ln2_b, *gelu_b;  // bf16 mirrors of ln1, att, ln2, gelu (bf16 products), or nullptr
  };

  // Pinned host copies of a batch's inputs, uploaded by upload_batch: tokens (B, T), answer
  // positions (B), targets (B) or (B, T) with weights (B, T) for the loss on every token, each
  // row's first real position (B, masked pads only).
  struct HostStaging {
    int32_t *tokens = nullptr, *ans = nullptr, *targets = nullptr, *key_start = nullptr;
    float* weights = nullptr;
  };

  // step.cu
  double read_step_loss(int r, int B, int& correct) const;
  StepResult accumulated_step(const std::vector<Batch>& micro, double lr, long step);
  void stage_batch(const HostStaging& h, const Batch& b, bool every_token, int e0);
  void upload_batch(const HostStaging& h, const Span& sp, bool every_token);
  void enqueue_step(const Span& sp);
  bool capture_step(const Span& sp);
  void optimizer_update(const float* g = nullptr);

  // passes.cu. A block's four matrix products: the step calls them between its other kernels,
  // the benchmark alone.
  enum class Product { kQkv, kOut, kFc, kProj };
  // Layer l's attention over sp; angles_filled: layer l's angle table already holds this call's
  // angles (the backward after its forward), so the call reads it without filling it.
  cuda::AttentionArgs attn_args(const Span& sp, int l, bool angles_filled = false) const;
  void layer_product_fwd(Product p, int l, const Span& sp);
  void layer_product_bwd(Product p, int l, const Span& sp);
  void forward(const Span& sp, bool training, bool every_token);
  void backward(const Span& sp, bool every_token);

  RunConfig cfg_;
  cuda::DeviceMemory mem_;  // owns every buffer below; declared first, so it is freed last
  ModelDescription host_model_;  // the layout and initial weights (the CPU model's, without its ops)
  cuda::Gemm gemm_;
  cuda::PEKind pe_;
  std::string name_;
  int dev_ = 0;  // CUDA device index
  const int R_;  // runs (slots): 1 for a run alone
  int C_, H_, D_, F_, V_, L_, T_;
  int maxB_;  // examples the activations hold: max(R x training batch, evaluation batch)
  float attn_scale_;  // every score's scale (ModelDescription::score_scale)
  float emb_scale_;   // token embedding multiplier (ModelConfig::init)
  float* accum_ = nullptr;  // (total,) mean gradient over micro-batches, allocated at the first accumulated step
  bool every_token_ = false;  // TrainConfig::loss "all"
  int head_rows_ = 0;         // rows the head buffers hold (see the constructor)
  size_t total_;  // one run's parameters (ParamLayout::total)
  size_t P_;      // floats between two runs' copies (run_stride)
  std::vector<StepResult> results_;     // (R) each slot's last step
  cuda::OwnedStream stream_;  // after mem_: synchronised before the buffers are freed
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  int eager_steps_ = 0;
  int invalidate_captures_ = 0;   // captures still to invalidate on purpose (tests)
  int invalidated_captures_ = 0;  // captures invalidated so far, each step then run eagerly
  uint64_t graph_scratch_generation_ = 0;  // gemm_.scratch_generation() when graph_exec_ was captured
  float *params_, *grads_, *m_, *v_;  // (R, P) each: every run's parameters and their twins
  uint8_t* group_;                    // (total,) AdamW group of each parameter (see the constructor)
  cuda::AdamWGroups groups_;          // each group's learning-rate multiplier and weight decay
  double* theta_;                     // PE frequencies
  int n_rot_;                         // channels RoPE rotates (D, or D/2 for rope-half)
  float* slopes_ = nullptr;           // (H) ALiBi slopes, or nullptr
  float* sin_table_ = nullptr;        // (max_len, C) sinusoidal positions, or nullptr
  // (L or 1, angle_floats_) the attention's angle tables, one a layer where they hold parameters
  // (cuda::attention_angles_hold_params), else one (attn_args); or nullptr
  float* angles_ = nullptr;
  size_t angle_floats_ = 0;           // one table, for every run of the batch
  // The flash kernels' bf16 copies (cuda::AttentionArgs::flash_scratch), sized for the largest
  // call and shared by every layer (a call's copies live only during the call); or nullptr
  void* flash_scratch_ = nullptr;
  size_t flash_scratch_bytes_ = 0;
  std::vector<float*> resid_;         // L+1 x (B, T, C)
  std::vector<Layer> layers_;
  float *hf_in_, *hf_, *rstdf_, *logits_, *dlogits_, *loss_rows_, *weights_;
  int32_t* correct_;
  float *dx_, *dln_, *datt_, *dqkv_, *dgelu_, *dgpart_, *ddelta_part_, *ddelta_layer_, *dhf_, *dhf_in_, *norm_partial_;
  void *dx_b_, *dgelu_b_;  // bf16 mirrors of dx_ and dgelu_ (bf16 products), or nullptr
  float* dtemp_part_ = nullptr;  // (B, T, H) log-temperature gradient terms (ModelConfig::attn_temp), or nullptr
  bool masked_pads_ = false;     // InputConfig::pad_attention "masked"
  bool tf32_attention_ = false;   // TrainConfig::gpu_attention "tf32"
  bool flash_attention_ = false;  // TrainConfig::gpu_attention "bf16"
  int32_t* key_start_ = nullptr;    // (B) each row's first real position (masked pads), or nullptr
  int32_t *tokens_, *ans_, *targets_;
  cuda::AdamWHyper* hyper_;  // (R)
  HostStaging train_host_;  // training steps (a slot's rows from r B; read by the captured graph)
  HostStaging eval_host_;   // eval_batch (no weights: evaluation scores the answer only)
  int32_t* h_correct_;
  float* h_loss_rows_;
  cuda::AdamWHyper* h_hyper_;
};

}  // namespace popebench
