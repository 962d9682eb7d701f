#include "models/positional.hpp"

#include "common/files.hpp"
#include "models/pe_none.hpp"
#include "models/pe_pope.hpp"
#include "models/pe_rope.hpp"

namespace popebench {

template <typename T>
std::unique_ptr<PositionalEmbedding<T>> make_positional_embedding(const PEConfig& pe, const ModelConfig& m) {
  pe.validate();
  if (pe.kind == "none") return std::make_unique<NoPE<T>>();
  if (pe.kind == "rope") return std::make_unique<RoPE<T>>(m.head_dim(), pe.base);
  if (pe.kind == "pope") return std::make_unique<PoPE<T>>(m.head_dim(), pe.base, pe.delta_init == "uniform");
  throw UserError("unknown positional embedding '" + pe.kind + "'");
}

template std::unique_ptr<PositionalEmbedding<float>> make_positional_embedding<float>(const PEConfig&, const ModelConfig&);
template std::unique_ptr<PositionalEmbedding<double>> make_positional_embedding<double>(const PEConfig&, const ModelConfig&);

}  // namespace popebench
