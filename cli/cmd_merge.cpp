// popebench merge: combines run JSON files (e.g. from several --shard jobs) into the summary
// JSON and the Markdown table, as `reproduce` writes them; or the folders of several
// `extrapolate` commands (more seeds, more PEs) into one extrapolation table.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/command_line.hpp"
#include "common/files.hpp"
#include "common/utf8.hpp"
#include "common/version.hpp"
#include "common/json_read.hpp"
#include "report/extrapolation.hpp"
#include "report/extrapolation_merge.hpp"
#include "train/run_json.hpp"
#include "report/summary.hpp"

namespace popebench::cli {
namespace {

bool is_extrapolation_dir(const std::string& in) {
  return std::filesystem::is_regular_file(std::filesystem::path(in) / "extrapolation.json");
}

// Markdown beside the JSON: out.json -> out.md.
std::string markdown_path(const std::string& json_path) {
  const bool ext = json_path.size() > 5 && json_path.substr(json_path.size() - 5) == ".json";
  return (ext ? json_path.substr(0, json_path.size() - 5) : json_path) + ".md";
}

// The two files merge writes, OUT and its Markdown beside it, refused over any input it read.
void refuse_over_inputs(const std::string& out, const std::vector<std::string>& read) {
  std::vector<NamedPath> inputs;
  for (const auto& f : read) inputs.push_back({f, "an input"});
  refuse_outputs_over_inputs({{out, "--out"}, {markdown_path(out), "the Markdown table"}}, inputs);
}

int merge_extrapolation_dirs(const std::vector<std::string>& dirs, const std::string& out, const std::string& command) {
  namespace fs = std::filesystem;
  if (out.empty()) throw UserError("--out is needed to merge extrapolation folders (e.g. DIR/extrapolation.json)");
  std::vector<ExtrapolationInput> inputs;
  for (const auto& d : dirs) {
    if (!is_extrapolation_dir(d)) throw UserError(d + " holds no extrapolation.json; run folders and extrapolation folders do not mix");
    const std::string f = d + "/extrapolation.json";
    inputs.push_back({d, read_json_file(f)});
  }
  std::vector<std::string> read;
  for (const auto& d : dirs) read.push_back(d + "/extrapolation.json");
  refuse_over_inputs(out, read);
  const std::string out_dir = fs::path(out).parent_path().empty() ? "." : fs::path(out).parent_path().string();
  nlohmann::json merged = merge_extrapolations(inputs, out_dir);  // refusals before anything is made
  make_dirs(out_dir);
  merged["command"] = command;
  merged["popebench_version"] = kPopebenchVersion;
  merged["git_commit"] = git_commit();
  write_file_atomic(out, merged.dump(2) + "\n");
  const std::string md = extrapolation_heading(merged) + extrapolation_markdown(merged["table"]);
  write_file_atomic(markdown_path(out), md);
  std::printf("%s\nwrote %s\n", md.c_str(), out.c_str());
  return 0;
}

}  // namespace

Runner register_merge(CLI::App& app) {
  struct State {
    std::vector<std::string> inputs;
    std::string out, title = "Indirect Indexing";
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("merge", "Combine run JSON files (or directories of them) into summary.json and a table");
  cmd->add_option("inputs", st->inputs, "Run JSON files or directories, or `extrapolate` output folders")->required();
  cmd->add_option("--out", st->out,
                  "Summary JSON to write (default: DIR/summary.json for one directory; needed for extrapolation folders)")->check(non_empty());
  cmd->add_option("--title", st->title, "Table title")->default_val(st->title);
  return [st](const std::string& command) {
    namespace fs = std::filesystem;
    if (!st->out.empty()) check_output_path(st->out, "--out");
    if (std::any_of(st->inputs.begin(), st->inputs.end(), is_extrapolation_dir)) return merge_extrapolation_dirs(st->inputs, st->out, command);
    std::vector<std::string> files;
    for (const auto& in : st->inputs) {
      if (fs::is_directory(in)) {
        for (const auto& e : fs::directory_iterator(in)) {
          std::string name = e.path().filename().string();
          if (e.path().extension() == ".json" && name != "summary.json") {
            require_utf8_file_name(e.path().string(), in);
            files.push_back(e.path().string());
          }
        }
      } else if (fs::exists(in)) {
        files.push_back(in);
      } else {
        throw UserError("no such file or directory: " + in);
      }
    }
    std::sort(files.begin(), files.end());
    std::vector<nlohmann::json> runs;
    std::vector<std::string> names, used;  // file names for the summary, paths for messages
    for (const auto& f : files) {
      RunRecord r = read_run_file(f);
      if (r.status != "complete") {
        std::fprintf(stderr, "popebench: %s is %s; left out\n", f.c_str(), r.status.c_str());
        continue;
      }
      runs.push_back(r.raw);
      names.push_back(fs::path(f).filename().string());
      used.push_back(f);
    }
    if (runs.empty()) throw UserError("no complete run JSON among the inputs");
    auto summary = summarise_runs(runs, st->title, used);
    summary["command"] = command;
    summary["runs"] = names;
    std::string out = st->out;
    if (out.empty()) {
      if (st->inputs.size() != 1 || !fs::is_directory(st->inputs[0])) throw UserError("--out is needed unless the input is one directory");
      out = st->inputs[0] + "/summary.json";
    }
    refuse_over_inputs(out, files);
    if (!fs::path(out).parent_path().empty()) make_dirs(fs::path(out).parent_path().string());
    write_file_atomic(out, summary.dump(2) + "\n");
    std::string md = summary_markdown(summary);
    write_file_atomic(markdown_path(out), md);
    std::printf("%s\nwrote %s\n", md.c_str(), out.c_str());
    return 0;
  };
}

}  // namespace popebench::cli
