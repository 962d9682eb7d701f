#include "models/pe_alibi.hpp"

#include "models/pe_registry.hpp"

namespace popebench {
namespace {
template <typename T, bool kHalf>
std::unique_ptr<PositionalEmbedding<T>> make(const PEConfig&, const ModelConfig& m) {
  return std::make_unique<ALiBi<T>>(m.n_head, kHalf);
}
template <bool kHalf>
GpuPE gpu(const PEConfig&, const ModelConfig& m) {  // no change to q and k: slopes on the scores
  GpuPE g;
  g.slopes = alibi_slopes(m.n_head, kHalf);
  return g;
}
PEKindInfo kind(bool half) {
  PEKindInfo k;
  k.name = half ? "alibi-half" : "alibi";
  k.help = half ? "ALiBi on half the heads, the others without a positional signal (the paper's Table 9)"
                : "a linear distance bias on the scores, one slope per head";
  k.rank = half ? 50 : 40;
  k.make_float = half ? make<float, true> : make<float, false>;
  k.make_double = half ? make<double, true> : make<double, false>;
  k.gpu = half ? gpu<true> : gpu<false>;
  return k;
}
}  // namespace

std::vector<PEKindInfo> pe_kinds_alibi() { return {kind(false), kind(true)}; }

}  // namespace popebench
