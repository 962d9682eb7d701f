#include "models/pe_rope_interleaved.hpp"

#include "models/pe_registry.hpp"

namespace popebench {
namespace {
template <typename T>
std::unique_ptr<PositionalEmbedding<T>> make(const PEConfig& pe, const ModelConfig& m) {
  return std::make_unique<RoPEInterleaved<T>>(m.head_dim(), pe);
}
}  // namespace

std::vector<PEKindInfo> pe_kinds_rope_interleaved() {
  PEKindInfo k;
  k.name = "rope-interleaved";
  k.help = "RoPE pairing channels 2c and 2c+1 (RoFormer's layout) instead of c and c+D/2; same frequencies";
  k.rank = 15;
  k.frequencies = k.rope_scaling = true;
  k.make_float = make<float>;
  k.make_double = make<double>;
  // no gpu: the fused attention kernel rotates half-split pairs only
  return {k};
}

}  // namespace popebench
