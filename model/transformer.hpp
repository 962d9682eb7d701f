// The decoder-only transformer of SPEC §2 on the CPU: token embedding, pre-norm RMSNorm blocks
// (causal multi-head attention with a positional embedding, GELU MLP), final RMSNorm, output
// head read at each example's answer position. Forward and backward by hand, in T = float
// (training) or double (gradient checks). This is the reference the CUDA path is tested against.
#pragma once
#include <memory>
#include <vector>

#include "model/batch.hpp"
#include "config/config.hpp"
#include "model/params.hpp"
#include "model/model_description.hpp"
#include "model/pe/positional.hpp"
#include "model/pe/pe_absolute.hpp"

namespace popebench {

template <typename T>
class Transformer {
 public:
  Transformer(const ModelConfig& m, const PEConfig& pe);
  ~Transformer();
  const ModelConfig& config() const { return m_; }
  const ParamLayout& layout() const { return desc_.layout(); }

  // Fills params (layout().total) from the seed: N(0, std) matrices, unit norm gains, PE init.
  void init_params(T* params, uint64_t seed) const;
  // Mean cross-entropy at the answer positions, or (every_token: TrainConfig::loss "all") over
  // every next token (every_token_targets); caches what backward needs.
  T forward(const T* params, const Batch& b, bool every_token = false);
  // Gradient of the last forward's loss, accumulated into grads (layout().total).
  void backward(const T* params, T* grads);

  const std::vector<int32_t>& correct() const;  // (B,) 1 where arg-max == target at the answer
  // (B, V) at the answer positions; (B*T, V) at every position after an every_token forward.
  const std::vector<T>& logits() const;
  // The last forward's attention probabilities of one layer, (B, H, T, T) (diagnostics).
  const std::vector<T>& attention_probs(int layer) const;
  // The last forward's q and k of one layer before the positional embedding, (B, H, T, D)
  // (diagnostics: report/frequency_usage.hpp).
  const std::vector<T>& queries(int layer) const;
  const std::vector<T>& keys(int layer) const;
  // The PE's frequencies and the q/k channels that carry them (PositionalEmbedding).
  std::vector<FrequencyChannel> frequency_channels() const { return pe_->frequency_channels(); }

 private:
  struct Acts;
  ModelConfig m_;
  ModelDescription desc_;  // the layout and the init, shared with the CUDA backend
  std::unique_ptr<PositionalEmbedding<T>> pe_;
  std::unique_ptr<PositionalEmbedding<T>> abs_pos_;  // ModelConfig::abs_pos "learned", else nullptr
  T emb_scale_ = T(1);                               // sqrt(d_model) with ModelConfig::init "scaled-embedding"
  std::unique_ptr<Acts> a_;
  Batch batch_;
};

extern template class Transformer<float>;
extern template class Transformer<double>;

}  // namespace popebench
