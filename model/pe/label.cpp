#include "model/pe/label.hpp"

#include "common/error.hpp"

namespace popebench {

std::string pe_label(const PEConfig& pe) {
  std::string l = pe.kind;
  if (pe.kind == "pope" && pe.delta_init == DeltaInit::kZero) l += "-delta0";
  if (pe.kind == "pope" && pe.delta_init == DeltaInit::kUniformPositive) l += "-delta2pi";  // a label of its own: no merge
                                                                                     // takes it for the default
  if (pe.rope_scaling != RopeScaling::kNone) l += "+" + word(pe.rope_scaling);
  return l;
}

PEConfig pe_from_label(const std::string& label, const PEConfig& base) {
  if (label.find('+') != std::string::npos)
    throw UserError("--pe " + label + ": test-time RoPE variants are not trained; they are evaluated for every rope run "
                    "(--rope-variants)");
  PEConfig p = base;
  p.kind = label;
  if (label == "pope-delta0" || label == "pope-delta2pi") {
    p.kind = "pope";
    p.delta_init = label == "pope-delta0" ? DeltaInit::kZero : DeltaInit::kUniformPositive;
  }
  p.validate();
  return p;
}

}  // namespace popebench
