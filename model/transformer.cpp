#include "model/transformer.hpp"

#include <cmath>

#include "kernels/cpu/attention.hpp"
#include "kernels/cpu/bias.hpp"
#include "kernels/cpu/cross_entropy.hpp"
#include "kernels/cpu/embedding.hpp"
#include "kernels/cpu/gelu.hpp"
#include "kernels/cpu/linear.hpp"
#include "kernels/cpu/rmsnorm.hpp"
#include "common/error.hpp"
#include "model/pe/pe_registry.hpp"

namespace popebench {

template <typename T>
struct Transformer<T>::Acts {
  struct Layer {
    std::vector<T> resid_in;   // (B, T, C) block input
    std::vector<T> ln1, ln1_rstd, q, k, v, qp, kp, probs, atth, att, resid_mid, ln2, ln2_rstd, fc, gelu;
    // ln1, ln2 (B, T, C); rstd (B*T); q, k, v, atth (B, H, T, D); qp, kp (B, H, T, Dqk);
    // probs (B, H, T, T); att (B, T, C); fc, gelu (B, T, mlp)
  };
  std::vector<Layer> layers;
  // The head's rows: the answer positions (M = B), or every position (M = B T, every_token).
  std::vector<T> hf_in, hf, lnf_rstd;  // (M, C), (M, C), (M,)
  std::vector<T> logits, probs;    // (M, V)
  std::vector<int32_t> correct;    // (B,) at the answer positions
  std::vector<int32_t> row_correct;  // (M,)
  bool every_token = false;
  TokenTargets token_targets;      // every_token only: (B, T) targets and weights
  // Scratch reused across steps: fresh allocations cost page faults and zeroing on every step
  // (28% of a small CPU step before they were kept here; bench/log/001-cpu.md).
  std::vector<T> x, qkv, tmp;                                       // (B, T, C), (B, T, 3C), (B, T, C)
  std::vector<T> dlogits, dhf, dhf_in, dx, dgelu, dln, datt, datth; // see backward
  std::vector<T> dqp, dkp, dq, dk, dv, dqkv;
};

namespace {
// (B, T, 3C) slice `which` -> (B, H, T, D), and the reverse (overwriting that slice of each row).
template <typename T>
void split_heads(const T* qkv, T* out, int which, int B, int Tn, int H, int D, int row) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < Tn; ++t)
      for (int h = 0; h < H; ++h) {
        const T* src = qkv + (static_cast<size_t>(b) * Tn + t) * row + which * H * D + h * D;
        std::copy(src, src + D, out + ((static_cast<size_t>(b) * H + h) * Tn + t) * D);
      }
}
template <typename T>
void merge_heads(const T* in, T* out, int which, int B, int Tn, int H, int D, int row) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < Tn; ++t)
      for (int h = 0; h < H; ++h) {
        const T* src = in + ((static_cast<size_t>(b) * H + h) * Tn + t) * D;
        std::copy(src, src + D, out + (static_cast<size_t>(b) * Tn + t) * row + which * H * D + h * D);
      }
}
}  // namespace

template <typename T>
Transformer<T>::Transformer(const ModelConfig& m, const PEConfig& pe)
    : m_(m), desc_(m, pe), pe_(make_positional_embedding<T>(pe, m)), a_(std::make_unique<Acts>()) {
  if (m_.abs_pos == AbsPos::kLearned) abs_pos_ = std::make_unique<AbsolutePE<T>>(true, m_.max_len, m_.d_model);
  if (m_.init == ModelInit::kScaledEmbedding) emb_scale_ = T(std::sqrt(double(m_.d_model)));
}
template <typename T>
Transformer<T>::~Transformer() = default;

template <typename T>
void Transformer<T>::init_params(T* p, uint64_t seed) const {
  desc_.template init_params<T>(p, seed);
}

