// Each subcommand registers itself on the app and returns the function that runs it.
#pragma once
#include <functional>
#include <map>

#include <CLI/CLI.hpp>

#include "generators/task.hpp"

namespace popebench::cli {

// What a parsed subcommand runs. `command` is the command line as typed (cli/main.cpp), which
// every file the command writes records for its provenance.
using Runner = std::function<int(const std::string& command)>;
Runner register_generate(CLI::App& app);
Runner register_train(CLI::App& app, const std::string& preset = "");
Runner register_eval(CLI::App& app);
Runner register_inspect(CLI::App& app);
Runner register_bench(CLI::App& app);
Runner register_merge(CLI::App& app);
Runner register_export(CLI::App& app);
Runner register_sweep(CLI::App& app);
Runner register_list(CLI::App& app);
// preset: the value of --preset found on the command line before parsing (presets set defaults).
// preset: the --preset given, or "" (the paper's); on_cpu: the runs would train on the CPU
// (--device cpu, or no usable GPU), where an unnamed preset means the quick one, with a notice.
Runner register_reproduce(CLI::App& app, const std::string& preset, bool on_cpu = false);

Runner register_extrapolate(CLI::App& app, const std::string& preset);

// Task options shared by generate, train, reproduce and extrapolate: one definition, one
// validation. Each is applied only when given (see task_options.cpp).
struct TaskOptions {
  std::string name;
  int v_min_len = 0, v_max_len = 0;
  int64_t v_counts[3] = {0, 0, 0};  // train, val, test
  CLI::Option *min_len = nullptr, *max_len = nullptr, *counts[3] = {nullptr, nullptr, nullptr};
  // The tasks' own options (each task's options(), generators/task_option.hpp), one per flag, with
  // the value as given; bound by address, so TaskOptions is not copied once added.
  struct Given {
    CLI::Option* opt = nullptr;
    int i = 0;
    bool b = false;
    std::string s;
  };
  std::map<std::string, Given> own;  // by flag
  std::vector<CLI::Option*> opts;    // all of them (refused together with --data)
  bool given(const std::string& flag) const;
};
void add_task_options(CLI::App& cmd, TaskOptions& o);
// Applies the given options over `task` and validates it.
void apply_task_options(const TaskOptions& o, TaskConfig& task);

}  // namespace popebench::cli
