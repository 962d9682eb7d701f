// Summaries of several runs: mean +- std of the final test accuracy per positional embedding,
// with the paper's numbers beside ours. Used by `reproduce` (and by `merge` on run JSON files).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace popebench {

// Paper values (test accuracy %, mean and std over 3 seeds), SPEC §1; absent when the paper has none.
struct PaperValue {
  double mean = 0, std = 0;
  bool present = false;
};
PaperValue paper_indirect_indexing(const std::string& pe);
// The PEs the paper reports on Indirect Indexing, in its order: Table 1, then v3 Table 9.
const std::vector<std::string>& paper_indirect_indexing_pes();

// runs: run JSON objects (complete ones). Returns the summary JSON (results/SCHEMA.md).
nlohmann::json summarise_runs(const std::vector<nlohmann::json>& runs, const std::string& title);
std::string summary_markdown(const nlohmann::json& summary);

}  // namespace popebench
