#include "models/pe_rope_half.hpp"

#include "models/pe_registry.hpp"

namespace popebench {

std::vector<PEKindInfo> pe_kinds_rope_half() {
  PEKindInfo k("rope-half", "RoPE on half of each head's channels, the other half unrotated (the paper's Table 9)", 30);
  k.frequencies = k.rope_scaling = true;
  k.cpu([](auto t, const PEConfig& pe, const ModelConfig& m) {
    return std::make_unique<RoPEHalf<decltype(t)>>(m.head_dim(), pe);
  });
  k.gpu = [](const PEConfig& pe, const ModelConfig& m) {  // the GPU's RoPE on the first D/2 channels
    GpuPE g;
    g.attention = GpuPE::Attention::kRope;
    g.n_rot = m.head_dim() / 2;
    g.thetas = rope_thetas(g.n_rot, pe);
    return g;
  };
  return {k};
}

}  // namespace popebench
