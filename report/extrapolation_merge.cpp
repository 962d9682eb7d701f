#include "report/extrapolation_merge.hpp"

#include <filesystem>
#include <set>
#include <utility>

#include "common/error.hpp"
#include "common/json_int.hpp"
#include "report/extrapolation.hpp"
#include "report/summary_rule.hpp"

namespace popebench {
namespace {

// Runs f on one input; a field missing or of the wrong type becomes a UserError naming its file
// (rather than the CLI's "internal error" for a JSON exception).
template <typename F>
void for_input(const ExtrapolationInput& in, F&& f) {
  try {
    f();
  } catch (const nlohmann::json::exception& e) {
    throw UserError(in.dir + "/extrapolation.json is not as `popebench extrapolate` writes it (" + e.what() + ")");
  }
}

}  // namespace

nlohmann::json merge_extrapolations(const std::vector<ExtrapolationInput>& inputs, const std::string& out_dir) {
  namespace fs = std::filesystem;
  if (inputs.empty()) throw UserError("nothing to merge");
  const ExtrapolationInput& first = inputs.front();
  for (const auto& in : inputs)
    for_input(in, [&] {
      check_extrapolation_doc(in.doc, in.dir + "/extrapolation.json");
      for (const char* field : {"task", "buckets", "extrapolation"})
        if (in.doc.at(field) != first.doc.at(field))
          throw UserError(in.dir + " and " + first.dir + " differ in " + field + "; only runs of one setting merge");
      // The text task's corpus: its folder is in task, and its contents by digest here, so that a
      // corpus changed between two commands is not averaged as one.
      auto digest = [](const nlohmann::json& doc) { return doc.value("corpus", nlohmann::json::object()).value("digest", ""); };
      if (digest(in.doc) != digest(first.doc))
        throw UserError(in.dir + " and " + first.dir + " read different text corpora (their digests differ)");
      if (shared_run_config(in.doc.at("train_config")) != shared_run_config(first.doc.at("train_config")))
        throw UserError(in.dir + " and " + first.dir + " were trained differently (train_config beyond PE and seed)");
    });

  std::vector<nlohmann::json> rows;
  SummaryRows rule;  // train configs compared above; here the rule's (label, seed) part
  nlohmann::json sources = nlohmann::json::array();
  for (const auto& in : inputs)
    for_input(in, [&] {
      for (nlohmann::json row : in.doc.at("rows")) {
        const std::string label = row.at("label");
        const uint64_t seed = json_int<uint64_t>(row, "seed");
        rule.add_seed(label, seed, in.dir);
        const fs::path run = fs::path(in.dir) / row.at("run").get<std::string>();
        row["run"] = fs::relative(run, out_dir).generic_string();
        rows.push_back(std::move(row));
      }
      sources.push_back({{"dir", fs::relative(in.dir, out_dir).generic_string()},
                         {"command", in.doc.value("command", "")},
                         {"git_commit", in.doc.value("git_commit", "")},
                         {"date", in.doc.value("environment", nlohmann::json::object()).value("date", "")}});
    });
  nlohmann::json out = first.doc;
  out.erase("environment");  // per input, in merged_from: the runs ran on their inputs' machines
  out["table"] = summarise_extrapolation(rows);
  out["rows"] = rows;
  out["merged_from"] = sources;
  return out;
}

}  // namespace popebench
