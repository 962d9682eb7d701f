#include "model/pe/pe_absolute.hpp"

#include "model/pe/pe_registry.hpp"

namespace popebench {

std::vector<PEKindInfo> pe_kinds_absolute() {
  PEKindInfo s("sinusoidal", "fixed sinusoidal absolute positions added to the token embedding", 60);
  s.cpu([](auto t, const PEConfig&, const ModelConfig& m) {
    return std::make_unique<AbsolutePE<decltype(t)>>(false, m.max_len, m.d_model);
  });
  // a fixed table, added in the GPU's embedding kernel
  s.gpu = [](const PEConfig&, const ModelConfig& m) { return GpuPE{cuda::PEKind::kNone, 0, {}, {}, sinusoidal_table(m.max_len, m.d_model)}; };
  PEKindInfo l("learned", "a learned absolute position table added to the token embedding", 70);
  l.cpu([](auto t, const PEConfig&, const ModelConfig& m) {
    return std::make_unique<AbsolutePE<decltype(t)>>(true, m.max_len, m.d_model);
  });
  l.gpu = [](const PEConfig&, const ModelConfig&) { return GpuPE{}; };  // the table is a model parameter
  return {s, l};
}

}  // namespace popebench
