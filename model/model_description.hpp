// What a backend needs to lay a model out and start it, without building the model: the
// parameter layout (model/params.hpp), the initial parameters of a seed, and the width of q and
// k after the positional embedding. The CPU Transformer holds one; the CUDA backend builds one
// (it never needs the CPU model's ops or activations).
#pragma once
#include <cstdint>

#include "config/config.hpp"
#include "model/params.hpp"

namespace popebench {

class ModelDescription {
 public:
  ModelDescription(const ModelConfig& m, const PEConfig& pe);  // validates both
  const ModelConfig& model() const { return m_; }
  const PEConfig& pe() const { return pe_; }
  const ParamLayout& layout() const { return layout_; }
  // Width of q and k in the attention dot product (PositionalEmbedding::qk_dim: PoPE 2 head_dim).
  int qk_dim() const { return qk_dim_; }
  // Every attention score's scale: ModelConfig::attn_scale resolved for qk_dim (attention_scale),
  // times the PE's test-time factor (pe_score_factor: YaRN's). Both backends take it from here.
  double score_scale() const { return score_scale_; }
  // Fills params (layout().total) from the seed: N(0, init_std) matrices and embeddings, unit
  // norm gains, zero biases and log-temperatures, the PE's own init (PoPE's delta); one random
  // stream (Stream::kInit) drawn in layout order, so float and double draw the same values.
  template <typename T>
  void init_params(T* params, uint64_t seed) const;

 private:
  ModelConfig m_;
  PEConfig pe_;
  ParamLayout layout_;
  int qk_dim_;
  double score_scale_;
};

extern template void ModelDescription::init_params<float>(float*, uint64_t) const;
extern template void ModelDescription::init_params<double>(double*, uint64_t) const;

}  // namespace popebench
