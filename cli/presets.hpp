// Named configurations for `reproduce`. A preset sets defaults; any option given on the command
// line overrides it. "paper" is SPEC §1-§4 exactly; "quick" is the reduced experiment that runs
// in minutes on a 2-core CPU (how it was chosen: bench/NOTES.md and results/quick/README.md).
#pragma once
#include <string>

#include "models/config.hpp"

namespace popebench::cli {

// Throws UserError for an unknown name.
void apply_preset(const std::string& name, RunConfig& c, std::vector<uint64_t>& seeds);

}  // namespace popebench::cli
