// The options every command that trains a list of runs shares (reproduce, sweep, extrapolate):
// the preset, the seeds, runs at once, GPUs, batching, the time limit and the early stop; and what
// each of its runs takes from them.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/run_options.hpp"

namespace popebench::cli {

struct SweepOptions {
  std::string preset, seeds;
  bool seeds_given = false;  // --seeds was on the command line (possibly empty)
  std::vector<uint64_t> preset_seeds;
  int concurrent = 1;  // runs at once on each GPU (or on the CPU)
  int gpus = 1;        // GPUs 0..gpus-1 share the run list (run k on GPU k % gpus)
  // --batch-runs. 0 (auto, the default): on a GPU, runs that differ only in their seeds and
  // would train at once (`concurrent`) train as one batched model, `concurrent` still counting
  // runs. > 1: up to this many a batch (backend/run_batch.hpp), `concurrent` counting batches.
  // 1: every run alone. cell_sweep.cpp turns it into the job pool's Batching.
  int batch_runs = 0;
  double time_limit = 0;
  int64_t stop_at = 0;  // > 0: every run checkpoints and stops after this step (e.g. a pre-registered early stop)
  std::string command;  // the command line (the Runner's), recorded by every run and summary the sweep writes
};
// Registers --batch-runs (SweepOptions::batch_runs): reproduce, sweep and extrapolate.
void add_batch_runs_option(CLI::App& cmd, SweepOptions& sw);
// Registers --preset --seeds --concurrent --gpus --time-limit and the run options, then applies the
// preset named on the command line (`preset`, found before parsing; empty: default_preset) to
// r.cfg: options given on the command line are applied over it at parse time.
void add_sweep_options(CLI::App& cmd, SweepOptions& sw, RunOptions& r, const std::string& default_preset,
                       const std::string& preset, const std::string& preset_help);
// The seeds to run (--seeds, else the preset's); validates the preset name.
std::vector<uint64_t> sweep_seeds(const SweepOptions& sw);
// Refuses --gpus > 1 where the runs would not be on that many GPUs (CPU device, too few GPUs),
// and --batch-runs > 1 where there is no GPU to batch on: before anything is written.
void check_sweep_gpus(const SweepOptions& sw, const RunConfig& cfg);
// CPU threads for each run of a sweep: the machine's cores shared by the runs at once.
int sweep_threads_per_run(const SweepOptions& sw, const RunOptions& r);
// Whether a sweep trains several runs at once (then each run's log lines carry its label).
inline bool sweep_runs_at_once(const SweepOptions& sw) { return sw.concurrent * sw.gpus > 1; }
// The steady-clock deadline (seconds) of --time-limit, or 0.
double sweep_deadline(const SweepOptions& sw);
// One run of a sweep command (reproduce, extrapolate, sweep) with config `cfg`: resumable from
// its checkpoint, skipped when already complete, on its share of the CPU threads, under the
// sweep's deadline and --stop-at, and the run options' data, logging and kept checkpoints.
TrainOptions sweep_run_options(const SweepOptions& sw, const RunOptions& r, const RunConfig& cfg,
                               const std::string& out_json, const std::string& label, double deadline);

}  // namespace popebench::cli
