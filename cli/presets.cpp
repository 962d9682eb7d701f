#include "cli/presets.hpp"

#include "common/files.hpp"

namespace popebench::cli {

void apply_preset(const std::string& name, RunConfig& c, std::vector<uint64_t>& seeds) {
  if (name == "paper") {
    c = RunConfig{};
    seeds = {0, 1, 2};
    return;
  }
  if (name == "quick") {
    c = RunConfig{};
    seeds = {0, 1};
    c.train.steps = 2000;
    return;
  }
  throw UserError("unknown preset '" + name + "' (known: paper, quick)");
}

}  // namespace popebench::cli
