#include "model/pe/pe_rope_interleaved.hpp"

#include "model/pe/pe_registry.hpp"

namespace popebench {

std::vector<PEKindInfo> pe_kinds_rope_interleaved() {
  PEKindInfo k("rope-interleaved",
               "RoPE pairing channels 2c and 2c+1 (RoFormer's layout) instead of c and c+D/2; same frequencies", 15);
  k.frequencies = k.rope_scaling = k.yarn = true;
  k.cpu([](auto t, const PEConfig& pe, const ModelConfig& m) {
    return std::make_unique<RoPEInterleaved<decltype(t)>>(m.head_dim(), pe);
  });
  // no gpu: the fused attention kernel rotates half-split pairs only
  return {k};
}

}  // namespace popebench
