// popebench reproduce indirect-indexing: trains every (PE, seed) of the experiment, one run JSON
// each, then writes the summary table. Runs whose JSON is complete are skipped; an unfinished
// one resumes from its checkpoint, so a stopped sweep loses no finished work.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "cli/commands.hpp"
#include "cli/job_pool.hpp"
#include "cli/presets.hpp"
#include "cli/run_options.hpp"
#include "common/files.hpp"
#include "models/stop_signal.hpp"
#include "models/summary.hpp"

namespace popebench::cli {

Runner register_reproduce(CLI::App& app, const std::string& preset, bool on_cpu) {
  const bool quick_for_cpu = preset.empty() && on_cpu;
  struct State {
    RunOptions run;
    SweepOptions sweep;
    std::string task = "indirect-indexing", pes = "rope,pope", out, shard;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("reproduce", "Run the paper's experiment (all PEs x seeds) and write its table");
  cmd->add_option("experiment", st->task, "Experiment to reproduce")->check(CLI::IsMember({"indirect-indexing"}))
      ->default_val(st->task);
  cmd->add_option("--pe", st->pes, "Comma-separated PEs to run, or all (Table 1 and v3 Table 9 rows)")->default_val(st->pes)->check(non_empty());
  cmd->add_option("--out", st->out, "Output directory (default: runs/<experiment>_<preset>)")->check(non_empty());
  cmd->add_option("--shard", st->shard, "i/n: run only the i-th of n parts of the run list (0 <= i < n)");
  add_sweep_options(*cmd, st->sweep, st->run, quick_for_cpu ? "quick" : "paper", preset,
                    "paper (the paper's recipe, docs/spec.md, 100k steps; the default with a GPU) or quick (minutes on a CPU; the default without)");
  add_batch_runs_option(*cmd, st->sweep);
  return [st, quick_for_cpu]() {
    if (quick_for_cpu && st->sweep.preset == "quick")
      std::fprintf(stderr,
                   "popebench: training on the CPU, so the quick preset (minutes); the paper's experiment is --preset paper "
                   "(about a month on two cores)\n");
    std::vector<uint64_t> seeds = sweep_seeds(st->sweep);
    // "all": the paper's Table 1 and v3 Table 9 rows.
    auto pes = st->pes == "all" ? paper_indirect_indexing_pes() : parse_distinct_list(st->pes, "--pe");
    if (pes.empty() || seeds.empty()) throw UserError("nothing to run: --pe and --seeds must not be empty");
    for (const auto& pe : pes) {
      PEConfig p;
      p.kind = pe;
      p.validate();
    }
    finish_run_options(st->run);
    check_sweep_gpus(st->sweep, st->run.cfg);
    std::string dir = st->out.empty() ? "runs/indirect_indexing_" + st->sweep.preset : st->out;
    if (!st->run.print_config) make_dirs(dir);
    int shard_i = 0, shard_n = 1;
    if (!st->shard.empty()) {
      char extra;
      if (std::sscanf(st->shard.c_str(), "%d/%d%c", &shard_i, &shard_n, &extra) != 2 || shard_n < 1 || shard_i < 0 ||
          shard_i >= shard_n)
        throw UserError("--shard must be i/n with 0 <= i < n (got '" + st->shard + "')");
    }
    // The run list: every (PE, seed), PE-major; a shard takes every n-th entry from its index.
    struct Job {
      std::string pe;
      uint64_t seed;
      TrainOptions opt;
    };
    std::vector<Job> jobs;
    const double deadline = sweep_deadline(st->sweep);
    std::vector<std::string> all_files;
    size_t index = 0;
    for (const auto& pe : pes)
      for (uint64_t seed : seeds) {
        std::string file = pe + "_seed" + std::to_string(seed) + ".json";
        all_files.push_back(file);
        if (index++ % shard_n != static_cast<size_t>(shard_i)) continue;
        RunConfig cfg = st->run.cfg;
        cfg.pe.kind = pe;
        cfg.train.seed = seed;
        TrainOptions o = sweep_run_options(st->sweep, st->run, cfg, dir + "/" + file,
                                           sweep_runs_at_once(st->sweep) ? pe + "/" + std::to_string(seed) : "", deadline);
        jobs.push_back({pe, seed, o});
      }
    std::vector<TrainOptions> runs_to_train;
    for (const auto& j : jobs) runs_to_train.push_back(j.opt);
    if (st->run.print_config) {
      print_run_configs(runs_to_train);
      return 0;
    }
    std::vector<nlohmann::json> results;
    const bool finished = run_training_jobs(runs_to_train, st->sweep.concurrent, st->sweep.gpus, results,
                                            [&](size_t k) { return jobs[k].pe + " seed " + std::to_string(jobs[k].seed); },
                                            st->sweep.batch_runs);
    if (!finished) {
      std::fprintf(stderr, "popebench: stopped before every run finished; rerun the same command to continue\n");
      return stopped_exit_code();
    }
    if (shard_n > 1) {
      std::printf("shard %d/%d done: %zu runs in %s (combine the shards with `popebench merge %s`)\n", shard_i, shard_n,
                  jobs.size(), dir.c_str(), dir.c_str());
      return 0;
    }
    std::vector<nlohmann::json> runs(results.begin(), results.end());
    auto summary = summarise_runs(runs, "Indirect Indexing, preset " + st->sweep.preset);
    summary["preset"] = st->sweep.preset;
    summary["command"] = g_command_line;
    summary["runs"] = all_files;
    write_file_atomic(dir + "/summary.json", summary.dump(2) + "\n");
    std::string md = summary_markdown(summary);
    write_file_atomic(dir + "/summary.md", md);
    std::printf("%s\nwrote %s/summary.json\n", md.c_str(), dir.c_str());
    return 0;
  };
}

}  // namespace popebench::cli
