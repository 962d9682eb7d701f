// The rule every summary keeps (summarise_runs for `reproduce`, `sweep` and `merge`, and the merge
// of extrapolation folders): a row is a set of distinct runs that differ only in seed, and the
// rows of one table differ only in their positional embedding. Anything else is refused with one
// line naming the inputs, so that no table counts a run twice or averages runs of different
// settings.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace popebench {

// A run config with what may differ between the runs of one table taken out: the PE (it makes
// the rows) and the seed (it makes the runs of a row). Normalised first (normalized_config), so
// files written before an option existed compare equal to new ones.
nlohmann::json shared_run_config(const nlohmann::json& config);
// The PE part of a run config, normalised the same way.
nlohmann::json run_pe_config(const nlohmann::json& config);

class SummaryRows {
 public:
  // Adds one run of row `label` from `source` (a file name, for messages). Throws UserError when
  // the row already has this seed, when the run's PE config differs from the row's, or when its
  // shared config differs from the table's first run.
  void add(const std::string& label, uint64_t seed, const nlohmann::json& pe_config, const nlohmann::json& shared_config,
           const std::string& source);
  // Only the (label, seed) part of the rule, for inputs whose configs were compared elsewhere.
  void add_seed(const std::string& label, uint64_t seed, const std::string& source);

 private:
  std::map<std::pair<std::string, uint64_t>, std::string> seen_;    // (label, seed) -> source
  std::map<std::string, std::pair<nlohmann::json, std::string>> pe_;  // label -> (PE config, source)
  nlohmann::json shared_;
  std::string shared_source_;
};

}  // namespace popebench
