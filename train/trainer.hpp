// The training loop shared by every backend: data, batch sampling, schedule, evaluation,
// learning curve, checkpoints, resume, progress and the run JSON (results/SCHEMA.md).
#pragma once
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/dataset.hpp"
#include "generators/dataset_io.hpp"
#include "backend/backend.hpp"
#include "config/config.hpp"

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

// Thrown when a run stops early on purpose (stop_at, deadline, SIGINT/SIGTERM) after saving its
// checkpoint and a partial run JSON.
struct RunInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Thrown by evaluate() when a stop was asked for (SIGINT / SIGTERM under a StopSignalScope)
// between two of its batches: an evaluation of a large split can take minutes on a CPU, and a
// stop means stop. Callers outside a run see it as an interrupted run (the job pools do).
struct EvalInterrupted : RunInterrupted {
  using RunInterrupted::RunInterrupted;
};

// The estimated seconds cfg's training takes on `threads` CPU cores: 6 FLOPs per parameter and
// token, at the rate measured for the paper model on this project's 2-core machine (0.22 steps/s).
double estimated_cpu_seconds(const RunConfig& cfg, size_t n_params, int threads);

// CHECKPOINT.stepN: where a run with keep_every keeps its step-N checkpoint.
std::string kept_checkpoint_path(const std::string& checkpoint, int64_t step);

// Trains, evaluates, writes the run JSON and the final checkpoint; returns the run JSON.
// Throws UserError on bad input and on a diverged run (after writing its JSON).
nlohmann::json train(TrainOptions opt);

struct Splits {
  Dataset train, val, test;
  nlohmann::json source;  // where the data came from: generated (seed) or a directory (checksums)
};
// With a dataset directory, the task and data seed come from its manifest (cfg is updated).
Splits load_data(RunConfig& cfg, const std::string& data_dir);
// That update alone: the task, data seed, vocabulary and length of the dataset in `info`.
void apply_dataset_manifest(RunConfig& cfg, const DatasetDir& info);

struct EvalResult {
  double loss = 0, acc = 0;  // at the answer position (the text task: a window's last byte)
  size_t n = 0;
  // The text task: the loss on every next byte of the windows, in bits (< 0: not measured).
  double bits_per_byte = -1;
  long bytes = 0;  // the predictions it averages
};
// The first `limit` examples (0: all) in order, in batches of cfg.train.eval_batch, made into
// inputs as cfg.input says. Throws EvalInterrupted when a stop signal arrives (checked after
// every batch).
EvalResult evaluate(Backend& be, const RunConfig& cfg, const Dataset& d, size_t limit = 0);
// The row length of the batches fed to `be`: its static length, else the config's input length
// for left padding (the visible pads are part of the input), else 0 (each batch's longest).
int batch_row_len(const Backend& be, const RunConfig& cfg);
void to_json(nlohmann::json& j, const EvalResult& e);

// popebench version, git commit, compiler, device, threads, host, time, command.
// gpu_index >= 0 adds "gpu_index" (which GPU of the machine ran it).
nlohmann::json environment_json(const std::string& device, int threads, const std::string& command, int gpu_index = -1);

}  // namespace popebench
