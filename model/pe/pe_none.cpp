#include "model/pe/pe_none.hpp"

#include "model/pe/pe_registry.hpp"

namespace popebench {

std::vector<PEKindInfo> pe_kinds_none() {
  PEKindInfo k("none", "no positional signal (NoPE): the causal mask alone", 0);
  k.cpu([](auto t, const PEConfig&, const ModelConfig&) { return std::make_unique<NoPE<decltype(t)>>(); });
  k.gpu = [](const PEConfig&, const ModelConfig&) { return GpuPE{}; };
  return {k};
}

}  // namespace popebench
