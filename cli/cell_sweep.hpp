// The engine of the commands that train a set of runs and summarise them (`reproduce`, `sweep`):
// cells, each one config over PEs and seeds, trained in one job pool (runs of every cell share
// the GPUs at once), each run OUT/<cell>/<pe>_seed<k>.json (OUT/<pe>_seed<k>.json for a cell
// without a name), finished runs skipped and unfinished ones resumed, a shard of the run list
// on request, and each cell's summary.json and summary.md once all of its runs are complete.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/run_options.hpp"

namespace popebench::cli {

struct SweepCell {
  std::string name;              // the cell's folder under the output; "": the output itself
  RunOptions run;                // its config (the PE and seed set per run), data and logging
  std::vector<std::string> pes;  // the PEs to train now (sweep --pe may leave some of the cell's out)
  std::vector<uint64_t> seeds;
  size_t planned_runs = 0;       // the cell's runs in its plan: its summary waits for all of them
  std::string title;             // the summary's title
  nlohmann::json summary_extra = nlohmann::json::object();  // more fields of its summary.json
};

// --shard i/n: the run list's entries k with k % n == i (the list is cell-major, then PE, then seed).
struct Shard {
  int index = 0, count = 1;
};
Shard parse_shard(const std::string& s);  // "" -> 0/1; a UserError for anything but i/n with 0 <= i < n

// Trains the cells' runs (or with print_config prints their configs), writes the summaries of
// the complete cells, and returns the command's exit code: 0, or stopped_exit_code() when a
// stop or time limit left runs unfinished (rerunning the same command continues them).
int run_cell_sweep(const std::vector<SweepCell>& cells, const std::string& out, const SweepOptions& sw,
                   const Shard& shard, bool print_config);

}  // namespace popebench::cli
