// The training loop shared by every backend: batch sampling, schedule, evaluations along the
// way, learning curve, checkpoints, resume, progress and the run JSON (results/SCHEMA.md). Its
// data: train/run_data.hpp; one evaluation: train/evaluate.hpp.
#pragma once
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "backend/backend.hpp"
#include "config/config.hpp"
#include "train/stop_signal.hpp"  // RunInterrupted: what train() throws when it stops early

namespace popebench {

struct TrainOptions {
  RunConfig cfg;
  std::string data_dir;    // empty: generate the splits from cfg.train.data_seed in memory
  std::string out_json;    // the run JSON
  std::string checkpoint;  // empty: out_json + ".ckpt"
  bool resume = false;     // continue from the checkpoint when it exists
  int threads = 0;         // CPU threads (0: all cores)
  int64_t log_every = 1000;  // progress line interval when stderr is not a terminal
  std::string command;     // the command line, for provenance
  // Where the run comes from, for tables and CSV (results/SCHEMA.md "origin"): e.g. {"preset":
  // "paper", "plan": "screen.json", "cell": "loss_all"}; written into the run JSON when not empty.
  nlohmann::json origin = nlohmann::json::object();
  int64_t stop_at = 0;     // > 0: stop after this step with a checkpoint and no run JSON (resume later)
  // > 0: at every step that is a multiple of keep_every, also write the checkpoint to
  // kept_checkpoint_path(checkpoint, step), kept after the run (diagnostics along the curve).
  int64_t keep_every = 0;
  // > 0: a row every step_log_every steps in the run's step log, RUN.steps.csv (train/step_log.hpp).
  int64_t step_log_every = 0;
  // > 0: stop with a checkpoint once this steady-clock time (seconds since epoch of
  // std::chrono::steady_clock) has passed; used to fit runs into time-limited jobs.
  double deadline = 0;
  std::string label;       // prefix of progress lines (several runs may share a terminal)
  // Before training on the CPU for more than an hour (estimated_cpu_seconds), say so on stderr
  // with the estimate and what to do instead (`train`; `reproduce` picks its quick preset itself).
  bool warn_if_long_on_cpu = false;
  // When out_json already holds a complete run of exactly this config, return it untrained.
  bool skip_if_complete = false;
  // What an interrupted run's message tells the user to do (sweeps: rerun the same command).
  std::string resume_hint = "run again with --resume to continue";
  // Where the run's backend comes from: empty, make_backend(cfg, cfg.train.device); a batch of
  // runs (backend/run_batch.hpp) gives each run its slot's.
  std::function<std::unique_ptr<Backend>(const RunConfig&)> make_backend;
};

// The estimated seconds cfg's training takes on `threads` CPU cores: 6 FLOPs per parameter and
// token, at the rate measured for the paper model on this project's 2-core machine (0.22 steps/s).
double estimated_cpu_seconds(const RunConfig& cfg, size_t n_params, int threads);

// CHECKPOINT.stepN: where a run with keep_every keeps its step-N checkpoint.
std::string kept_checkpoint_path(const std::string& checkpoint, int64_t step);

// Trains, evaluates, writes the run JSON and the final checkpoint; returns the run JSON.
// Throws UserError on bad input and on a diverged run (after writing its JSON).
nlohmann::json train(TrainOptions opt);

}  // namespace popebench
