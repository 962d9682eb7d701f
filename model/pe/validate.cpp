// PEConfig::validate, here rather than with the config (config/config.cpp): which options apply
// to a PE is the registry's knowledge (PEKindInfo's flags), so the check lives beside it and the
// config does not include the PE registry.
#include <cmath>
#include <string>

#include "common/error.hpp"
#include "config/config.hpp"
#include "model/pe/pe_registry.hpp"

namespace popebench {

namespace {
[[noreturn]] void bad(const std::string& m) { throw UserError(m); }
}  // namespace

void PEConfig::validate() const {
  const PEKindInfo& k = pe_kind(kind);  // an unknown kind: the error names the known ones
  if (!(base > 1) || !std::isfinite(base)) bad("PE base must be a finite number > 1");
  if (rope_scaling != RopeScaling::kNone && !k.rope_scaling)
    bad("RoPE scaling " + word(rope_scaling) + " applies to " + pe_kind_list(&PEKindInfo::rope_scaling) + " only (the PE is " +
        kind + ")");
  if (rope_scaling == RopeScaling::kYarn && !k.yarn)
    bad("RoPE scaling yarn applies to " + pe_kind_list(&PEKindInfo::yarn) + " only (the PE is " + kind +
        "): its attention factor scales the rotated channels, a factor of the whole score only where every channel rotates");
  if (!(rope_factor >= 1.0) || rope_factor > 1e4) bad("RoPE scaling factor must be in [1, 10000]");
  if (rope_train_len < 0 || rope_train_len > 1 << 24) bad("RoPE scaling's training length must be in [0, 16777216]");
  if (rope_scaling == RopeScaling::kYarn && rope_train_len < 1) bad("RoPE scaling yarn needs the training length (rope_train_len)");
  if (freqs != FreqOrder::kDecreasing && !k.frequencies)
    bad("--pe-freqs applies to " + pe_kind_list(&PEKindInfo::frequencies) + " (the PE is " + kind + ")");
  if (freqs != FreqOrder::kDecreasing && rope_scaling != RopeScaling::kNone)
    bad("RoPE scaling " + word(rope_scaling) + " is defined for decreasing frequencies only");
  if (delta_bound != DeltaBound::kClamp && !k.delta)
    bad("--delta-bound applies to " + pe_kind_list(&PEKindInfo::delta) + " only (the PE is " + kind + ")");
  if (delta_shared && !k.delta)
    bad("--delta-shared applies to " + pe_kind_list(&PEKindInfo::delta) + " only (the PE is " + kind + ")");
}

}  // namespace popebench
