#include "models/pe_pope.hpp"

#include "models/pe_registry.hpp"

namespace popebench {
namespace {
template <typename T>
std::unique_ptr<PositionalEmbedding<T>> make(const PEConfig& pe, const ModelConfig& m) {
  return std::make_unique<PoPE<T>>(m.head_dim(), pe);
}
GpuPE gpu(const PEConfig& pe, const ModelConfig& m) {
  GpuPE g;
  g.attention = GpuPE::Attention::kPope;
  g.thetas = pope_thetas(m.head_dim(), pe);
  return g;
}
}  // namespace

std::vector<PEKindInfo> pe_kinds_pope() {
  PEKindInfo k;
  k.name = "pope";
  k.help = "polar: softplus magnitudes of q and k, one frequency per component, a learned key phase delta "
           "in [-2 pi, 0] (docs/spec.md)";
  k.rank = 20;
  k.frequencies = k.delta = true;
  k.make_float = make<float>;
  k.make_double = make<double>;
  k.gpu = gpu;
  return {k};
}

}  // namespace popebench
