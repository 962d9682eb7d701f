// CudaBackend's forward and backward passes over a Span of slots, op for op the CPU model's
// (model/transformer.cpp), and the blocks' four matrix products.
// The class and what each file of it holds: backend/cuda/cuda_backend.cuh.
#include "kernels/cuda/cuda_check.cuh"
#include "backend/cuda/cuda_backend.cuh"

namespace popebench {

cuda::AttentionArgs CudaBackend::attn_args(const Span& sp, int l, bool angles_filled) const {
  const auto& lp = host_model_.layout().layers[l];
  float* P = params(sp);
  cuda::AttentionArgs a{sp.examples(), T_, H_, D_, pe_, theta_, pe_ == cuda::PEKind::kPope ? P + lp.pe : nullptr,
                        attn_scale_, n_rot_, slopes_, masked_pads_ ? key_start_ : nullptr,
                        host_model_.layout().has_attn_temp ? P + lp.attn_temp : nullptr};
  a.runs = example_runs(sp);
  a.tf32_products = tf32_attention_;
  a.bf16_flash = flash_attention_;
  // PoPE: layer l's own angle table, filled by its forward and read as it is by its backward (the
  // key angles carry the layer's delta, which changes only at the optimizer step). RoPE: the one
  // table the constructor filled (buffers.cu), only read.
  const bool per_layer = cuda::attention_angles_hold_params(pe_, flash_attention_);
  a.angle_scratch = angles_ ? angles_ + (per_layer ? size_t(l) * angle_floats_ : 0) : nullptr;
  a.angle_scratch_floats = angle_floats_;
  a.angle_table_filled = angles_filled || !per_layer;
  a.flash_scratch = flash_scratch_;
  a.flash_scratch_bytes = flash_scratch_bytes_;
  return a;
}

void CudaBackend::layer_product_fwd(Product p, int l, const Span& sp) {
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

void CudaBackend::layer_product_bwd(Product p, int l, const Span& sp) {
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
void CudaBackend::forward(const Span& sp, bool training, bool every_token) {
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

void CudaBackend::backward(const Span& sp, bool every_token) {
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
    // With a bf16 mirror both products read only the mirror; the fp32 gradient is kept for a
    // bias's column sum (bench/log/026-the-rest-of-the-step-counted-the.md: 16 of the ~154 bytes
    // per token, channel and layer that the step's elementwise passes move).
    const bool dgelu_fp32 = !dgelu_b_ || host_model_.layout().has_bias;
    cuda::gelu_bwd(dgelu_, a.fc, dgelu_fp32 ? dgelu_ : nullptr, size_t(N) * F_, s, dgelu_b_);
    layer_product_bwd(Product::kFc, l, sp);
    cuda::rmsnorm_bwd(dln_, a.mid, P + lp.ln2, a.rstd2, dx_, dgpart_, N, C_, s, dx_b_, tok_rs);
    cuda::column_sum(dgpart_, G + lp.ln2, N, C_, s, tok_rs);
    layer_product_bwd(Product::kOut, l, sp);
    const bool pope = pe_ == cuda::PEKind::kPope;
    // forward(sp, ...) filled layer l's angle table just before, for the same runs
    cuda::attention_bwd(attn_args(sp, l, true), a.qkv, a.att, datt_, a.lse, dqkv_, pope ? ddelta_part_ : nullptr, s,
                        dtemp_part_);
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

}  // namespace popebench
