// Options that define one training run (model, PE, optimizer, schedule, task), as every command
// that trains parses them: `train`, the sweep commands (cli/sweep_options.hpp) and plan cells.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "train/trainer.hpp"

namespace popebench::cli {

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
// The run options that `args` give, parsed as `train` parses its command line, over `base`
// (a preset's args over the defaults, a plan cell's over its preset), finished and validated.
// where: prefixes every error ("preset quick", "cell x").
RunOptions parse_run_args(const std::vector<std::string>& args, const RunConfig& base, const std::string& where);
// c becomes the suite's defaults with the preset's args applied (a shipped preset by name or a
// preset file by path, cli/presets.hpp); seeds its seeds.
void apply_preset(const std::string& name_or_path, RunConfig& c, std::vector<uint64_t>& seeds);
// What every command that trains takes from its run options for one run with config `cfg`: the
// data, the output, the threads, logging, kept checkpoints, the command line and the stop (the
// one place they are copied; each command then adds its own).
TrainOptions train_options_for(const RunOptions& r, const RunConfig& cfg, const std::string& out_json,
                               const std::string& command, int64_t stop_at);

// --print-config: the runs a command would train, as a JSON array on stdout (each run's output
// file, parameter count and config exactly as its run JSON will record it: with --data, the
// task from the dataset's manifest). Nothing is trained or written.
void print_run_configs(const std::vector<TrainOptions>& runs);

}  // namespace popebench::cli
