// Options that define a training run, shared by `train` and `reproduce`.
#pragma once
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "common/files.hpp"
#include "train/checkpoint.hpp"
#include "train/trainer.hpp"

namespace popebench::cli {

// Refuses an empty value ("--data ''", "--seeds ''"): given but empty must not mean the default.
const CLI::Validator& non_empty();
// A plain decimal integer in [lo, hi]: refuses "-1" for a count, and values that would saturate
// or wrap ("99999999999999999999") instead of passing them on silently.
CLI::Validator integer_in(long long lo, long long hi);
// A finite number in [lo, hi] (CLI::Range lets NaN through: every comparison with it is false).
CLI::Validator number_in(double lo, double hi);

struct RunOptions {
  RunConfig cfg;
  TaskOptions task;
  std::string data_dir;
  int threads = 0;
  int64_t log_every = 1000;
  int64_t keep_every = 0;  // --keep-checkpoints: TrainOptions::keep_every
  bool print_config = false;  // --print-config: print_run_configs instead of training
  int64_t step_log_every = 100;  // --step-log: TrainOptions::step_log_every
};

// model, PE, optimizer, schedule and training options, plus the task options.
void add_run_options(CLI::App& cmd, RunOptions& r, bool with_pe_and_seed = true);
// Validates and completes the config (vocabulary and length from the task).
void finish_run_options(RunOptions& r);
std::string command_line(int argc, char** argv);
// Value of `--name V` or `--name=V` in argv, or "" (presets must be known before parsing).
std::string prescan_option(int argc, char** argv, const std::string& name);
// What every sweep command (reproduce, extrapolate) shares: the preset, the seeds, how many runs
// at once, and a time limit.
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
// The run options that `args` give, parsed as `train` parses its command line, over `base`
// (a preset's args over the defaults, a plan cell's over its preset), finished and validated.
// where: prefixes every error ("preset quick", "cell x").
RunOptions parse_run_args(const std::vector<std::string>& args, const RunConfig& base, const std::string& where);
// c becomes the suite's defaults with the preset's args applied (a shipped preset by name or a
// preset file by path, cli/presets.hpp); seeds its seeds.
void apply_preset(const std::string& name_or_path, RunConfig& c, std::vector<uint64_t>& seeds);
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
// What every command that trains takes from its run options for one run with config `cfg`: the
// data, the output, the threads, logging, kept checkpoints, the command line and the stop (the
// one place they are copied; each command then adds its own).
TrainOptions train_options_for(const RunOptions& r, const RunConfig& cfg, const std::string& out_json,
                               const std::string& command, int64_t stop_at);
// One run of a sweep command (reproduce, extrapolate, sweep) with config `cfg`: resumable from
// its checkpoint, skipped when already complete, on its share of the CPU threads, under the
// sweep's deadline and --stop-at, and the run options' data, logging and kept checkpoints.
TrainOptions sweep_run_options(const SweepOptions& sw, const RunOptions& r, const RunConfig& cfg,
                               const std::string& out_json, const std::string& label, double deadline);

// --print-config: the runs a command would train, as a JSON array on stdout (each run's output
// file, parameter count and config exactly as its run JSON will record it: with --data, the
// task from the dataset's manifest). Nothing is trained or written.
void print_run_configs(const std::vector<TrainOptions>& runs);

// What `eval` and `inspect` do first: check --out, set the CPU threads (0: all cores), load
// the checkpoint and validate its config (checkpoint_run_config).
struct OpenedCheckpoint {
  Checkpoint ck;
  RunConfig cfg;
};
// A dataset handed to eval or inspect (--data DIR, of task `data`) must be the checkpoint's task
// and fit its model: another task's tokens could fit the vocabulary and score a meaningless
// accuracy. A UserError naming the dataset's task as the dataset's otherwise.
void require_dataset_fits(const std::string& dir, const TaskConfig& data, const RunConfig& cfg);
// Checks the outputs first (paths writable, none the checkpoint or each other: files.hpp's rule).
OpenedCheckpoint open_checkpoint(const std::string& path, const std::string& out, int threads,
                                 const std::vector<NamedPath>& more_outputs = {});

// "a,b,c" -> {a, b, c}; an empty item ("a,,b", "a,", ",a") is a UserError naming `what`, since
// it is most likely a value typed wrong (dropping it would train a run fewer than asked for).
std::vector<std::string> split_list(const std::string& s, const std::string& what);
// "0,1,2" -> seeds; a UserError naming the bad item otherwise, a repeated seed, or an empty list.
std::vector<uint64_t> parse_seeds(const std::string& s);
// "a,b" -> items, refusing an empty list and a repeated item (`what` names the option).
std::vector<std::string> parse_distinct_list(const std::string& s, const std::string& what);
// --rope-variants: "none" -> no extra rows, else its distinct words as RoPE scalings
// (report/extrapolation.hpp's rope_variants_from).
std::vector<RopeScaling> parse_rope_variants(const std::string& s);
// "1,2,5" -> positive integers (for `what` in the message).
std::vector<int> parse_int_list(const std::string& s, const std::string& what);

}  // namespace popebench::cli
