#include "models/pe_rope.hpp"

#include "models/pe_registry.hpp"

namespace popebench {
namespace {
template <typename T>
std::unique_ptr<PositionalEmbedding<T>> make(const PEConfig& pe, const ModelConfig& m) {
  return std::make_unique<RoPE<T>>(m.head_dim(), pe);
}
GpuPE gpu(const PEConfig& pe, const ModelConfig& m) {
  GpuPE g;
  g.attention = GpuPE::Attention::kRope;
  g.n_rot = m.head_dim();
  g.thetas = rope_thetas(g.n_rot, pe);
  return g;
}
}  // namespace

std::vector<PEKindInfo> pe_kinds_rope() {
  PEKindInfo k;
  k.name = "rope";
  k.help = "rotary: q and k rotated by angle t theta_c in pairs (half-split pairing), base 10,000";
  k.rank = 10;
  k.frequencies = k.rope_scaling = true;
  k.make_float = make<float>;
  k.make_double = make<double>;
  k.gpu = gpu;
  return {k};
}

}  // namespace popebench
