#include "model/model_description.hpp"

#include <algorithm>

#include "common/rng.hpp"
#include "model/pe/pe_registry.hpp"
#include "model/pe/pe_rope.hpp"

namespace popebench {

ModelDescription::ModelDescription(const ModelConfig& m, const PEConfig& pe) : m_(m), pe_(pe) {
  m_.validate();
  // The layout asks the PE how many parameters it has; only its double twin is built here.
  const auto p = make_positional_embedding<double>(pe_, m_);
  layout_ = ParamLayout::build(m_, p->params_per_layer(m_.n_head, m_.head_dim()), p->embed_params(m_.max_len, m_.d_model),
                               pe_.delta_shared);
  qk_dim_ = p->qk_dim(m_.head_dim());
  score_scale_ = attention_scale(m_, qk_dim_) * pe_score_factor(pe_);
}

template <typename T>
void ModelDescription::init_params(T* p, uint64_t seed) const {
  const auto pe = make_positional_embedding<T>(pe_, m_);  // its init_layer_params rounds as T does
  Pcg32 rng = make_stream(seed, Stream::kInit);
  for (const auto& v : layout_.views) {
    T* w = p + v.offset;
    switch (v.kind) {
      case ParamKind::kEmbedding:
      case ParamKind::kMatrix:
        for (size_t i = 0; i < v.size(); ++i) w[i] = T(v.init_std * rng.normal());
        break;
      case ParamKind::kNormGain:
        std::fill(w, w + v.size(), T(1));
        break;
      case ParamKind::kBias:
      case ParamKind::kAttnTemp:  // log-temperature 0: the fixed scale at init
        std::fill(w, w + v.size(), T(0));
        break;
      case ParamKind::kPeParam:
        pe->init_layer_params(w, m_.n_head, m_.head_dim(), rng);
        break;
    }
  }
}

template void ModelDescription::init_params<float>(float*, uint64_t) const;
template void ModelDescription::init_params<double>(double*, uint64_t) const;

}  // namespace popebench
