// popebench merge: combines run JSON files (e.g. from several --shard jobs) into the summary
// JSON and the Markdown table, as `reproduce` writes them.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/run_options.hpp"
#include "common/files.hpp"
#include "models/run_json.hpp"
#include "models/summary.hpp"

namespace popebench::cli {

Runner register_merge(CLI::App& app) {
  struct State {
    std::vector<std::string> inputs;
    std::string out, title = "Indirect Indexing";
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("merge", "Combine run JSON files (or directories of them) into summary.json and a table");
  cmd->add_option("inputs", st->inputs, "Run JSON files or directories")->required();
  cmd->add_option("--out", st->out, "Summary JSON to write (default: DIR/summary.json for one directory)");
  cmd->add_option("--title", st->title, "Table title")->default_val(st->title);
  return [st]() {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const auto& in : st->inputs) {
      if (fs::is_directory(in)) {
        for (const auto& e : fs::directory_iterator(in)) {
          std::string name = e.path().filename().string();
          if (e.path().extension() == ".json" && name != "summary.json") files.push_back(e.path().string());
        }
      } else if (fs::exists(in)) {
        files.push_back(in);
      } else {
        throw UserError("no such file or directory: " + in);
      }
    }
    std::sort(files.begin(), files.end());
    std::vector<nlohmann::json> runs;
    std::vector<std::string> names;
    for (const auto& f : files) {
      RunRecord r = read_run_file(f);
      if (r.status != "complete") {
        std::fprintf(stderr, "popebench: %s is %s; left out\n", f.c_str(), r.status.c_str());
        continue;
      }
      runs.push_back(r.raw);
      names.push_back(fs::path(f).filename().string());
    }
    if (runs.empty()) throw UserError("no complete run JSON among the inputs");
    auto summary = summarise_runs(runs, st->title);
    summary["command"] = g_command_line;
    summary["runs"] = names;
    std::string out = st->out;
    if (out.empty()) {
      if (st->inputs.size() != 1 || !fs::is_directory(st->inputs[0])) throw UserError("--out is needed unless the input is one directory");
      out = st->inputs[0] + "/summary.json";
    }
    write_file_atomic(out, summary.dump(2) + "\n");
    std::string md = summary_markdown(summary);
    std::string md_path = out.size() > 5 && out.substr(out.size() - 5) == ".json" ? out.substr(0, out.size() - 5) + ".md" : out + ".md";
    write_file_atomic(md_path, md);
    std::printf("%s\nwrote %s\n", md.c_str(), out.c_str());
    return 0;
  };
}

}  // namespace popebench::cli
