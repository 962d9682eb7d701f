// What `eval` and `inspect` do with the checkpoint and dataset they are handed before any work.
#pragma once
#include <string>
#include <vector>

#include "common/files.hpp"
#include "config/config.hpp"
#include "generators/task.hpp"
#include "train/checkpoint.hpp"

namespace popebench::cli {

struct OpenedCheckpoint {
  Checkpoint ck;
  RunConfig cfg;
};
// A dataset handed to eval or inspect (--data DIR, of task `data`) must be the checkpoint's task
// and fit its model: another task's tokens could fit the vocabulary and score a meaningless
// accuracy. A UserError naming the dataset's task as the dataset's otherwise.
void require_dataset_fits(const std::string& dir, const TaskConfig& data, const RunConfig& cfg);
// What `eval` and `inspect` do first: check the outputs (paths writable, none the checkpoint or
// each other: files.hpp's rule), set the CPU threads (0: all cores), load the checkpoint and
// validate its config (checkpoint_run_config).
OpenedCheckpoint open_checkpoint(const std::string& path, const std::string& out, int threads,
                                 const std::vector<NamedPath>& more_outputs = {});

}  // namespace popebench::cli
