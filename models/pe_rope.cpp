#include "models/pe_rope.hpp"

#include "models/pe_registry.hpp"

namespace popebench {

std::vector<PEKindInfo> pe_kinds_rope() {
  PEKindInfo k("rope", "rotary: q and k rotated by angle t theta_c in pairs (half-split pairing), base 10,000", 10);
  k.frequencies = k.rope_scaling = true;
  k.cpu([](auto t, const PEConfig& pe, const ModelConfig& m) {
    return std::make_unique<RoPE<decltype(t)>>(m.head_dim(), pe);
  });
  k.gpu = [](const PEConfig& pe, const ModelConfig& m) {
    GpuPE g;
    g.attention = GpuPE::Attention::kRope;
    g.n_rot = m.head_dim();
    g.thetas = rope_thetas(g.n_rot, pe);
    return g;
  };
  return {k};
}

}  // namespace popebench
