// A task's own command-line option, declared once beside the task's parameters (each task's
// `options()`): the CLI's flag, its help, its check and its default all come from the declaration
// (cli/task_options.cpp builds them), and giving the option sets the selected task's member. Tasks
// that declare the same flag (--alphabet) share one CLI option; it is refused, by name, for a task
// that does not declare it.
#pragma once
#include <string>
#include <variant>
#include <vector>

namespace popebench {

template <typename Cfg>
struct TaskOption {
  const char* flag;  // "--max-k"
  const char* help;  // what it sets, for this task; the CLI adds the task's name and the default
  std::variant<int Cfg::*, bool Cfg::*, std::string Cfg::*> member;
  int lo = 0, hi = 100000;  // an int member's allowed range (the task's validate() checks the rest)
};

}  // namespace popebench
