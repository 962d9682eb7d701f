// The engine of the commands that train a set of runs (`reproduce`, `sweep`, `extrapolate`):
// cells, each one config over PEs and seeds, trained in one job pool (runs of every cell share
// the GPUs at once), each run OUT/<cell>/<pe>_seed<k>.json (OUT/<pe>_seed<k>.json for a cell
// without a name), finished runs skipped and unfinished ones resumed, a shard of the run list
// on request, what the command does with each finished run (extrapolate's evaluations), and each
// cell's summary.json and summary.md once all of its runs are complete.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/sweep_options.hpp"

namespace popebench::cli {

struct SweepCell {
  std::string name;              // the cell's folder under the output; "": the output itself
  RunOptions run;                // its config (the PE and seed set per run), data and logging
  // The PEs to train now (sweep --pe may leave some of the cell's out), as labels: a PE name or
  // pope-delta0 (model/pe/label.hpp pe_from_label), each applied to the cell's PE options.
  std::vector<std::string> pes;
  std::vector<uint64_t> seeds;
  size_t planned_runs = 0;       // the cell's runs in its plan: its summary waits for all of them
  std::string title;             // the summary's title
  nlohmann::json summary_extra = nlohmann::json::object();  // more fields of its summary.json
  nlohmann::json origin = nlohmann::json::object();         // each run JSON's "origin" (TrainOptions)
  bool summarise = true;         // false: no summary.json (extrapolate writes its own table)
};

// One run of a sweep as the engine trains it.
struct SweepRun {
  size_t cell = 0;      // index into the cells
  std::string pe;       // its label (SweepCell::pes)
  uint64_t seed = 0;
  TrainOptions opt;     // what it trains: config, output, checkpoint, limits
};
// Called once a run has finished (its run JSON), on the thread that trained it, with the other
// runs still training; an exception it throws fails that run as a training error would.
using AfterRun = std::function<void(const SweepRun&, const nlohmann::json& run)>;

// --shard i/n: the run list's entries k with k % n == i (the list is cell-major, then PE, then seed).
struct Shard {
  int index = 0, count = 1;
};
Shard parse_shard(const std::string& s);  // "" -> 0/1; a UserError for anything but i/n with 0 <= i < n

// The runs of the cells in this shard, in the run list's order (cell, then PE, then seed).
std::vector<SweepRun> sweep_runs(const std::vector<SweepCell>& cells, const std::string& out, const SweepOptions& sw,
                                 const Shard& shard);

// Trains the runs (sweep_runs; or with print_config prints their configs), calls after_run (if
// any) with each finished one, writes the summaries of the complete cells, and returns the
// command's exit code: 0, or stopped_exit_code() when a stop or time limit left runs unfinished
// (rerunning the same command continues them).
int run_cell_sweep(const std::vector<SweepCell>& cells, const std::string& out, const SweepOptions& sw,
                   const Shard& shard, bool print_config, const AfterRun& after_run = nullptr);

}  // namespace popebench::cli
