// popebench export: run JSONs (files, or folders searched recursively) flattened into one tidy
// CSV (report/export_csv.hpp): a row per run, or with --curves a row per curve point; with
// --extrapolation, extrapolation tables instead, a row per evaluated run and length bucket.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/command_line.hpp"
#include "common/files.hpp"
#include "common/utf8.hpp"
#include "common/json_read.hpp"
#include "report/export_csv.hpp"

namespace popebench::cli {
namespace {

// (file, document) for every input: a file as given (its reader judges what it is), and each
// folder's .json files whose schema is `schema` (searched recursively, in name order; the other
// documents beside them, summaries, inspect files, are skipped).
std::vector<std::pair<std::string, nlohmann::json>> gather(const std::vector<std::string>& inputs, const std::string& schema) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, nlohmann::json>> docs;
  for (const auto& in : inputs) {
    if (fs::is_directory(in)) {
      std::vector<std::string> files;
      for (const auto& e : fs::recursive_directory_iterator(in))
        if (e.is_regular_file() && e.path().extension() == ".json") {
          require_utf8_file_name(e.path().string(), in);
          files.push_back(e.path().string());
        }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        nlohmann::json j;
        try {
          j = read_json_file(f);
        } catch (const UserError&) {  // a folder's other JSON files are not ours to judge
          continue;
        }
        if (j.is_object() && j.value("schema", "") == schema) docs.emplace_back(f, std::move(j));
      }
    } else if (fs::exists(in)) {
      docs.emplace_back(in, read_json_file(in));
    } else {
      throw UserError("no such file or directory: " + in);
    }
  }
  return docs;
}

}  // namespace

Runner register_export(CLI::App& app) {
  struct State {
    std::vector<std::string> inputs;
    std::string out;
    bool curves = false, extrapolation = false, steps = false;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("export", "Flatten run JSONs into one CSV: a row per run (or per curve point), every config field a column");
  cmd->add_option("inputs", st->inputs, "Run JSON files, or folders (searched recursively; other JSON files in them are skipped)")
      ->required();
  cmd->add_option("--out", st->out, "CSV file to write")->required()->check(non_empty());
  cmd->add_flag("--curves", st->curves, "A row per curve point (step, lr, losses, accuracies) instead of per run");
  cmd->add_flag("--steps", st->steps,
                "A row per row of each run's step log (RUN.steps.csv: step, lr, loss, grad norm, batch accuracy) instead of per run");
  cmd->add_flag("--extrapolation", st->extrapolation,
                "Export extrapolation tables (extrapolation.json of extrapolate or merge) instead of runs: a row per "
                "evaluated run and length bucket");
  return [st](const std::string&) {
    namespace fs = std::filesystem;
    check_output_path(st->out, "--out");
    if (int(st->curves) + int(st->extrapolation) + int(st->steps) > 1)
      throw UserError("--curves, --steps and --extrapolation are different tables: give one");
    std::vector<NamedPath> inputs;  // the files named, and every document read from a folder
    for (const auto& in : st->inputs) inputs.push_back({in, "an input"});
    auto refuse_over = [&](const auto& docs) {
      for (const auto& d : docs) inputs.push_back({d.first, "an input"});
      refuse_outputs_over_inputs({{st->out, "--out"}}, inputs);
    };
    auto write_csv = [&](const std::string& csv, const std::string& what) {
      const auto parent = fs::path(st->out).parent_path();
      if (!parent.empty()) make_dirs(parent.string());
      write_file_atomic(st->out, csv);
      std::printf("wrote %s: %s, %zu rows\n", st->out.c_str(), what.c_str(),
                  static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')) - 1);
    };
    if (st->extrapolation) {
      std::vector<ExportedExtrapolation> tables;
      auto docs = gather(st->inputs, "popebench.extrapolation");
      refuse_over(docs);
      for (auto& [file, doc] : docs) tables.push_back({file, read_extrapolation(doc, file)});
      if (tables.empty()) throw UserError("no extrapolation JSON among the inputs");
      write_csv(extrapolation_csv(tables), std::to_string(tables.size()) + " extrapolation tables");
      return 0;
    }
    std::vector<ExportedRun> runs;
    auto docs = gather(st->inputs, "popebench.run");
    refuse_over(docs);
    for (auto& [file, doc] : docs) runs.push_back({file, read_run(doc, file)});
    if (runs.empty()) throw UserError("no run JSON among the inputs");
    if (st->steps) {
      write_csv(step_logs_csv(runs), "the step logs of " + std::to_string(runs.size()) + " runs");
      return 0;
    }
    write_csv(runs_csv(runs, st->curves), std::to_string(runs.size()) + " runs");
    return 0;
  };
}

}  // namespace popebench::cli
