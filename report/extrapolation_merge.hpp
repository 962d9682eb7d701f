// One extrapolation table from several `popebench extrapolate` commands: more seeds of some PEs,
// or more PEs, trained in separate device calls. The runs stay where their commands wrote them;
// the merged document points at them.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace popebench {

struct ExtrapolationInput {
  std::string dir;      // the folder `extrapolate --out` wrote
  nlohmann::json doc;   // its extrapolation.json
};

// Inputs must agree on the task, the buckets, the extrapolation options and the training config
// (its PE and seed aside, which each command sets per run); a (PE label, seed) row in two inputs is
// refused, so that no seed counts twice. Both are UserErrors naming the inputs. Each row's "run"
// (relative to its input) is rewritten relative to out_dir; "merged_from" lists every input's
// folder, command, git commit and date. Schema "popebench.extrapolation", as the inputs.
nlohmann::json merge_extrapolations(const std::vector<ExtrapolationInput>& inputs, const std::string& out_dir);

}  // namespace popebench
