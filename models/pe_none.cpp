#include "models/pe_none.hpp"

#include "models/pe_registry.hpp"

namespace popebench {
namespace {
template <typename T>
std::unique_ptr<PositionalEmbedding<T>> make(const PEConfig&, const ModelConfig&) {
  return std::make_unique<NoPE<T>>();
}
GpuPE gpu(const PEConfig&, const ModelConfig&) { return {}; }
}  // namespace

std::vector<PEKindInfo> pe_kinds_none() {
  PEKindInfo k;
  k.name = "none";
  k.help = "no positional signal (NoPE): the causal mask alone";
  k.rank = 0;
  k.make_float = make<float>;
  k.make_double = make<double>;
  k.gpu = gpu;
  return {k};
}

}  // namespace popebench
