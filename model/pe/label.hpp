// A PE's label: its kind, plus what sets a run of it apart from the kind's default where that is
// a PE of its own in the tables (PoPE with delta initialised to zero, "pope-delta0", or drawn in
// [0, 2 pi), "pope-delta2pi"), plus "+scaling" for RoPE's frequency scalings ("rope+yarn"). The
// labels name rows of the extrapolation tables and the PEs a sweep or `extrapolate --pe` trains.
#pragma once
#include <string>

#include "config/config.hpp"

namespace popebench {

std::string pe_label(const PEConfig& pe);
// The PE a trainable label names ("pope-delta0", "pope-delta2pi" or a PE kind), over `base`'s
// other fields; UserError for an unknown kind or a test-time variant ("rope+pi": evaluated, not
// trained).
PEConfig pe_from_label(const std::string& label, const PEConfig& base);

}  // namespace popebench
