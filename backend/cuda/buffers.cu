// CudaBackend's buffer plan: every allocation, sized once from the config (a batch too large for
// the GPU fails in the constructor, before any run trains), and each slot's state in and out.
// The class and what each file of it holds: backend/cuda/cuda_backend.cuh.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "backend/cuda/cuda_backend.cuh"
#include "model/pe/pe_registry.hpp"

namespace popebench {

namespace {
// Floats between two runs' parameter copies: the layout's total rounded up to 64 floats, so that
// every run's views keep the 256-byte alignment the parameter layout gives them (cuBLASLt picks
// its algorithm per shape assuming aligned operands).
size_t run_stride(size_t total) { return (total + 63) / 64 * 64; }
}  // namespace

CudaBackend::CudaBackend(const RunConfig& cfg, int runs)
    : cfg_(cfg), host_model_(cfg.model, cfg.pe), gemm_(cuda::parse_matmul_mode(word(cfg.train.gpu_matmul))), R_(runs) {
  const auto& m = cfg.model;
  C_ = m.d_model;
  H_ = m.n_head;
  D_ = m.head_dim();
  F_ = m.mlp_ratio * C_;
  V_ = m.vocab_size;
  L_ = m.n_layer;
  T_ = cfg.input_len();
  attn_scale_ = float(host_model_.score_scale());
  emb_scale_ = m.init == ModelInit::kScaledEmbedding ? float(std::sqrt(double(C_))) : 1.f;  // as the CPU model's
  // Examples the activations hold: every run's training batch, or one evaluation batch.
  maxB_ = std::max(R_ * cfg.train.batch, cfg.train.eval_batch);
  every_token_ = cfg.train.loss == TrainLoss::kAll;
  masked_pads_ = cfg.input.pad_attention == PadAttention::kMasked;
  tf32_attention_ = cfg.train.gpu_attention == GpuAttention::kTf32;
  flash_attention_ = cfg.train.gpu_attention == GpuAttention::kBf16;
  if (tf32_attention_ && !cuda::attention_has_tf32_form(T_, D_))
    std::fprintf(stderr, "popebench: note: --gpu-attention tf32 takes T <= 64 at head dims 16, 32 and 64; at T %d, "
                         "head dim %d attention's products run in fp32\n", T_, D_);
  if (R_ > 1 && cfg.train.grad_accum != 1) throw std::logic_error("a batch of runs takes no gradient accumulation");
  // The head's rows: the answer positions of the largest batch, or, with the loss on every next
  // token, every position of it (the training batches', and an evaluation batch's for
  // eval_every_token: the text task's bits per byte).
  head_rows_ = every_token_ ? maxB_ * T_ : maxB_;
  // Every PE maps onto the one attention kernel as its registration describes it
  // (model/pe/pe_registry.hpp's GpuPE; cuda_backend_cannot_run refused those with none): e.g.
  // rope-half is rope on n_rot = D/2 channels, ALiBi is NoPE plus per-head slopes, the absolute
  // embeddings are NoPE plus a table added in the embedding kernel.
  const GpuPE gpu_pe = pe_kind(cfg.pe.kind).gpu(cfg.pe, m);
  pe_ = gpu_pe.attention;
  n_rot_ = pe_ == cuda::PEKind::kRope ? gpu_pe.n_rot : D_;
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

  // The kernels read theta_ only in the kRope and kPope modes; one entry keeps the pointer valid.
  const std::vector<double> th = gpu_pe.thetas.empty() ? std::vector<double>{0.0} : gpu_pe.thetas;
  theta_ = mem_.device<double>(th.size());
  CUDA_CHECK(cudaMemcpy(theta_, th.data(), th.size() * sizeof(double), cudaMemcpyHostToDevice));
  // The attention calls' angle tables (AttentionArgs::angle_scratch), each sized for the largest
  // call: every run of the batch (an evaluation is one run). None where no table is computed.
  // PoPE's holds delta: one a layer, filled by the layer's forward and read by its backward (221 KB
  // a run and layer at the paper's shape). RoPE's, and the flash kernels' (--gpu-attention bf16:
  // the query angles alone, T x n), hold no parameter: one for every layer, filled here once
  // (below, when theta is on the device) and only read from then on.
  angle_floats_ = cuda::attention_angle_floats(T_, D_, H_, pe_, n_rot_, R_, flash_attention_);
  const bool per_layer = cuda::attention_angles_hold_params(pe_, flash_attention_);
  if (angle_floats_ > 0) angles_ = mem_.device<float>(size_t(per_layer ? L_ : 1) * angle_floats_);
  if (flash_attention_) {
    flash_scratch_bytes_ = cuda::attention_flash_scratch_bytes(maxB_, T_, H_, D_, pe_);
    flash_scratch_ = mem_.device<unsigned char>(flash_scratch_bytes_);
  }
  if (angles_ && !per_layer) {
    cuda::AttentionArgs a{1, T_, H_, D_, pe_, theta_, nullptr, attn_scale_, n_rot_};
    a.bf16_flash = flash_attention_;
    a.angle_scratch = angles_;
    a.angle_scratch_floats = angle_floats_;
    cuda::attention_fill_angles(a, stream_);
  }
  if (!gpu_pe.slopes.empty()) {
    if (gpu_pe.slopes.size() != size_t(H_)) throw std::logic_error("GpuPE: one slope per head expected");
    std::vector<float> slf(gpu_pe.slopes.begin(), gpu_pe.slopes.end());
    slopes_ = mem_.device<float>(H_);
    CUDA_CHECK(cudaMemcpy(slopes_, slf.data(), H_ * sizeof(float), cudaMemcpyHostToDevice));
  }
  if (!gpu_pe.table.empty()) {  // fixed table (max_len, C), rounded to float as the CPU's float path does
    if (gpu_pe.table.size() != size_t(m.max_len) * C_) throw std::logic_error("GpuPE: a (max_len, C) table expected");
    std::vector<float> tf(gpu_pe.table.begin(), gpu_pe.table.end());
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
  // evaluation scores the answer, and every position too in runs with the loss on every token
  eval_host_.targets = mem_.pinned<int32_t>(HR);
  if (every_token_) eval_host_.weights = mem_.pinned<float>(HR);
  h_loss_rows_ = mem_.pinned<float>(HR);
  h_correct_ = mem_.pinned<int32_t>(HR);
  h_hyper_ = mem_.pinned<cuda::AdamWHyper>(R_);
  for (int r = 0; r < R_; ++r) h_hyper_[r] = cuda::AdamWHyper{0.f, 1.f, 0.f, 0.f};
  results_.resize(R_);
}

CudaBackend::~CudaBackend() {  // then stream_ ends its work, then mem_ frees the buffers
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  if (graph_) cudaGraphDestroy(graph_);
}

// The BatchEngine of a batch of runs (backend/run_batch.hpp): slot r.
void CudaBackend::init_run(int r, const RunConfig& cfg) {
  check_slot(r);
  std::vector<float> p(total_);
  host_model_.init_params<float>(p.data(), cfg.train.seed);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  CUDA_CHECK(cudaMemcpy(params_ + r * P_, p.data(), total_ * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(m_ + r * P_, 0, total_ * sizeof(float)));
  CUDA_CHECK(cudaMemset(v_ + r * P_, 0, total_ * sizeof(float)));
  gemm_.refresh_bf16_shadow(stream_);
}

void CudaBackend::get_state(int r, std::vector<float>& p, std::vector<float>& m, std::vector<float>& v) {
  check_slot(r);
  p.resize(total_);
  m.resize(total_);
  v.resize(total_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  CUDA_CHECK(cudaMemcpy(p.data(), params_ + r * P_, total_ * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(m.data(), m_ + r * P_, total_ * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(v.data(), v_ + r * P_, total_ * sizeof(float), cudaMemcpyDeviceToHost));
}

void CudaBackend::set_state(int r, const std::vector<float>& p, const std::vector<float>& m, const std::vector<float>& v) {
  check_slot(r);
  if (p.size() != total_ || m.size() != total_ || v.size() != total_) throw UserError("state size does not match the model");
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  CUDA_CHECK(cudaMemcpy(params_ + r * P_, p.data(), total_ * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(m_ + r * P_, m.data(), total_ * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(v_ + r * P_, v.data(), total_ * sizeof(float), cudaMemcpyHostToDevice));
  gemm_.refresh_bf16_shadow(stream_);
}

}  // namespace popebench
