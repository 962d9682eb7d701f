// popebench reproduce indirect-indexing: trains every (PE, seed) of the experiment, one run JSON
// each, then writes the summary table. Runs whose JSON is complete are skipped; an unfinished
// one resumes from its checkpoint, so a stopped sweep loses no finished work.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/job_pool.hpp"
#include "cli/presets.hpp"
#include "cli/run_options.hpp"
#include "common/files.hpp"
#include "models/summary.hpp"

namespace popebench::cli {

Runner register_reproduce(CLI::App& app, const std::string& preset) {
  struct State {
    RunOptions run;
    std::string task = "indirect-indexing", preset, pes = "rope,pope", seeds, out;
    std::vector<uint64_t> preset_seeds;
    int concurrent = 1;
    double time_limit = 0;
    std::string shard;
  };
  auto st = std::make_shared<State>();
  st->preset = preset.empty() ? "paper" : preset;
  auto* cmd = app.add_subcommand("reproduce", "Run the paper's experiment (all PEs x seeds) and write its table");
  cmd->add_option("experiment", st->task, "Experiment to reproduce")->check(CLI::IsMember({"indirect-indexing"}))
      ->default_val(st->task);
  cmd->add_option("--preset", st->preset, "paper (SPEC, 100k steps) or quick (minutes on a CPU)")->default_val("paper");
  cmd->add_option("--pe", st->pes, "Comma-separated PEs to run, or all (Table 1 and v3 Table 9 rows)")->default_val(st->pes);
  cmd->add_option("--seeds", st->seeds, "Comma-separated seeds (default: the preset's)");
  cmd->add_option("--out", st->out, "Output directory (default: runs/<experiment>_<preset>)");
  cmd->add_option("--concurrent", st->concurrent, "Runs trained at once (threads; on a GPU each has its own stream)")
      ->default_val(1)->check(CLI::Range(1, 64));
  cmd->add_option("--time-limit", st->time_limit,
                  "Seconds; then every unfinished run checkpoints and the command exits 130 (rerun to continue)")
      ->default_val(0)->check(CLI::Range(0.0, 1e7));
  cmd->add_option("--shard", st->shard, "i/n: run only the i-th of n parts of the run list (0 <= i < n)");
  add_run_options(*cmd, st->run, /*with_pe_and_seed=*/false);
  // Options registered above took the paper defaults; the preset replaces them here, and what the
  // user gives on the command line is applied over it at parse time.
  try {
    // Not st->preset: default_val above has already assigned "paper" to it.
    RunConfig c;
    apply_preset(preset.empty() ? "paper" : preset, c, st->preset_seeds);
    st->run.cfg = c;
  } catch (const UserError&) {
    // reported when the command runs, as every other bad value
  }
  return [st]() {
    RunConfig dummy;
    std::vector<uint64_t> seeds;
    apply_preset(st->preset, dummy, seeds);  // validates the name
    if (!st->seeds.empty()) seeds = parse_seeds(st->seeds);
    // "all": the paper's Table 1 and v3 Table 9 rows.
    auto pes = st->pes == "all" ? std::vector<std::string>{"rope", "pope", "rope-half", "alibi-half", "learned", "sinusoidal"}
                                : split_list(st->pes);
    if (pes.empty() || seeds.empty()) throw UserError("nothing to run: --pe and --seeds must not be empty");
    for (const auto& pe : pes) {
      PEConfig p;
      p.kind = pe;
      p.validate();
    }
    finish_run_options(st->run);
    std::string dir = st->out.empty() ? "runs/indirect_indexing_" + st->preset : st->out;
    make_dirs(dir);
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
    std::vector<std::string> all_files;
    size_t index = 0;
    for (const auto& pe : pes)
      for (uint64_t seed : seeds) {
        std::string file = pe + "_seed" + std::to_string(seed) + ".json";
        all_files.push_back(file);
        if (index++ % shard_n != static_cast<size_t>(shard_i)) continue;
        TrainOptions o;
        o.cfg = st->run.cfg;
        o.cfg.pe.kind = pe;
        o.cfg.train.seed = seed;
        o.data_dir = st->run.data_dir;
        o.out_json = dir + "/" + file;
        o.resume = true;
        o.threads = st->concurrent > 1 ? std::max(1u, std::thread::hardware_concurrency() / st->concurrent) : st->run.threads;
        o.log_every = st->run.log_every;
        o.command = g_command_line;
        o.label = st->concurrent > 1 ? pe + "/" + std::to_string(seed) : "";
        o.skip_if_complete = true;  // a rerun of the sweep trains only what is not finished
        if (st->time_limit > 0)
          o.deadline = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() +
                       st->time_limit;
        jobs.push_back({pe, seed, o});
      }
    std::vector<nlohmann::json> results(jobs.size());
    std::mutex log_mu;
    const bool finished = run_jobs(
        jobs.size(), st->concurrent,
        [&](size_t k) {
          Job& j = jobs[k];
          {
            std::lock_guard<std::mutex> g(log_mu);
            std::fprintf(stderr, "popebench: %s seed %llu -> %s\n", j.pe.c_str(),
                         static_cast<unsigned long long>(j.seed), j.opt.out_json.c_str());
          }
          results[k] = train(j.opt);
          std::lock_guard<std::mutex> g(log_mu);
          std::fprintf(stderr, "popebench: %s seed %llu test acc %.2f%%\n", j.pe.c_str(),
                       static_cast<unsigned long long>(j.seed), 100 * results[k]["final"]["test"]["acc"].get<double>());
        },
        [&](size_t k) { return jobs[k].pe + " seed " + std::to_string(jobs[k].seed); });
    if (!finished) {
      std::fprintf(stderr, "popebench: stopped before every run finished; rerun the same command to continue\n");
      return 130;
    }
    if (shard_n > 1) {
      std::printf("shard %d/%d done: %zu runs in %s (combine the shards with `popebench merge %s`)\n", shard_i, shard_n,
                  jobs.size(), dir.c_str(), dir.c_str());
      return 0;
    }
    std::vector<nlohmann::json> runs(results.begin(), results.end());
    auto summary = summarise_runs(runs, "Indirect Indexing, preset " + st->preset);
    summary["preset"] = st->preset;
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
