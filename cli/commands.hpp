// Each subcommand registers itself on the app and returns the function that runs it.
#pragma once
#include <functional>

#include <CLI/CLI.hpp>

#include "generators/task.hpp"

namespace popebench::cli {

using Runner = std::function<int()>;
Runner register_generate(CLI::App& app);
Runner register_train(CLI::App& app);
Runner register_eval(CLI::App& app);
Runner register_bench(CLI::App& app);
Runner register_merge(CLI::App& app);
// preset: the value of --preset found on the command line before parsing (presets set defaults).
Runner register_reproduce(CLI::App& app, const std::string& preset);

// Task options shared by generate, train and reproduce: one definition, one validation.
void add_task_options(CLI::App& cmd, TaskConfig& task, int64_t* counts /* [3] train,val,test */);
void finish_task_options(TaskConfig& task, const int64_t* counts);

}  // namespace popebench::cli
