// popebench reproduce indirect-indexing: trains every (PE, seed) of the experiment, one run JSON
// each, then writes the summary table. Runs whose JSON is complete are skipped; an unfinished
// one resumes from its checkpoint, so a stopped sweep loses no finished work.
#include <cstdio>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/presets.hpp"
#include "cli/run_options.hpp"
#include "common/files.hpp"
#include "models/summary.hpp"

namespace popebench::cli {

namespace {
std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}
}  // namespace

Runner register_reproduce(CLI::App& app, const std::string& preset) {
  struct State {
    RunOptions run;
    std::string task = "indirect-indexing", preset, pes = "rope,pope", seeds, out;
    std::vector<uint64_t> preset_seeds;
  };
  auto st = std::make_shared<State>();
  st->preset = preset.empty() ? "paper" : preset;
  auto* cmd = app.add_subcommand("reproduce", "Run the paper's experiment (all PEs x seeds) and write its table");
  cmd->add_option("experiment", st->task, "Experiment to reproduce")->check(CLI::IsMember({"indirect-indexing"}))
      ->default_val(st->task);
  cmd->add_option("--preset", st->preset, "paper (SPEC, 100k steps) or quick (minutes on a CPU)")->default_val("paper");
  cmd->add_option("--pe", st->pes, "Comma-separated PEs to run")->default_val(st->pes);
  cmd->add_option("--seeds", st->seeds, "Comma-separated seeds (default: the preset's)");
  cmd->add_option("--out", st->out, "Output directory (default: runs/<experiment>_<preset>)");
  add_run_options(*cmd, st->run, /*with_pe_and_seed=*/false);
  // Options registered above took the paper defaults; the preset replaces them here, and what the
  // user gives on the command line is applied over it at parse time.
  try {
    RunConfig c;
    apply_preset(st->preset, c, st->preset_seeds);
    st->run.cfg = c;
    st->run.counts[0] = static_cast<int64_t>(c.task.n_train);
    st->run.counts[1] = static_cast<int64_t>(c.task.n_val);
    st->run.counts[2] = static_cast<int64_t>(c.task.n_test);
  } catch (const UserError&) {
    // reported when the command runs, as every other bad value
  }
  return [st]() {
    RunConfig dummy;
    std::vector<uint64_t> seeds;
    apply_preset(st->preset, dummy, seeds);  // validates the name
    if (!st->seeds.empty()) {
      seeds.clear();
      for (const auto& s : split_list(st->seeds)) {
        try {
          size_t pos;
          long long v = std::stoll(s, &pos);
          if (pos != s.size() || v < 0) throw std::invalid_argument(s);
          seeds.push_back(static_cast<uint64_t>(v));
        } catch (const std::exception&) {
          throw UserError("--seeds: '" + s + "' is not a non-negative integer");
        }
      }
    }
    auto pes = split_list(st->pes);
    if (pes.empty() || seeds.empty()) throw UserError("nothing to run: --pe and --seeds must not be empty");
    for (const auto& pe : pes) {
      PEConfig p;
      p.kind = pe;
      p.validate();
    }
    finish_run_options(st->run);
    std::string dir = st->out.empty() ? "runs/indirect_indexing_" + st->preset : st->out;
    make_dirs(dir);
    std::vector<nlohmann::json> runs;
    for (const auto& pe : pes)
      for (uint64_t seed : seeds) {
        TrainOptions o;
        o.cfg = st->run.cfg;
        o.cfg.pe.kind = pe;
        o.cfg.train.seed = seed;
        o.data_dir = st->run.data_dir;
        o.out_json = dir + "/" + pe + "_seed" + std::to_string(seed) + ".json";
        o.resume = true;
        o.threads = st->run.threads;
        o.log_every = st->run.log_every;
        o.command = g_command_line;
        if (file_exists(o.out_json)) {
          auto done = nlohmann::json::parse(read_file(o.out_json), nullptr, false);
          nlohmann::json want = o.cfg;
          if (!done.is_discarded() && done.value("status", "") == "complete" && done["config"]["pe"] == want["pe"] &&
              done["config"]["train"]["seed"] == want["train"]["seed"] && done["config"]["model"] == want["model"] &&
              done["config"]["optim"] == want["optim"] && done["config"]["train"]["steps"] == want["train"]["steps"]) {
            std::fprintf(stderr, "popebench: %s is complete; skipping\n", o.out_json.c_str());
            runs.push_back(done);
            continue;
          }
        }
        std::fprintf(stderr, "popebench: training %s seed %llu -> %s\n", pe.c_str(),
                     static_cast<unsigned long long>(seed), o.out_json.c_str());
        try {
          runs.push_back(train(o));
        } catch (const RunInterrupted& e) {
          std::fprintf(stderr, "popebench: %s (rerun the same reproduce command to continue)\n", e.what());
          return 130;
        }
        std::fprintf(stderr, "popebench: %s seed %llu test acc %.2f%%\n", pe.c_str(),
                     static_cast<unsigned long long>(seed), 100 * runs.back()["final"]["test"]["acc"].get<double>());
      }
    auto summary = summarise_runs(runs, "Indirect Indexing, preset " + st->preset);
    summary["preset"] = st->preset;
    summary["command"] = g_command_line;
    summary["runs"] = nlohmann::json::array();
    for (const auto& pe : pes)
      for (uint64_t seed : seeds) summary["runs"].push_back(pe + "_seed" + std::to_string(seed) + ".json");
    write_file_atomic(dir + "/summary.json", summary.dump(2) + "\n");
    std::string md = summary_markdown(summary);
    write_file_atomic(dir + "/summary.md", md);
    std::printf("%s\nwrote %s/summary.json\n", md.c_str(), dir.c_str());
    return 0;
  };
}

}  // namespace popebench::cli
