// The CUDA backend: the same model as models/transformer.cpp, op for op, on the GPU.
// fp32 master weights, AdamW state and activations; matrix products through cuBLASLt (TF32,
// exact fp32, or bf16 operands with fp32 accumulation: TrainConfig::gpu_matmul); fused attention with the PE inside (kernels/cuda/attention.cu).
// A training step (batch upload, forward, backward, norm, AdamW, result download) is captured
// once as a CUDA graph and replayed; shapes are static: every batch is padded to static_len().
//
// One backend holds R runs of one config (R = 1 for a run trained alone; R > 1 is a batch of runs,
// models/run_batch.hpp, each run its own seed): R copies of the parameters, gradients and moments
// at a stride of P floats in one buffer, the runs' examples one run after another in every
// activation, every product a strided batch of R (kernels.hpp's RunStride, gemm.hpp's GemmBatch),
// one AdamW launch over the R copies with each run's own learning rate, step and gradient norm.
// A training step computes every run; an evaluation one run (a Span says which).
#include <cmath>
#include <cstring>
#include <vector>

#include <algorithm>
#include <functional>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/event_timer.hpp"
#include "kernels/cuda/gemm.hpp"
#include "kernels/cuda/kernels.hpp"
#include "models/backend.hpp"
#include "models/run_batch.hpp"
#include "models/pe_absolute.hpp"
#include "models/pe_alibi.hpp"
#include "models/pe_pope.hpp"
#include "models/pe_rope.hpp"
#include "kernels/cpu/pope.hpp"
#include "models/transformer.hpp"

namespace popebench {

namespace {

// Floats between two runs' parameter copies: the layout's total rounded up to 64 floats, so that
// every run's views keep the 256-byte alignment the parameter layout gives them (cuBLASLt picks
// its algorithm per shape assuming aligned operands).
size_t run_stride(size_t total) { return (total + 63) / 64 * 64; }

class CudaBackend final : public Backend, public BatchEngine {
 public:
  explicit CudaBackend(const RunConfig& cfg, int runs = 1)
      : cfg_(cfg), host_model_(cfg.model, cfg.pe), gemm_(cuda::parse_matmul_mode(cfg.train.gpu_matmul)), R_(runs) {
    const auto& m = cfg.model;
    C_ = m.d_model;
    H_ = m.n_head;
    D_ = m.head_dim();
    F_ = m.mlp_ratio * C_;
    V_ = m.vocab_size;
    L_ = m.n_layer;
    T_ = cfg.input_len();
    attn_scale_ = float(attention_scale(m, host_model_.pe().qk_dim(D_)));
    emb_scale_ = m.init == "scaled-embedding" ? float(std::sqrt(double(C_))) : 1.f;  // as the CPU model's
    // Examples the activations hold: every run's training batch, or one evaluation batch.
    maxB_ = std::max(R_ * cfg.train.batch, cfg.train.eval_batch);
    every_token_ = cfg.train.loss == "all";
    masked_pads_ = cfg.input.pad_attention == "masked";
    if (R_ > 1 && cfg.train.grad_accum != 1) throw std::logic_error("a batch of runs takes no gradient accumulation");
    // The head's rows: the answer positions of the largest batch, or every position of the
    // training batches with the loss on every next token.
    head_rows_ = std::max(maxB_, every_token_ ? R_ * cfg.train.batch * T_ : 0);
    // Every PE maps onto the one attention kernel: rope-half is rope on n_rot = D/2 channels,
    // ALiBi is NoPE plus per-head slopes, the absolute embeddings are NoPE plus a table added in
    // the embedding kernel.
    const std::string& kind = cfg.pe.kind;
    pe_ = kind == "pope" ? cuda::PEKind::kPope
          : (kind == "rope" || kind == "rope-half") ? cuda::PEKind::kRope
                                                    : cuda::PEKind::kNone;
    n_rot_ = kind == "rope-half" ? D_ / 2 : D_;
    const auto& lay = host_model_.layout();
    total_ = lay.total;
    P_ = run_stride(total_);
    const size_t all = size_t(R_) * P_;  // every run's copy of the parameters
    CUDA_CHECK(cudaGetDevice(&dev_));  // this thread's device (`--gpus` sets it per run)
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev_));
    name_ = prop.name;

