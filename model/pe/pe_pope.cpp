#include "model/pe/pe_pope.hpp"

#include "model/pe/pe_registry.hpp"

namespace popebench {

std::vector<PEKindInfo> pe_kinds_pope() {
  PEKindInfo k("pope",
               "polar: softplus magnitudes of q and k, one frequency per component, a learned key phase delta "
               "in [-2 pi, 0] (docs/spec.md)",
               20);
  k.frequencies = k.delta = true;
  k.cpu([](auto t, const PEConfig& pe, const ModelConfig& m) {
    return std::make_unique<PoPE<decltype(t)>>(m.head_dim(), pe);
  });
  k.gpu = [](const PEConfig& pe, const ModelConfig& m) {
    return GpuPE{cuda::PEKind::kPope, 0, pope_thetas(m.head_dim(), pe), {}, {}};
  };
  return {k};
}

}  // namespace popebench
