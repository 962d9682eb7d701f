#include "models/pe_absolute.hpp"

#include "models/pe_registry.hpp"

namespace popebench {
namespace {
template <typename T, bool kLearned>
std::unique_ptr<PositionalEmbedding<T>> make(const PEConfig&, const ModelConfig& m) {
  return std::make_unique<AbsolutePE<T>>(kLearned, m.max_len, m.d_model);
}
GpuPE sinusoidal_gpu(const PEConfig&, const ModelConfig& m) {  // a fixed table added in the embedding kernel
  GpuPE g;
  g.table = sinusoidal_table(m.max_len, m.d_model);
  return g;
}
GpuPE learned_gpu(const PEConfig&, const ModelConfig&) { return {}; }  // the table is a parameter
}  // namespace

std::vector<PEKindInfo> pe_kinds_absolute() {
  PEKindInfo s;
  s.name = "sinusoidal";
  s.help = "fixed sinusoidal absolute positions added to the token embedding";
  s.rank = 60;
  s.make_float = make<float, false>;
  s.make_double = make<double, false>;
  s.gpu = sinusoidal_gpu;
  PEKindInfo l;
  l.name = "learned";
  l.help = "a learned absolute position table added to the token embedding";
  l.rank = 70;
  l.make_float = make<float, true>;
  l.make_double = make<double, true>;
  l.gpu = learned_gpu;
  return {s, l};
}

}  // namespace popebench
