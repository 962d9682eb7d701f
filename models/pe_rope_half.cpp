#include "models/pe_rope_half.hpp"

#include "models/pe_registry.hpp"

namespace popebench {
namespace {
template <typename T>
std::unique_ptr<PositionalEmbedding<T>> make(const PEConfig& pe, const ModelConfig& m) {
  return std::make_unique<RoPEHalf<T>>(m.head_dim(), pe);
}
GpuPE gpu(const PEConfig& pe, const ModelConfig& m) {  // RoPE on the first D/2 channels
  GpuPE g;
  g.attention = GpuPE::Attention::kRope;
  g.n_rot = m.head_dim() / 2;
  g.thetas = rope_thetas(g.n_rot, pe);
  return g;
}
}  // namespace

std::vector<PEKindInfo> pe_kinds_rope_half() {
  PEKindInfo k;
  k.name = "rope-half";
  k.help = "RoPE on half of each head's channels, the other half unrotated (the paper's Table 9)";
  k.rank = 30;
  k.frequencies = k.rope_scaling = true;
  k.make_float = make<float>;
  k.make_double = make<double>;
  k.gpu = gpu;
  return {k};
}

}  // namespace popebench