template <typename T>
T Transformer<T>::forward(const T* P, const Batch& b, bool every_token) {
  batch_ = b;
  const int B = b.B, Tn = b.T, C = m_.d_model, H = m_.n_head, D = m_.head_dim(), F = m_.mlp_ratio * C,
            V = m_.vocab_size, Dq = pe_->qk_dim(D), N = B * Tn;
  const size_t NC = static_cast<size_t>(N) * C, heads = static_cast<size_t>(B) * H * Tn;
  const T scale = T(desc_.score_scale());  // SPEC §2 default: head dim before any PoPE expansion
  const PEShape ps{B, H, Tn, D};
  const cpu::AttentionShape as{B, H, Tn, Dq, D};
  auto& A = *a_;
  A.layers.resize(m_.n_layer);
  auto& x = A.x;
  auto& qkv = A.qkv;
  auto& tmp = A.tmp;
  x.resize(NC);
  qkv.resize(NC * 3);
  tmp.resize(NC);
  cpu::embedding_fwd(b.tokens.data(), P + layout().wte, x.data(), N, C, emb_scale_);
  if (Tn > m_.max_len) throw UserError("batch of length " + std::to_string(Tn) + " exceeds the model's max_len");
  pe_->embed_fwd(x.data(), layout().pos_size ? P + layout().pos : nullptr, B, Tn, C);
  if (abs_pos_) abs_pos_->embed_fwd(x.data(), P + layout().pos, B, Tn, C);
  for (int l = 0; l < m_.n_layer; ++l) {
    auto& L = A.layers[l];
    const auto& lp = layout().layers[l];
    L.resid_in = x;
    L.ln1.resize(NC); L.ln1_rstd.resize(N);
    cpu::rmsnorm_fwd(x.data(), P + lp.ln1, L.ln1.data(), L.ln1_rstd.data(), N, C);
    const bool bias = layout().has_bias;
    cpu::linear_fwd(L.ln1.data(), P + lp.w_qkv, qkv.data(), N, C, 3 * C);
    if (bias) cpu::bias_fwd(qkv.data(), P + lp.b_qkv, N, 3 * C);
    L.q.resize(heads * D); L.k.resize(heads * D); L.v.resize(heads * D);
    split_heads(qkv.data(), L.q.data(), 0, B, Tn, H, D, 3 * C);
    split_heads(qkv.data(), L.k.data(), 1, B, Tn, H, D, 3 * C);
    split_heads(qkv.data(), L.v.data(), 2, B, Tn, H, D, 3 * C);
    L.qp.resize(heads * Dq); L.kp.resize(heads * Dq);
    const T* pe_params = pe_->params_per_layer(H, D) ? P + lp.pe : nullptr;
    pe_->fwd(L.q.data(), L.k.data(), L.qp.data(), L.kp.data(), pe_params, ps);
    L.probs.resize(heads * Tn); L.atth.resize(heads * D); L.att.resize(NC);
    cpu::attention_fwd(L.qp.data(), L.kp.data(), L.v.data(), L.atth.data(), L.probs.data(), as, scale,
                       pe_->score_slopes(), b.key_start.empty() ? nullptr : b.key_start.data(),
                       layout().has_attn_temp ? P + lp.attn_temp : nullptr);
    merge_heads(L.atth.data(), L.att.data(), 0, B, Tn, H, D, C);
    cpu::linear_fwd(L.att.data(), P + lp.w_o, tmp.data(), N, C, C);
    if (bias) cpu::bias_fwd(tmp.data(), P + lp.b_o, N, C);
    for (size_t i = 0; i < NC; ++i) x[i] += tmp[i];
    L.resid_mid = x;
    L.ln2.resize(NC); L.ln2_rstd.resize(N);
    cpu::rmsnorm_fwd(x.data(), P + lp.ln2, L.ln2.data(), L.ln2_rstd.data(), N, C);
    L.fc.resize(static_cast<size_t>(N) * F); L.gelu.resize(static_cast<size_t>(N) * F);
    cpu::linear_fwd(L.ln2.data(), P + lp.w_fc, L.fc.data(), N, C, F);
    if (bias) cpu::bias_fwd(L.fc.data(), P + lp.b_fc, N, F);
    cpu::gelu_fwd(L.fc.data(), L.gelu.data(), L.fc.size());
    cpu::linear_fwd(L.gelu.data(), P + lp.w_proj, tmp.data(), N, F, C);
    if (bias) cpu::bias_fwd(tmp.data(), P + lp.b_proj, N, C);
    for (size_t i = 0; i < NC; ++i) x[i] += tmp[i];
  }
  // Only the answer positions reach the head (SPEC), or every position with every_token.
  A.every_token = every_token;
  const int M = every_token ? N : B;
  A.hf_in.resize(static_cast<size_t>(M) * C); A.hf.resize(A.hf_in.size()); A.lnf_rstd.resize(M);
  if (every_token) {
    std::copy(x.begin(), x.end(), A.hf_in.begin());  // the last block's output, every row
    A.token_targets = every_token_targets(b);
  } else {
    for (int r = 0; r < B; ++r) {
      const T* src = x.data() + (static_cast<size_t>(r) * Tn + b.answer_pos[r]) * C;  // last block's output
      std::copy(src, src + C, A.hf_in.data() + static_cast<size_t>(r) * C);
    }
  }
  cpu::rmsnorm_fwd(A.hf_in.data(), P + layout().lnf, A.hf.data(), A.lnf_rstd.data(), M, C);
  A.logits.resize(static_cast<size_t>(M) * V); A.probs.resize(A.logits.size()); A.row_correct.resize(M);
  cpu::linear_fwd(A.hf.data(), P + layout().w_head, A.logits.data(), M, C, V);
  const int32_t* tg = every_token ? A.token_targets.targets.data() : b.targets.data();
  const T loss = cpu::cross_entropy_fwd(A.logits.data(), tg, A.probs.data(), A.row_correct.data(), M, V,
                                        every_token ? A.token_targets.weights.data() : nullptr);
  A.correct.resize(B);
  for (int r = 0; r < B; ++r) A.correct[r] = A.row_correct[every_token ? r * Tn + b.answer_pos[r] : r];
  return loss;
}

