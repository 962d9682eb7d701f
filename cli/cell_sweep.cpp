#include "cli/cell_sweep.hpp"

#include <cstdio>
#include <filesystem>

#include "cli/job_pool.hpp"
#include "common/files.hpp"
#include "kernels/device.hpp"
#include "train/stop_signal.hpp"
#include "report/summary.hpp"
#include "model/pe/label.hpp"

namespace popebench::cli {

Shard parse_shard(const std::string& s) {
  Shard sh;
  if (s.empty()) return sh;
  // Digits only, each number range-checked as a whole (sscanf's %d wrapped 4294967298 to 2).
  const size_t slash = s.find('/');
  auto number = [](const std::string& t) -> long long {
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoll(t);
  };
  const long long i = slash == std::string::npos ? -1 : number(s.substr(0, slash));
  const long long n = slash == std::string::npos ? -1 : number(s.substr(slash + 1));
  if (i < 0 || n < 1 || i >= n) throw UserError("--shard must be i/n with 0 <= i < n < 10^9 (got '" + s + "')");
  sh.index = static_cast<int>(i);
  sh.count = static_cast<int>(n);
  return sh;
}

static std::string cell_dir(const SweepCell& c, const std::string& out) { return c.name.empty() ? out : out + "/" + c.name; }

std::vector<SweepRun> sweep_runs(const std::vector<SweepCell>& cells, const std::string& out, const SweepOptions& sw,
                                 const Shard& shard) {
  std::vector<SweepRun> runs;
  const double deadline = sweep_deadline(sw);
  size_t index = 0;
  for (size_t ci = 0; ci < cells.size(); ++ci) {
    const SweepCell& c = cells[ci];
    for (const auto& pe : c.pes)
      for (uint64_t seed : c.seeds) {
        if (index++ % shard.count != static_cast<size_t>(shard.index)) continue;
        RunConfig cfg = c.run.cfg;
        cfg.pe = pe_from_label(pe, c.run.cfg.pe);
        cfg.train.seed = seed;
        const std::string file = pe + "_seed" + std::to_string(seed) + ".json";
        // A named cell's runs always say which cell they are; a lone cell's only when several
        // runs share the terminal.
        const std::string label = !c.name.empty()        ? c.name + "/" + pe + "/" + std::to_string(seed)
                                  : sweep_runs_at_once(sw) ? pe + "/" + std::to_string(seed)
                                                           : "";
        runs.push_back({ci, pe, seed, sweep_run_options(sw, c.run, cfg, cell_dir(c, out) + "/" + file, label, deadline)});
        runs.back().opt.origin = c.origin;
      }
  }
  return runs;
}

// --batch-runs as the job pool takes it. auto batches what would train at once anyway (more
// than one run at once, on a GPU): on one H200 a batch of 4 or 8 paper-model runs trains 3-7 %
// more run-steps/s than the same runs on separate streams, with the same bits
// (results/bench/h200_popebench_04dd0b9_batch_pinned_4_8.json, bench/log/019-batched-products-on-a-run-alone-s.md).
static Batching batching_for(const SweepOptions& sw) {
  return sw.batch_runs == 0 ? Batching::automatic_at(sw.concurrent) : Batching::up_to(sw.batch_runs);
}

// A plan is refused whole before any run trains (docs/sweep_format.md): every run's config, the
// names of the files it will write and the device it asks for. Each run's own checks in train()
// come too late for a sweep, whose earlier cells would have trained before a later one failed.
// With --data the task comes from the dataset when the run starts, so train() checks those runs.
static void check_runs_up_front(const std::vector<SweepRun>& jobs, const std::vector<SweepCell>& cells) {
  bool wants_gpu = false;
  for (const auto& j : jobs) {
    const std::string& cell = cells[j.cell].name;
    const std::string where = (cell.empty() ? "" : "cell " + cell + ", ") + j.pe + " seed " + std::to_string(j.seed);
    try {
      if (j.opt.data_dir.empty()) j.opt.cfg.validate();
      check_output_path(j.opt.out_json, "the run file");
      // The longest name a run writes: a kept checkpoint, RUN.json.ckpt.stepN.
      check_output_path(j.opt.out_json + ".ckpt.step" + std::to_string(j.opt.cfg.train.steps), "a kept checkpoint");
    } catch (const UserError& e) {
      throw UserError(where + ": " + e.what());
    }
    wants_gpu = wants_gpu || j.opt.cfg.train.device == DeviceChoice::kCuda;
  }
  if (wants_gpu) {
    const DeviceInfo d = query_device();
    if (d.cuda_devices == 0) throw UserError("a run asks for --device cuda, and no CUDA device was found" + (d.error.empty() ? std::string() : " (" + d.error + ")"));
  }
}

int run_cell_sweep(const std::vector<SweepCell>& cells, const std::string& out, const SweepOptions& sw,
                   const Shard& shard, bool print_config, const AfterRun& after_run) {
  const std::vector<SweepRun> jobs = sweep_runs(cells, out, sw, shard);
  check_runs_up_front(jobs, cells);
  std::vector<TrainOptions> runs_to_train;
  for (const auto& j : jobs) runs_to_train.push_back(j.opt);
  if (print_config) {
    print_run_configs(runs_to_train);
    return 0;
  }
  std::vector<nlohmann::json> results;
  const bool finished = run_training_jobs(
      runs_to_train, sw.concurrent, sw.gpus, results,
      [&](size_t k) {
        const SweepRun& j = jobs[k];
        return j.opt.label.empty() ? j.pe + " seed " + std::to_string(j.seed) : j.opt.label;
      },
      batching_for(sw), after_run ? [&](size_t k, const nlohmann::json& run) { after_run(jobs[k], run); } : AfterJob());
  for (size_t ci = 0; ci < cells.size(); ++ci) {  // the summary of every cell whose runs all finished
    std::vector<nlohmann::json> runs;
    std::vector<std::string> files;
    for (size_t k = 0; k < jobs.size(); ++k)
      if (jobs[k].cell == ci && results[k].is_object()) {
        runs.push_back(results[k]);
        files.push_back(std::filesystem::path(jobs[k].opt.out_json).filename().string());
      }
    // Unfinished, in another shard, or left out by sweep --pe: `popebench merge` sums it up later.
    if (!cells[ci].summarise || runs.size() != cells[ci].planned_runs) continue;
    auto summary = summarise_runs(runs, cells[ci].title);
    for (const auto& [k, v] : cells[ci].summary_extra.items()) summary[k] = v;
    summary["command"] = sw.command;
    summary["runs"] = files;
    const std::string dir = cell_dir(cells[ci], out);
    write_file_atomic(dir + "/summary.json", summary.dump(2) + "\n");
    const std::string md = summary_markdown(summary);
    write_file_atomic(dir + "/summary.md", md);
    std::printf("%s\nwrote %s/summary.json\n", md.c_str(), dir.c_str());
  }
  if (!finished) {
    std::fprintf(stderr, "popebench: stopped before every run finished; rerun the same command to continue\n");
    return stopped_exit_code();
  }
  if (shard.count > 1)
    std::printf("shard %d/%d done: %zu runs in %s (combine the shards with `popebench merge %s`)\n", shard.index,
                shard.count, jobs.size(), out.c_str(), out.c_str());
  return 0;
}

}  // namespace popebench::cli
