#include "model/pe/pe_rope.hpp"

#include "model/pe/pe_registry.hpp"
#include "model/pe/pe_rope_half.hpp"

namespace popebench {

namespace {
// The GPU's RoPE on the first n_rot channels (the whole head for rope, half of it for rope-half).
GpuPE gpu_rope(const PEConfig& pe, int n_rot) {
  return GpuPE{cuda::PEKind::kRope, n_rot, rope_thetas(n_rot, pe), {}, {}};
}
}  // namespace

std::vector<PEKindInfo> pe_kinds_rope() {
  PEKindInfo full("rope", "rotary: q and k rotated by angle t theta_c in pairs (half-split pairing), base 10,000", 10);
  full.cpu([](auto t, const PEConfig& pe, const ModelConfig& m) {
    return std::make_unique<RoPE<decltype(t)>>(m.head_dim(), pe);
  });
  full.gpu = [](const PEConfig& pe, const ModelConfig& m) { return gpu_rope(pe, m.head_dim()); };
  PEKindInfo half("rope-half", "RoPE on half of each head's channels, the other half unrotated (the paper's Table 9)", 30);
  half.cpu([](auto t, const PEConfig& pe, const ModelConfig& m) {
    return std::make_unique<RoPEHalf<decltype(t)>>(m.head_dim(), pe);
  });
  half.gpu = [](const PEConfig& pe, const ModelConfig& m) { return gpu_rope(pe, m.head_dim() / 2); };
  for (PEKindInfo* k : {&full, &half}) k->frequencies = k->rope_scaling = true;
  full.yarn = true;
  return {full, half};
}

}  // namespace popebench