    params_ = mem_.device<float>(all);
    grads_ = mem_.device<float>(all);
    m_ = mem_.device<float>(all);
    v_ = mem_.device<float>(all);
    // Each run's padding past total_ stays 0 (no kernel writes it; the norm and AdamW skip it).
    for (float* buf : {params_, grads_, m_, v_}) CUDA_CHECK(cudaMemset(buf, 0, all * sizeof(float)));
    gemm_.set_bf16_shadow(params_, all);
    for (int r = 0; r < R_; ++r) init_run(r, cfg);  // the CPU's init: both backends start equal
    // AdamW groups: bit 0 weight decay, bit 1 the PE's parameters (their learning-rate multiplier).
    const auto& o = cfg.optim;
    std::vector<uint8_t> group(total_, 0);
    for (const auto& view : lay.views) {
      const uint8_t k = (view.decays(o) ? 1 : 0) | (view.kind == ParamKind::kPeParam ? 2 : 0);
      std::fill(group.begin() + view.offset, group.begin() + view.offset + view.size(), k);
    }
    for (int k = 0; k < cuda::AdamWGroups::kCount; ++k) {
      groups_.lr_mult[k] = float(k & 2 ? o.pe_lr_mult : 1.0);
      groups_.weight_decay[k] = float(k & 1 ? o.weight_decay : 0.0);
    }
    group_ = mem_.device<uint8_t>(total_);
    CUDA_CHECK(cudaMemcpy(group_, group.data(), total_, cudaMemcpyHostToDevice));

