#include "model/pe/pe_alibi.hpp"

#include "model/pe/pe_registry.hpp"

namespace popebench {

std::vector<PEKindInfo> pe_kinds_alibi() {
  // No change to q and k: per-head slopes on the scores, on every head or on the first half.
  PEKindInfo all("alibi", "a linear distance bias on the scores, one slope per head", 40);
  all.cpu([](auto t, const PEConfig&, const ModelConfig& m) { return std::make_unique<ALiBi<decltype(t)>>(m.n_head, false); });
  all.gpu = [](const PEConfig&, const ModelConfig& m) { return GpuPE{cuda::PEKind::kNone, 0, {}, alibi_slopes(m.n_head, false), {}}; };
  PEKindInfo half("alibi-half", "ALiBi on half the heads, the others without a positional signal (the paper's Table 9)", 50);
  half.cpu([](auto t, const PEConfig&, const ModelConfig& m) { return std::make_unique<ALiBi<decltype(t)>>(m.n_head, true); });
  half.gpu = [](const PEConfig&, const ModelConfig& m) { return GpuPE{cuda::PEKind::kNone, 0, {}, alibi_slopes(m.n_head, true), {}}; };
  return {all, half};
}

}  // namespace popebench