template <typename T>
void Transformer<T>::backward(const T* P, T* G) {
  const Batch& b = batch_;
  const int B = b.B, Tn = b.T, C = m_.d_model, H = m_.n_head, D = m_.head_dim(), F = m_.mlp_ratio * C,
            V = m_.vocab_size, Dq = pe_->qk_dim(D), N = B * Tn;
  const size_t NC = static_cast<size_t>(N) * C, heads = static_cast<size_t>(B) * H * Tn;
  const T scale = T(desc_.score_scale());
  const PEShape ps{B, H, Tn, D};
  const cpu::AttentionShape as{B, H, Tn, Dq, D};
  auto& A = *a_;
  const int M = A.every_token ? N : B;  // the head's rows (forward)
  auto& dlogits = A.dlogits;  // (M, V)
  auto& dhf = A.dhf;          // (M, C)
  auto& dhf_in = A.dhf_in;    // (M, C)
  dlogits.resize(static_cast<size_t>(M) * V);
  dhf.resize(static_cast<size_t>(M) * C);
  dhf_in.assign(dhf.size(), T(0));
  if (A.every_token)
    cpu::cross_entropy_bwd(A.probs.data(), A.token_targets.targets.data(), dlogits.data(), M, V, A.token_targets.weights.data());
  else
    cpu::cross_entropy_bwd(A.probs.data(), b.targets.data(), dlogits.data(), M, V);
  cpu::linear_bwd(dlogits.data(), A.hf.data(), P + layout().w_head, dhf.data(), G + layout().w_head, M, C, V);
  cpu::rmsnorm_bwd(dhf.data(), A.hf_in.data(), P + layout().lnf, A.lnf_rstd.data(), dhf_in.data(), G + layout().lnf, M, C);
  auto& dx = A.dx;  // (B, T, C) gradient of the residual stream
  if (A.every_token) {
    dx = dhf_in;  // every row reached the head
  } else {
    dx.assign(NC, T(0));
    for (int r = 0; r < B; ++r) {
      T* dst = dx.data() + (static_cast<size_t>(r) * Tn + b.answer_pos[r]) * C;
      for (int c = 0; c < C; ++c) dst[c] += dhf_in[static_cast<size_t>(r) * C + c];
    }
  }
  auto &dgelu = A.dgelu, &dln = A.dln, &datt = A.datt, &datth = A.datth, &dqp = A.dqp, &dkp = A.dkp, &dq = A.dq,
       &dk = A.dk, &dv = A.dv, &dqkv = A.dqkv;
  dgelu.resize(static_cast<size_t>(N) * F);  // (B, T, F)
  dln.resize(NC);                            // (B, T, C)
  datt.resize(NC);                           // (B, T, C)
  datth.resize(heads * D);                   // (B, H, T, D)
  dqp.resize(heads * Dq);                    // (B, H, T, Dqk)
  dkp.resize(heads * Dq);
  dq.resize(heads * D);                      // (B, H, T, D)
  dk.resize(heads * D);
  dv.resize(heads * D);
  dqkv.resize(NC * 3);                       // (B, T, 3C)
  for (int l = m_.n_layer - 1; l >= 0; --l) {
    auto& L = A.layers[l];
    const auto& lp = layout().layers[l];
    const bool bias = layout().has_bias;
    if (bias) cpu::bias_bwd(dx.data(), G + lp.b_proj, N, C);
    cpu::linear_bwd(dx.data(), L.gelu.data(), P + lp.w_proj, dgelu.data(), G + lp.w_proj, N, F, C);
    cpu::gelu_bwd(dgelu.data(), L.fc.data(), dgelu.data(), dgelu.size());
    if (bias) cpu::bias_bwd(dgelu.data(), G + lp.b_fc, N, F);
    cpu::linear_bwd(dgelu.data(), L.ln2.data(), P + lp.w_fc, dln.data(), G + lp.w_fc, N, C, F);
    cpu::rmsnorm_bwd(dln.data(), L.resid_mid.data(), P + lp.ln2, L.ln2_rstd.data(), dx.data(), G + lp.ln2, N, C);
    if (bias) cpu::bias_bwd(dx.data(), G + lp.b_o, N, C);
    cpu::linear_bwd(dx.data(), L.att.data(), P + lp.w_o, datt.data(), G + lp.w_o, N, C, C);
    split_heads(datt.data(), datth.data(), 0, B, Tn, H, D, C);
    cpu::attention_bwd(datth.data(), L.qp.data(), L.kp.data(), L.v.data(), L.probs.data(), dqp.data(), dkp.data(),
                       dv.data(), as, scale, layout().has_attn_temp ? P + lp.attn_temp : nullptr,
                       layout().has_attn_temp ? G + lp.attn_temp : nullptr);
    const bool has_pe = pe_->params_per_layer(H, D) > 0;
    pe_->bwd(dqp.data(), dkp.data(), L.q.data(), L.k.data(), has_pe ? P + lp.pe : nullptr, dq.data(), dk.data(),
             has_pe ? G + lp.pe : nullptr, ps);
    merge_heads(dq.data(), dqkv.data(), 0, B, Tn, H, D, 3 * C);
    merge_heads(dk.data(), dqkv.data(), 1, B, Tn, H, D, 3 * C);
    merge_heads(dv.data(), dqkv.data(), 2, B, Tn, H, D, 3 * C);
    if (bias) cpu::bias_bwd(dqkv.data(), G + lp.b_qkv, N, 3 * C);
    cpu::linear_bwd(dqkv.data(), L.ln1.data(), P + lp.w_qkv, dln.data(), G + lp.w_qkv, N, C, 3 * C);
    cpu::rmsnorm_bwd(dln.data(), L.resid_in.data(), P + lp.ln1, L.ln1_rstd.data(), dx.data(), G + lp.ln1, N, C);
  }
  pe_->embed_bwd(dx.data(), layout().pos_size ? G + layout().pos : nullptr, B, Tn, C);
  if (abs_pos_) abs_pos_->embed_bwd(dx.data(), G + layout().pos, B, Tn, C);
  // Tied embeddings: the head's gradient is already in G + wte (linear_bwd accumulates); this adds the lookup's.
  cpu::embedding_bwd(b.tokens.data(), dx.data(), G + layout().wte, N, C, emb_scale_);
}

template <typename T>
const std::vector<int32_t>& Transformer<T>::correct() const { return a_->correct; }
template <typename T>
const std::vector<T>& Transformer<T>::logits() const { return a_->logits; }
template <typename T>
const std::vector<T>& Transformer<T>::attention_probs(int layer) const { return a_->layers.at(layer).probs; }
template <typename T>
const std::vector<T>& Transformer<T>::queries(int layer) const { return a_->layers.at(layer).q; }
template <typename T>
const std::vector<T>& Transformer<T>::keys(int layer) const { return a_->layers.at(layer).k; }

template class Transformer<float>;
template class Transformer<double>;

}  // namespace popebench