    std::vector<double> th = pe_ == cuda::PEKind::kPope ? pope_thetas(D_, cfg.pe) : rope_thetas(n_rot_, cfg.pe);
    theta_ = mem_.device<double>(th.size());
    CUDA_CHECK(cudaMemcpy(theta_, th.data(), th.size() * sizeof(double), cudaMemcpyHostToDevice));
    if (kind == "alibi" || kind == "alibi-half") {
      std::vector<double> sl = alibi_slopes(H_, kind == "alibi-half");
      std::vector<float> slf(sl.begin(), sl.end());
      slopes_ = mem_.device<float>(H_);
      CUDA_CHECK(cudaMemcpy(slopes_, slf.data(), H_ * sizeof(float), cudaMemcpyHostToDevice));
    }
    if (kind == "sinusoidal") {  // fixed table (max_len, C), rounded to float as the CPU's float path does
      std::vector<double> tab = sinusoidal_table(m.max_len, C_);
      std::vector<float> tf(tab.begin(), tab.end());
      sin_table_ = mem_.device<float>(tf.size());
      CUDA_CHECK(cudaMemcpy(sin_table_, tf.data(), tf.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
    // Gradient entries no kernel writes (learned positions beyond the padded length) stay 0:
    // zeroed with the buffer above.

    const size_t N = size_t(maxB_) * T_, NC = N * C_;
    // The largest operand a product converts to bf16 is an (N, F) or (N, 3C) activation or
    // gradient at the largest batch (training or evaluation): reserve it now, before any graph is
    // captured, so that an evaluation after the capture (first thing after a resume) reuses it.
    gemm_.reserve_scratch(N * std::max<size_t>(F_, 3 * size_t(C_)), stream_);
    for (int l = 0; l <= L_; ++l) resid_.push_back(mem_.device<float>(NC));  // (B, T, C) input of block l
    // bf16 products: the activations and gradients they read get bf16 mirrors, written by their
    // producers (or converted once, for attention's output) and kept for the backward, instead of
    // a conversion before every product (23 (N, C)-sized conversions per layer and step before).
    const bool mirrors = gemm_.mode() == cuda::MatmulMode::kBf16;
    auto bf16_alloc = [&](size_t n) -> void* { return mirrors ? static_cast<void*>(mem_.device<uint16_t>(n)) : nullptr; };
    // ln1, ln2 and gelu are read only by products, so with mirrors their fp32 copies are not kept.
    auto fp32_unless_mirrored = [&](size_t n) { return mirrors ? nullptr : mem_.device<float>(n); };
    for (int l = 0; l < L_; ++l) {
      Layer a;
      a.ln1_b = bf16_alloc(NC);                            // (B, T, C) bf16 mirrors, or nullptr
      a.att_b = bf16_alloc(NC);
      a.ln2_b = bf16_alloc(NC);
      a.gelu_b = bf16_alloc(N * F_);                       // (B, T, F)
      a.ln1 = fp32_unless_mirrored(NC);
      a.rstd1 = mem_.device<float>(N);
      a.qkv = mem_.device<float>(3 * NC);                       // (B, T, 3, H, D)
      a.att = mem_.device<float>(NC);                           // (B, T, H, D)
      a.lse = mem_.device<float>(size_t(maxB_) * H_ * T_);      // (B, H, T)
      a.mid = mem_.device<float>(NC);
      a.ln2 = fp32_unless_mirrored(NC);
      a.rstd2 = mem_.device<float>(N);
      a.fc = mem_.device<float>(N * F_);                        // (B, T, F)
      a.gelu = fp32_unless_mirrored(N * F_);
      layers_.push_back(a);
    }
    const size_t HR = head_rows_;
    hf_in_ = mem_.device<float>(size_t(maxB_) * C_);  // (B, C) gathered answer rows
    hf_ = mem_.device<float>(HR * C_);                // (rows, C)
    rstdf_ = mem_.device<float>(HR);
    logits_ = mem_.device<float>(HR * V_);
    dlogits_ = mem_.device<float>(HR * V_);
    loss_rows_ = mem_.device<float>(HR);
    correct_ = mem_.device<int32_t>(HR);
    weights_ = mem_.device<float>(HR);  // every_token_targets' weights, every-token loss only
    dx_ = mem_.device<float>(NC);
    dln_ = mem_.device<float>(NC);
    datt_ = mem_.device<float>(NC);
    dqkv_ = mem_.device<float>(3 * NC);
    dgelu_ = mem_.device<float>(N * F_);
    dx_b_ = bf16_alloc(NC);        // (B, T, C) bf16 mirror of dx_, or nullptr
    dgelu_b_ = bf16_alloc(N * F_); // (B, T, F) bf16 mirror of dgelu_, or nullptr
    dgpart_ = mem_.device<float>(NC);
    ddelta_part_ = mem_.device<float>(N * C_);  // (B, T, H, D)
    ddelta_layer_ = mem_.device<float>(size_t(R_) * C_);  // (R, H, D) one layer's delta gradient per run (shared delta)
    if (host_model_.layout().has_attn_temp) dtemp_part_ = mem_.device<float>(N * H_);  // (B, T, H)
    if (masked_pads_) {  // InputConfig::pad_attention: each row's first real position
      key_start_ = mem_.device<int32_t>(maxB_);
      train_host_.key_start = mem_.pinned<int32_t>(maxB_);
      eval_host_.key_start = mem_.pinned<int32_t>(maxB_);
    }
    dhf_ = mem_.device<float>(HR * C_);
    dhf_in_ = mem_.device<float>(size_t(maxB_) * C_);
    norm_partial_ = mem_.device<float>(size_t(R_) * cuda::kL2NormPartials);
    tokens_ = mem_.device<int32_t>(N);
    ans_ = mem_.device<int32_t>(maxB_);
    targets_ = mem_.device<int32_t>(HR);
    hyper_ = mem_.device<cuda::AdamWHyper>(R_);  // (R) each run's learning rate, step, norm
    train_host_.tokens = mem_.pinned<int32_t>(N);
    train_host_.ans = mem_.pinned<int32_t>(maxB_);
    train_host_.targets = mem_.pinned<int32_t>(HR);
    train_host_.weights = mem_.pinned<float>(HR);
    eval_host_.tokens = mem_.pinned<int32_t>(N);
    eval_host_.ans = mem_.pinned<int32_t>(maxB_);
    eval_host_.targets = mem_.pinned<int32_t>(maxB_);  // evaluation scores the answer only
    h_loss_rows_ = mem_.pinned<float>(HR);
    h_correct_ = mem_.pinned<int32_t>(HR);
    h_hyper_ = mem_.pinned<cuda::AdamWHyper>(R_);
    for (int r = 0; r < R_; ++r) h_hyper_[r] = cuda::AdamWHyper{0.f, 1.f, 0.f, 0.f};
    results_.resize(R_);
  }

  ~CudaBackend() override {  // then stream_ ends its work, then mem_ frees the buffers
    if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }

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
  StepResult train_step(const std::vector<Batch>& micro, double lr, long step) override {
    if (micro.empty()) throw UserError("a training step needs at least one micro-batch");
    for (const Batch& b : micro)
      if (b.B != cfg_.train.batch) throw UserError("CUDA backend: training batches must have the configured size");
    if (micro.size() > 1) return accumulated_step(micro, lr, step);
    stage(0, &micro[0], lr, step);
    step_all();
    return result(0);
  }
  double eval_batch(const Batch& b, std::vector<int32_t>& correct) override { return eval_batch(0, b, correct); }

  // The BatchEngine of a batch of runs (models/run_batch.hpp): slot r.
  void init_run(int r, const RunConfig& cfg) override {
    check_slot(r);
    std::vector<float> p(total_);
    host_model_.init_params(p.data(), cfg.train.seed);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaMemcpy(params_ + r * P_, p.data(), total_ * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(m_ + r * P_, 0, total_ * sizeof(float)));
    CUDA_CHECK(cudaMemset(v_ + r * P_, 0, total_ * sizeof(float)));
    gemm_.refresh_bf16_shadow(stream_);
  }
  void get_state(int r, std::vector<float>& p, std::vector<float>& m, std::vector<float>& v) override {
    check_slot(r);
    p.resize(total_);
    m.resize(total_);
    v.resize(total_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaMemcpy(p.data(), params_ + r * P_, total_ * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(m.data(), m_ + r * P_, total_ * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(v.data(), v_ + r * P_, total_ * sizeof(float), cudaMemcpyDeviceToHost));
  }
  void set_state(int r, const std::vector<float>& p, const std::vector<float>& m, const std::vector<float>& v) override {
    check_slot(r);
    if (p.size() != total_ || m.size() != total_ || v.size() != total_) throw UserError("state size does not match the model");
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaMemcpy(params_ + r * P_, p.data(), total_ * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(m_ + r * P_, m.data(), total_ * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(v_ + r * P_, v.data(), total_ * sizeof(float), cudaMemcpyHostToDevice));
    gemm_.refresh_bf16_shadow(stream_);
  }
  // Slot r's batch goes to its rows of the staging buffers ([r B, (r + 1) B)); an idle slot keeps
  // whatever it held (its rows are computed and never read) and takes no update.
  void stage(int r, const Batch* b, double lr, long step) override {
    check_slot(r);
    if (b) {
      if (b->B != cfg_.train.batch) throw UserError("CUDA backend: training batches must have the configured size");
      stage_batch(train_host_, *b, every_token_, r * cfg_.train.batch);
    }
    h_hyper_[r] = cuda::AdamWHyper{static_cast<float>(lr), static_cast<float>(b ? step : 1), 0.f, b ? 1.f : 0.f};
  }
  StepResult result(int r) const override { return results_.at(r); }
  double eval_batch(int r, const Batch& b, std::vector<int32_t>& correct) override {
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

  // One training step of every slot with what each was staged: the graph, captured on the second
  // step (the first runs eagerly, so that cuBLASLt picks its algorithms and the kernels their
  // attributes outside capture).
  void step_all() override {
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
      // outside capture; later steps replay the graph captured on the second step.
      if (eager_steps_++ > 0) {
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        enqueue_step(sp);
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
        CUDA_CHECK(cudaGraphInstantiate(&graph_exec_, graph_, 0));
        graph_scratch_generation_ = gemm_.scratch_generation();
        CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream_));
      } else {
        enqueue_step(sp);
      }
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
  double read_step_loss(int r, int B, int& correct) const {
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
  int train_rows(int B) const { return every_token_ ? B * T_ : B; }  // rows the training head computes

  // Several micro-batches (TrainConfig::grad_accum): each one's forward and backward, its
  // gradient added into accum_ with weight 1/K, then the update from the mean. Run eagerly, not
  // as a graph: the per-launch cost is small beside K forward-backward passes.
  StepResult accumulated_step(const std::vector<Batch>& micro, double lr, long step) {
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

  // For tests: the gradient of one batch's loss (no update), copied to the host (slot 0).
  double loss_and_grad(const Batch& b, std::vector<float>& g) {
    const Span sp{b.B, 0, 1};
    stage_batch(train_host_, b, every_token_, 0);
    upload_batch(train_host_, sp, every_token_);
    forward(sp, true, every_token_);
    backward(sp, every_token_);
    g.resize(total_);
    const int rows = train_rows(b.B);
    CUDA_CHECK(cudaMemcpyAsync(h_loss_rows_, loss_rows_, rows * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaMemcpyAsync(h_correct_, correct_, rows * sizeof(int32_t), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaMemcpy(g.data(), grads_, total_ * sizeof(float), cudaMemcpyDeviceToHost));
    int correct = 0;
    return read_step_loss(0, b.B, correct);
  }

  // Benchmark (popebench bench): median milliseconds, CUDA events around each repetition, after
  // warm-up. The full step is the captured graph; the parts run eagerly on the same buffers.
  // Every slot trains on b (R = 1: the run alone; R > 1: the step of a batch of R runs).
  nlohmann::json benchmark(const Batch& b, int warmup, int iters) {
    for (int i = 0; i < std::max(warmup, 3); ++i) {  // builds the graph
      for (int r = 0; r < R_; ++r) stage(r, &b, 1e-4, i + 1);
      step_all();
    }
    const Span sp = all_runs();
    auto time = [&](const std::function<void()>& f) { return cuda::median_event_ms(stream_, warmup, iters, f); };
    nlohmann::json r;
    r["runs"] = R_;
    r["step_graph_ms"] = time([&] { CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream_)); });
    r["forward_ms"] = time([&] { forward(sp, true, every_token_); });
    r["forward_backward_ms"] = time([&] { forward(sp, true, every_token_); backward(sp, every_token_); });
    r["optimizer_ms"] = time([&] { optimizer_update(); });
    r["gemms_ms"] = time([&] {  // every matrix product of one step, alone (values: whatever the
      for (int l = 0; l < L_; ++l)  // buffers hold; only the time counts)
        for (Product p : {Product::kQkv, Product::kOut, Product::kFc, Product::kProj}) layer_product_fwd(p, l, sp);
      for (int l = L_ - 1; l >= 0; --l)
        for (Product p : {Product::kProj, Product::kFc, Product::kOut, Product::kQkv}) layer_product_bwd(p, l, sp);
    });
    r["attention_ms"] = time([&] {  // fused attention forward and backward of every layer
      for (int l = 0; l < L_; ++l) {
        Layer& a = layers_[l];
        cuda::attention_fwd(attn_args(sp, l), a.qkv, a.att, a.lse, stream_);
        cuda::attention_bwd(attn_args(sp, l), a.qkv, a.att, datt_, a.lse, dqkv_,
                            pe_ == cuda::PEKind::kPope ? ddelta_part_ : nullptr, stream_, dtemp_part_);
      }
    });
    forward(sp, true, every_token_);  // leave consistent activations behind
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return r;
  }

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

  // Copies b into the pinned staging buffers from example e0 on (a slot's rows in a training
  // step; 0 for a single pass). every_token: the head's targets and weights for every position
  // (every_token_targets).
  void stage_batch(const HostStaging& h, const Batch& b, bool every_token, int e0) {
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
  void upload_batch(const HostStaging& h, const Span& sp, bool every_token) {
    const int E = sp.examples(), rows = every_token ? E * T_ : E;
    CUDA_CHECK(cudaMemcpyAsync(tokens_, h.tokens, size_t(E) * T_ * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(ans_, h.ans, E * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
    if (masked_pads_)
      CUDA_CHECK(cudaMemcpyAsync(key_start_, h.key_start, E * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(targets_, h.targets, rows * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
    if (every_token) CUDA_CHECK(cudaMemcpyAsync(weights_, h.weights, rows * sizeof(float), cudaMemcpyHostToDevice, stream_));
  }

  void enqueue_step(const Span& sp) {
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
  // untouched), and (bf16 matmuls) the bf16 copy of the parameters the next step's products read.
  void optimizer_update(const float* g = nullptr) {
    if (!g) g = grads_;
    cuda::l2_norm(g, total_, norm_partial_, &hyper_->grad_norm, stream_, R_, P_, sizeof(cuda::AdamWHyper) / sizeof(float));
    const auto& o = cfg_.optim;
    cuda::adamw_update(params_, g, m_, v_, group_, total_, hyper_, groups_, float(o.beta1), float(o.beta2),
                       float(o.eps), float(o.grad_clip), stream_, R_, P_);
    if (cfg_.pe.delta_bound == "project")  // PEConfig::delta_bound: delta back onto [-2 pi, 0]
      for (int r = 0; r < R_; ++r)
        for (const auto& lp : host_model_.layout().layers)  // a shared delta is projected once per layer: idempotent
          cuda::clamp_range(params_ + r * P_ + lp.pe, size_t(H_) * D_, cpu::pope_delta_min_float(),
                            float(cpu::kPopeDeltaMax), stream_);
    gemm_.refresh_bf16_shadow(stream_);
  }

  cuda::AttentionArgs attn_args(const Span& sp, int l) const {
    const auto& lp = host_model_.layout().layers[l];
    float* P = params(sp);
    cuda::AttentionArgs a{sp.examples(), T_, H_, D_, pe_, theta_, pe_ == cuda::PEKind::kPope ? P + lp.pe : nullptr,
                          attn_scale_, n_rot_, slopes_, masked_pads_ ? key_start_ : nullptr,
                          host_model_.layout().has_attn_temp ? P + lp.attn_temp : nullptr};
    a.runs = example_runs(sp);
    return a;
  }

  // A block's four matrix products. Their operands are listed once, here: the step calls them
  // between its other kernels, the benchmark alone. With bf16 products each reads the bf16
  // mirrors its producers wrote (dqkv_ has none: the product converts it).
  enum class Product { kQkv, kOut, kFc, kProj };
  void layer_product_fwd(Product p, int l, const Span& sp) {
    const auto& lp = host_model_.layout().layers[l];
    Layer& a = layers_[l];
    const float* P = params(sp);
    const int n = sp.B * T_, N = sp.examples() * T_, R = sp.runs;  // rows per run, in all, runs
    const cuda::RunStride rs = token_runs(sp);
    // With biases (ModelConfig::bias) each product's output gets its bias added before anything
    // reads it. The CPU model adds the bias to the product before the residual; here the residual
    // is fused into the product, so the two float sums come in the other order (rounding only).
    const bool bias = host_model_.layout().has_bias;
    switch (p) {
      case Product::kQkv:
        gemm_.linear_fwd(a.ln1, P + lp.w_qkv, a.qkv, n, C_, 3 * C_, nullptr, stream_, a.ln1_b, R, P_);
        if (bias) cuda::add_bias(a.qkv, P + lp.b_qkv, N, 3 * C_, stream_, rs);
        break;
      // the residual adds are fused into the output and projection products (beta = 1)
      case Product::kOut:
        gemm_.linear_fwd(a.att, P + lp.w_o, a.mid, n, C_, C_, resid_[l], stream_, a.att_b, R, P_);
        if (bias) cuda::add_bias(a.mid, P + lp.b_o, N, C_, stream_, rs);
        break;
      case Product::kFc:
        gemm_.linear_fwd(a.ln2, P + lp.w_fc, a.fc, n, C_, F_, nullptr, stream_, a.ln2_b, R, P_);
        if (bias) cuda::add_bias(a.fc, P + lp.b_fc, N, F_, stream_, rs);
        break;
      case Product::kProj:
        gemm_.linear_fwd(a.gelu, P + lp.w_proj, resid_[l + 1], n, F_, C_, a.mid, stream_, a.gelu_b, R, P_);
        if (bias) cuda::add_bias(resid_[l + 1], P + lp.b_proj, N, C_, stream_, rs);
        break;
    }
  }
  void layer_product_bwd(Product p, int l, const Span& sp) {
    const auto& lp = host_model_.layout().layers[l];
    Layer& a = layers_[l];
    const float* P = params(sp);
    float* G = grads(sp);
    const int n = sp.B * T_, N = sp.examples() * T_, R = sp.runs;  // rows per run, in all, runs
    const cuda::RunStride rs = token_runs(sp);
    // A bias's gradient is the column sum of the product's output gradient (each bias is used once: written, not added).
    if (host_model_.layout().has_bias) switch (p) {
        case Product::kQkv: cuda::column_sum(dqkv_, G + lp.b_qkv, N, 3 * C_, stream_, rs); break;
        case Product::kOut: cuda::column_sum(dx_, G + lp.b_o, N, C_, stream_, rs); break;
        case Product::kFc: cuda::column_sum(dgelu_, G + lp.b_fc, N, F_, stream_, rs); break;
        case Product::kProj: cuda::column_sum(dx_, G + lp.b_proj, N, C_, stream_, rs); break;
      }
    switch (p) {
      case Product::kQkv:
        gemm_.linear_bwd(dqkv_, a.ln1, P + lp.w_qkv, dln_, G + lp.w_qkv, n, C_, 3 * C_, stream_, nullptr, a.ln1_b, R, P_);
        break;
      case Product::kOut:
        gemm_.linear_bwd(dx_, a.att, P + lp.w_o, datt_, G + lp.w_o, n, C_, C_, stream_, dx_b_, a.att_b, R, P_);
        break;
      case Product::kFc:
        gemm_.linear_bwd(dgelu_, a.ln2, P + lp.w_fc, dln_, G + lp.w_fc, n, C_, F_, stream_, dgelu_b_, a.ln2_b, R, P_);
        break;
      case Product::kProj:
        gemm_.linear_bwd(dx_, a.gelu, P + lp.w_proj, dgelu_, G + lp.w_proj, n, F_, C_, stream_, dx_b_, a.gelu_b, R, P_);
        break;
    }
  }

  // every_token: the head on every position with every_token_targets' weights (the loss on every
  // next token); else on the answer positions.
  void forward(const Span& sp, bool training, bool every_token) {
    const auto& lay = host_model_.layout();
    const int E = sp.examples(), N = E * T_, R = sp.runs;
    const float* P = params(sp);
    const cuda::RunStride tok_rs = token_runs(sp), ex_rs = example_runs(sp);
    cudaStream_t s = stream_;
    const float* pos = lay.pos_size ? P + lay.pos : sin_table_;  // (max_len, C) or nullptr
    // a learned table is a parameter of each run; the sinusoidal one is shared
    cuda::embedding_fwd(tokens_, P + lay.wte, pos, resid_[0], N, T_, C_, s, emb_scale_, tok_rs,
                        lay.pos_size ? tok_rs : cuda::RunStride{});
    for (int l = 0; l < L_; ++l) {
      const auto& lp = lay.layers[l];
      Layer& a = layers_[l];
      cuda::rmsnorm_fwd(resid_[l], P + lp.ln1, a.ln1, a.rstd1, N, C_, s, a.ln1_b, tok_rs);
      layer_product_fwd(Product::kQkv, l, sp);
      cuda::attention_fwd(attn_args(sp, l), a.qkv, a.att, a.lse, s);
      if (a.att_b) cuda::to_bf16(a.att, a.att_b, size_t(N) * C_, s);  // once, for the fwd and bwd products
      layer_product_fwd(Product::kOut, l, sp);
      cuda::rmsnorm_fwd(a.mid, P + lp.ln2, a.ln2, a.rstd2, N, C_, s, a.ln2_b, tok_rs);
      layer_product_fwd(Product::kFc, l, sp);
      cuda::gelu_fwd(a.fc, a.gelu, size_t(N) * F_, s, a.gelu_b);
      layer_product_fwd(Product::kProj, l, sp);
    }
    if (every_token) {
      cuda::rmsnorm_fwd(resid_[L_], P + lay.lnf, hf_, rstdf_, N, C_, s, nullptr, tok_rs);
      gemm_.linear_fwd(hf_, P + lay.w_head, logits_, sp.B * T_, C_, V_, nullptr, s, nullptr, R, P_);
      cuda::cross_entropy(logits_, targets_, loss_rows_, correct_, training ? dlogits_ : nullptr, N, V_, s, weights_);
      return;
    }
    cuda::gather_rows(resid_[L_], ans_, hf_in_, E, T_, C_, s);
    cuda::rmsnorm_fwd(hf_in_, P + lay.lnf, hf_, rstdf_, E, C_, s, nullptr, ex_rs);
    gemm_.linear_fwd(hf_, P + lay.w_head, logits_, sp.B, C_, V_, nullptr, s, nullptr, R, P_);
    // each run's mean over its own B answers
    cuda::cross_entropy(logits_, targets_, loss_rows_, correct_, training ? dlogits_ : nullptr, E, V_, s, nullptr, sp.B);
  }

  void backward(const Span& sp, bool every_token) {
    const auto& lay = host_model_.layout();
    const int E = sp.examples(), N = E * T_, R = sp.runs;
    const cuda::RunStride tok_rs = token_runs(sp), ex_rs = example_runs(sp);
    cudaStream_t s = stream_;
    float* G = grads(sp);
    const float* P = params(sp);
    if (every_token) {  // every row reached the head: its norm's backward writes dx directly
      gemm_.linear_bwd(dlogits_, hf_, P + lay.w_head, dhf_, G + lay.w_head, sp.B * T_, C_, V_, s, nullptr, nullptr, R, P_);
      CUDA_CHECK(cudaMemsetAsync(dx_, 0, size_t(N) * C_ * sizeof(float), s));
      cuda::rmsnorm_bwd(dhf_, resid_[L_], P + lay.lnf, rstdf_, dx_, dgpart_, N, C_, s, nullptr, tok_rs);
      cuda::column_sum(dgpart_, G + lay.lnf, N, C_, s, tok_rs);
    } else {
      gemm_.linear_bwd(dlogits_, hf_, P + lay.w_head, dhf_, G + lay.w_head, sp.B, C_, V_, s, nullptr, nullptr, R, P_);
      CUDA_CHECK(cudaMemsetAsync(dhf_in_, 0, size_t(E) * C_ * sizeof(float), s));
      cuda::rmsnorm_bwd(dhf_, hf_in_, P + lay.lnf, rstdf_, dhf_in_, dgpart_, E, C_, s, nullptr, ex_rs);
      cuda::column_sum(dgpart_, G + lay.lnf, E, C_, s, ex_rs);
      CUDA_CHECK(cudaMemsetAsync(dx_, 0, size_t(N) * C_ * sizeof(float), s));
      cuda::scatter_add_rows(dhf_in_, ans_, dx_, E, T_, C_, s);
    }
    // dx_b_ mirrors dx_ wherever a product reads it: converted here, then written by each
    // rmsnorm_bwd that updates dx_.
    if (dx_b_) cuda::to_bf16(dx_, dx_b_, size_t(N) * C_, s);
    for (int l = L_ - 1; l >= 0; --l) {
      const auto& lp = lay.layers[l];
      Layer& a = layers_[l];
      layer_product_bwd(Product::kProj, l, sp);
      cuda::gelu_bwd(dgelu_, a.fc, dgelu_, size_t(N) * F_, s, dgelu_b_);
      layer_product_bwd(Product::kFc, l, sp);
      cuda::rmsnorm_bwd(dln_, a.mid, P + lp.ln2, a.rstd2, dx_, dgpart_, N, C_, s, dx_b_, tok_rs);
      cuda::column_sum(dgpart_, G + lp.ln2, N, C_, s, tok_rs);
      layer_product_bwd(Product::kOut, l, sp);
      const bool pope = pe_ == cuda::PEKind::kPope;
      cuda::attention_bwd(attn_args(sp, l), a.qkv, a.att, datt_, a.lse, dqkv_, pope ? ddelta_part_ : nullptr, s, dtemp_part_);
      if (dtemp_part_) cuda::column_sum(dtemp_part_, G + lp.attn_temp, N, H_, s, tok_rs);  // ModelConfig::attn_temp
      // A shared delta (PEConfig::delta_shared) sums its layers' gradients: the last layer's
      // writes it, the others add theirs (the CPU model's order).
      if (pope && (!cfg_.pe.delta_shared || l == L_ - 1)) cuda::column_sum(ddelta_part_, G + lp.pe, N, C_, s, tok_rs);
      if (pope && cfg_.pe.delta_shared && l < L_ - 1) {
        cuda::column_sum(ddelta_part_, ddelta_layer_, N, C_, s, cuda::RunStride{sp.B * T_, size_t(C_)});
        for (int r = 0; r < R; ++r) cuda::axpy(1.f, ddelta_layer_ + r * C_, G + r * P_ + lp.pe, size_t(C_), s);
      }
      layer_product_bwd(Product::kQkv, l, sp);
      cuda::rmsnorm_bwd(dln_, resid_[l], P + lp.ln1, a.rstd1, dx_, dgpart_, N, C_, s, l > 0 ? dx_b_ : nullptr, tok_rs);
      cuda::column_sum(dgpart_, G + lp.ln1, N, C_, s, tok_rs);
    }
    // Tied embeddings: the head's product wrote its gradient into G + wte above; the lookup's adds to it.
    cuda::embedding_bwd(tokens_, dx_, G + lay.wte, N, C_, V_, s, emb_scale_, lay.w_head == lay.wte, tok_rs);
    if (lay.pos_size) cuda::column_sum(dx_, G + lay.pos, E, T_ * C_, s, ex_rs);  // learned positions: sum over B
  }

  RunConfig cfg_;
  cuda::DeviceMemory mem_;  // owns every buffer below; declared first, so it is freed last
  Transformer<float> host_model_;  // layout and init only; no activations are allocated
  cuda::Gemm gemm_;
  cuda::PEKind pe_;
  std::string name_;
  int dev_ = 0;  // CUDA device index
  const int R_;  // runs (slots): 1 for a run alone
  int C_, H_, D_, F_, V_, L_, T_;
  int maxB_;  // examples the activations hold: max(R x training batch, evaluation batch)
  float attn_scale_;  // ModelConfig::attn_scale resolved (attention_scale)
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
  uint64_t graph_scratch_generation_ = 0;  // gemm_.scratch_generation() when graph_exec_ was captured
  float *params_, *grads_, *m_, *v_;  // (R, P) each: every run's parameters and their twins
  uint8_t* group_;                    // (total,) AdamW group of each parameter (see the constructor)
  cuda::AdamWGroups groups_;          // each group's learning-rate multiplier and weight decay
  double* theta_;                     // PE frequencies
  int n_rot_;                         // channels RoPE rotates (D, or D/2 for rope-half)
  float* slopes_ = nullptr;           // (H) ALiBi slopes, or nullptr
  float* sin_table_ = nullptr;        // (max_len, C) sinusoidal positions, or nullptr
  std::vector<float*> resid_;         // L+1 x (B, T, C)
  std::vector<Layer> layers_;
  float *hf_in_, *hf_, *rstdf_, *logits_, *dlogits_, *loss_rows_, *weights_;
  int32_t* correct_;
  float *dx_, *dln_, *datt_, *dqkv_, *dgelu_, *dgpart_, *ddelta_part_, *ddelta_layer_, *dhf_, *dhf_in_, *norm_partial_;
  void *dx_b_, *dgelu_b_;  // bf16 mirrors of dx_ and dgelu_ (bf16 products), or nullptr
  float* dtemp_part_ = nullptr;  // (B, T, H) log-temperature gradient terms (ModelConfig::attn_temp), or nullptr
  bool masked_pads_ = false;     // InputConfig::pad_attention "masked"
  int32_t* key_start_ = nullptr;    // (B) each row's first real position (masked pads), or nullptr
  int32_t *tokens_, *ans_, *targets_;
  cuda::AdamWHyper* hyper_;  // (R)
  HostStaging train_host_;  // training steps (a slot's rows from r B; read by the captured graph)
  HostStaging eval_host_;   // eval_batch (no weights: evaluation scores the answer only)
  int32_t* h_correct_;
  float* h_loss_rows_;
  cuda::AdamWHyper* h_hyper_;
};

}  // namespace

// What the kernels cover, declared next to them: every PE kind (mapped onto the one attention
// kernel in the constructor) at head dims 16, 32, 64 and 128 (attention.cu's instantiations).
std::string cuda_backend_cannot_run(const RunConfig& cfg) {
  const int hd = cfg.model.head_dim();
  if (hd != 16 && hd != 32 && hd != 64 && hd != 128)
    return "head dim " + std::to_string(hd) + " has no GPU kernel (16, 32, 64 or 128)";
  return "";
}

// Called by make_backend (models/backend.cpp) after cuda_backend_cannot_run said yes.
std::unique_ptr<Backend> make_cuda_backend(const RunConfig& cfg) {
  try {
    return std::make_unique<CudaBackend>(cfg);
  } catch (const cuda::CudaError& e) {
    throw UserError(e.what());
  }
}

// The device side of a batch of runs (models/run_batch.hpp), on the current GPU. Every buffer of
// all R runs is allocated here, before the first step: a batch too large for the GPU fails now,
// with the size it needed, rather than after some runs have trained.
std::unique_ptr<BatchEngine> make_cuda_batch_engine(const RunConfig& cfg, int runs) {
  const std::string why_not = cuda_backend_cannot_run(cfg);
  if (!why_not.empty()) throw UserError("--batch-runs: " + why_not);
  try {
    return std::make_unique<CudaBackend>(cfg, runs);
  } catch (const cuda::CudaError& e) {
    throw UserError(e.what());
  } catch (const UserError& e) {
    throw UserError("a batch of " + std::to_string(runs) + " runs: " + e.what() + " (try a smaller --batch-runs)");
  }
}

nlohmann::json cuda_benchmark_step(Backend& be, const Batch& b, int warmup, int iters) {
  auto* cb = dynamic_cast<CudaBackend*>(&be);
  if (!cb) throw UserError("cuda_benchmark_step needs the CUDA backend");
  return cb->benchmark(b, warmup, iters);
}

nlohmann::json cuda_benchmark_batched_step(const RunConfig& cfg, int runs, const Batch& b, int warmup, int iters) {
  CudaBackend be(cfg, runs);
  for (int r = 0; r < runs; ++r) {  // each slot its own seed, as a batch of a sweep's seeds
    RunConfig c = cfg;
    c.train.seed = cfg.train.seed + r;
    be.init_run(r, c);
  }
  return be.benchmark(b, warmup, iters);
}

double cuda_loss_and_grad(Backend& be, const Batch& b, std::vector<float>& g) {
  auto* cb = dynamic_cast<CudaBackend*>(&be);
  if (!cb) throw UserError("cuda_loss_and_grad needs the CUDA backend");
  return cb->loss_and_grad(b, g);
}

}  // namespace popebench
