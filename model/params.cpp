#include "model/params.hpp"

#include <cmath>

#include "common/error.hpp"

namespace popebench {

ParamLayout ParamLayout::build(const ModelConfig& m, size_t pe_params_per_layer, size_t pe_embed_params, bool pe_shared) {
  ParamLayout L;
  auto add = [&](const std::string& name, int rows, int cols, ParamKind kind, double std) {
    L.total = (L.total + kViewAlign - 1) / kViewAlign * kViewAlign;
    L.views.push_back({name, L.total, rows, cols, kind, std});
    L.total += static_cast<size_t>(rows) * cols;
    L.n_params += static_cast<size_t>(rows) * cols;
    return L.views.back().offset;
  };
  const int C = m.d_model, H = m.mlp_ratio * m.d_model;
  const double resid_std = m.init_std / std::sqrt(2.0 * m.n_layer);
  // Kaiming-normal for a (V, C) table: fan-in C, gain sqrt(2) (ModelConfig::init).
  const double wte_std = m.init == ModelInit::kScaledEmbedding ? std::sqrt(2.0 / C) : m.init_std;
  // Tied, the one matrix is also the head, which the "matrices" decay rule decays: it counts as a matrix.
  L.wte = add("wte", m.vocab_size, C, m.tied_embeddings ? ParamKind::kMatrix : ParamKind::kEmbedding, wte_std);
  if (m.abs_pos == AbsPos::kLearned) {
    if (pe_embed_params) throw UserError("a learned absolute position embedding on top of a PE that has one already");
    pe_embed_params = static_cast<size_t>(m.max_len) * C;
  }
  if (pe_embed_params) {
    L.pos = add("pos_emb", static_cast<int>(pe_embed_params / C), C, ParamKind::kEmbedding, m.init_std);
    L.pos_size = pe_embed_params;
  }
  const size_t shared_pe =
      pe_shared && pe_params_per_layer ? add("pe_shared", 1, static_cast<int>(pe_params_per_layer), ParamKind::kPeParam, 0) : 0;
  for (int l = 0; l < m.n_layer; ++l) {
    std::string p = "layer" + std::to_string(l) + ".";
    LayerParams lp{};
    lp.ln1 = add(p + "ln1", 1, C, ParamKind::kNormGain, 0);
    lp.w_qkv = add(p + "w_qkv", 3 * C, C, ParamKind::kMatrix, m.init_std);
    lp.w_o = add(p + "w_o", C, C, ParamKind::kMatrix, resid_std);
    lp.ln2 = add(p + "ln2", 1, C, ParamKind::kNormGain, 0);
    lp.w_fc = add(p + "w_fc", H, C, ParamKind::kMatrix, m.init_std);
    lp.w_proj = add(p + "w_proj", C, H, ParamKind::kMatrix, resid_std);
    if (m.bias) {
      lp.b_qkv = add(p + "b_qkv", 1, 3 * C, ParamKind::kBias, 0);
      lp.b_o = add(p + "b_o", 1, C, ParamKind::kBias, 0);
      lp.b_fc = add(p + "b_fc", 1, H, ParamKind::kBias, 0);
      lp.b_proj = add(p + "b_proj", 1, C, ParamKind::kBias, 0);
    }
    if (m.attn_temp == AttnTemp::kLearned) lp.attn_temp = add(p + "attn_temp", 1, m.n_head, ParamKind::kAttnTemp, 0);
    lp.pe = !pe_params_per_layer ? 0
            : pe_shared ? shared_pe
                        : add(p + "pe", 1, static_cast<int>(pe_params_per_layer), ParamKind::kPeParam, 0);
    L.layers.push_back(lp);
  }
  L.has_bias = m.bias;
  L.has_attn_temp = m.attn_temp == AttnTemp::kLearned;
  L.lnf = add("lnf", 1, C, ParamKind::kNormGain, 0);
  // Tied: the head reads the token embedding's rows; there is no separate view (the embedding's
  // own kind, init and decay rule apply to the one matrix).
  L.w_head = m.tied_embeddings ? L.wte : add("w_head", m.vocab_size, C, ParamKind::kMatrix, m.init_std);
  return L;
}

const ParamView& ParamLayout::find(const std::string& name) const {
  for (const auto& v : views)
    if (v.name == name) return v;
  throw UserError("no parameter named " + name);
}

}  // namespace popebench
