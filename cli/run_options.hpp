// Options that define a training run, shared by `train` and `reproduce`.
#pragma once
#include <CLI/CLI.hpp>

#include "models/trainer.hpp"

namespace popebench::cli {

struct RunOptions {
  RunConfig cfg;
  int64_t counts[3];
  std::string data_dir;
  int threads = 0;
  int64_t log_every = 1000;
  std::vector<CLI::Option*> task_opts;  // refused together with --data (the manifest defines the task)
};

// model, PE, optimizer, schedule and training options, plus the task options.
void add_run_options(CLI::App& cmd, RunOptions& r, bool with_pe_and_seed = true);
// Validates and completes the config (vocabulary and length from the task).
void finish_run_options(RunOptions& r);
std::string command_line(int argc, char** argv);
// Value of `--name V` or `--name=V` in argv, or "" (presets must be known before parsing).
std::string prescan_option(int argc, char** argv, const std::string& name);
extern std::string g_command_line;

}  // namespace popebench::cli
