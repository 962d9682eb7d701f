#include "models/positional.hpp"

#include "common/files.hpp"
#include "models/pe_absolute.hpp"
#include "models/pe_alibi.hpp"
#include "models/pe_none.hpp"
#include "models/pe_rope_half.hpp"
#include "models/pe_pope.hpp"
#include "models/pe_rope.hpp"

namespace popebench {

template <typename T>
std::unique_ptr<PositionalEmbedding<T>> make_positional_embedding(const PEConfig& pe, const ModelConfig& m) {
  pe.validate();
  if (pe.kind == "none") return std::make_unique<NoPE<T>>();
  if (pe.kind == "rope") return std::make_unique<RoPE<T>>(m.head_dim(), pe);
  if (pe.kind == "pope") return std::make_unique<PoPE<T>>(m.head_dim(), pe);
  if (pe.kind == "rope-half") return std::make_unique<RoPEHalf<T>>(m.head_dim(), pe);
  if (pe.kind == "alibi") return std::make_unique<ALiBi<T>>(m.n_head, false);
  if (pe.kind == "alibi-half") return std::make_unique<ALiBi<T>>(m.n_head, true);
  if (pe.kind == "sinusoidal") return std::make_unique<AbsolutePE<T>>(false, m.max_len, m.d_model);
  if (pe.kind == "learned") return std::make_unique<AbsolutePE<T>>(true, m.max_len, m.d_model);
  throw UserError("unknown positional embedding '" + pe.kind + "'");
}

template std::unique_ptr<PositionalEmbedding<float>> make_positional_embedding<float>(const PEConfig&, const ModelConfig&);
template std::unique_ptr<PositionalEmbedding<double>> make_positional_embedding<double>(const PEConfig&, const ModelConfig&);

}  // namespace popebench
