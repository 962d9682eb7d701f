#include "cli/commands.hpp"
#include "common/files.hpp"

namespace popebench::cli {

void add_task_options(CLI::App& cmd, TaskConfig& task, int64_t* counts) {
  auto& ii = task.indirect_indexing;
  cmd.add_option("--task", task.name, "Task to generate or train on")->default_val(task.name)
      ->check(CLI::IsMember({"indirect-indexing"}));
  cmd.add_option("--min-len", ii.min_len, "Shortest string (characters)")->default_val(ii.min_len);
  cmd.add_option("--max-len", ii.max_len, "Longest string (characters)")->default_val(ii.max_len);
  cmd.add_option("--max-shift", ii.max_shift, "Shifts are drawn from [-max, +max]")->default_val(ii.max_shift);
  cmd.add_option("--alphabet", ii.alphabet, "Number of distinct letters (<= 52)")->default_val(ii.alphabet);
  cmd.add_flag("--allow-zero-shift", ii.allow_zero_shift,
               "Allow shift 0 (the paper does not say; excluded by default)");
  counts[0] = static_cast<int64_t>(task.n_train);
  counts[1] = static_cast<int64_t>(task.n_val);
  counts[2] = static_cast<int64_t>(task.n_test);
  cmd.add_option("--n-train", counts[0], "Training examples")->default_val(counts[0]);
  cmd.add_option("--n-val", counts[1], "Validation examples")->default_val(counts[1]);
  cmd.add_option("--n-test", counts[2], "Test examples")->default_val(counts[2]);
}

void finish_task_options(TaskConfig& task, const int64_t* counts) {
  const char* names[] = {"--n-train", "--n-val", "--n-test"};
  for (int i = 0; i < 3; ++i)
    if (counts[i] < 0) throw UserError(std::string(names[i]) + " must be >= 0 (got " + std::to_string(counts[i]) + ")");
  task.n_train = static_cast<uint64_t>(counts[0]);
  task.n_val = static_cast<uint64_t>(counts[1]);
  task.n_test = static_cast<uint64_t>(counts[2]);
  task.validate();
}

}  // namespace popebench::cli
