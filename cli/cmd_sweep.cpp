// popebench sweep PLAN.json: runs the cells of a plan file, each a set of run options over a
// preset, for its PEs and seeds, all in one job pool (so that the runs of every cell share the
// GPUs at once, `--concurrent` per GPU). The file format is docs/sweep_format.md:
//
//   {"preset": "paper", "args": ["--gpu-matmul", "bf16"],
//    "cells": [{"name": "freqs_increasing", "args": ["--pe-freqs", "increasing"],
//               "pe": ["rope", "pope"], "seeds": [0, 1]}, ...]}
//
// A cell's args are the options of `popebench train` (model, PE, optimizer, input, task
// options), parsed and validated exactly as on the command line, over the preset, after the
// plan's own args. Output: OUT/<cell>/<pe>_seed<k>.json and, once a cell's runs are complete,
// OUT/<cell>/summary.json and summary.md. Finished runs are skipped and unfinished ones resume,
// as in `reproduce` (both run through cli/cell_sweep.hpp).
#include <algorithm>

#include "cli/cell_sweep.hpp"
#include "cli/commands.hpp"
#include "cli/presets.hpp"
#include "cli/command_line.hpp"
#include "cli/sweep_options.hpp"
#include "cli/sweep_plan.hpp"
#include "common/error.hpp"

namespace popebench::cli {

namespace {

struct Cell : PlanCell {
  RunOptions run;
};

// The cell's run options: the preset, then its args parsed as `train` would parse them.
RunOptions cell_options(const std::string& preset, const std::vector<std::string>& args, const std::string& where) {
  RunConfig base;
  std::vector<uint64_t> unused_seeds;
  apply_preset(preset, base, unused_seeds);
  return parse_run_args(args, base, where);
}

std::vector<Cell> read_plan(const std::string& path, std::string& preset, std::string& plan_name) {
  const Plan plan = read_plan_file(path);
  preset = plan.preset;
  plan_name = plan.name;
  std::vector<Cell> cells;
  for (const PlanCell& pc : plan.cells) {
    const std::string where = path + ": cell " + pc.name;
    Cell cell;
    static_cast<PlanCell&>(cell) = pc;
    cell.run = cell_options(preset, cell.args, where);
    for (const auto& pe : cell.pes) {  // each PE with the cell's options (e.g. --pe-freqs needs a rotary PE)
      PEConfig p = cell.run.cfg.pe;
      p.kind = pe;
      try {
        p.validate();
      } catch (const UserError& e) {
        throw UserError(where + ", pe " + pe + ": " + e.what());
      }
    }
    cells.push_back(std::move(cell));
  }
  return cells;
}

}  // namespace

Runner register_sweep(CLI::App& app) {
  struct State {
    std::string plan, out, only, only_pe, shard;
    SweepOptions sweep;
    int64_t keep_every = 0;
    bool print_config = false;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("sweep", "Run the cells of a plan file (docs/sweep_format.md): options x PEs x seeds");
  cmd->add_option("plan", st->plan, "The plan (JSON)")->required();
  cmd->add_option("--out", st->out, "Output directory: one folder per cell")->required()->check(non_empty());
  cmd->add_option("--cells", st->only, "Comma-separated cell names to run (default: all, in the plan's order)")->check(non_empty());
  cmd->add_option("--pe", st->only_pe,
                  "Comma-separated PEs: of each chosen cell, train only these (default: the cell's own list)")
      ->check(non_empty());
  cmd->add_option("--concurrent", st->sweep.concurrent, "Runs trained at once on each GPU or on the CPU")
      ->default_val(1)->check(CLI::Range(1, 64));
  cmd->add_option("--gpus", st->sweep.gpus, "GPUs to spread the runs over (run k on GPU k % N)")
      ->default_val(1)->check(CLI::Range(1, 64));
  add_batch_runs_option(*cmd, st->sweep);
  cmd->add_option("--shard", st->shard,
                  "i/n: run only the i-th of n parts of the run list (cells in order, then PEs, then seeds); "
                  "`popebench merge` combines the parts");
  cmd->add_option("--time-limit", st->sweep.time_limit,
                  "Seconds; then every unfinished run checkpoints and the command exits 75 (rerun to continue)")
      ->default_val(0)->check(number_in(0.0, 1e7));
  cmd->add_option("--stop-at", st->sweep.stop_at, "Step; every run checkpoints and stops after it (rerun without it to continue)")
      ->default_val(0)->check(integer_in(0, int64_t(1) << 40));
  cmd->add_flag("--print-config", st->print_config,
                "Print every run's resolved config (and parameter count) as JSON, then exit without training");
  cmd->add_option("--keep-checkpoints", st->keep_every,
                  "Every run also keeps its checkpoint of every N-th step as RUN.json.ckpt.stepN (over the cells' own)")
      ->default_val(0)->check(integer_in(0, int64_t(1) << 40));
  return [st](const std::string& command) {
    st->sweep.command = command;
    std::string preset, plan_name;
    std::vector<Cell> cells = read_plan(st->plan, preset, plan_name);
    if (!st->only.empty()) {
      std::vector<Cell> chosen;
      for (const auto& name : split_list(st->only, "--cells")) {
        auto it = std::find_if(cells.begin(), cells.end(), [&](const Cell& c) { return c.name == name; });
        if (it == cells.end()) throw UserError("--cells: no cell named '" + name + "' in " + st->plan);
        if (std::any_of(chosen.begin(), chosen.end(), [&](const Cell& c) { return c.name == name; }))
          throw UserError("--cells: " + name + " is listed twice");
        chosen.push_back(*it);
      }
      cells = chosen;
    }
    std::vector<size_t> cell_runs;  // each cell's runs in the plan: its summary waits for all of them
    for (const auto& c : cells) cell_runs.push_back(c.pes.size() * c.seeds.size());
    if (!st->only_pe.empty()) {  // e.g. a cell's RoPE runs in one session, its PoPE runs in the next
      const std::vector<std::string> pes = split_list(st->only_pe, "--pe");
      for (size_t i = 0; i < pes.size(); ++i) {
        if (std::find(pes.begin(), pes.begin() + i, pes[i]) != pes.begin() + i)
          throw UserError("--pe: " + pes[i] + " is listed twice");
        if (std::none_of(cells.begin(), cells.end(), [&](const Cell& c) {
              return std::find(c.pes.begin(), c.pes.end(), pes[i]) != c.pes.end();
            }))
          throw UserError("--pe: no chosen cell trains '" + pes[i] + "'");
      }
      for (auto& c : cells) {
        std::vector<std::string> kept;
        for (const auto& pe : c.pes)
          if (std::find(pes.begin(), pes.end(), pe) != pes.end()) kept.push_back(pe);
        c.pes = kept;  // may be empty: the cell has none of them
      }
    }
    std::vector<SweepCell> sweep_cells;
    for (size_t ci = 0; ci < cells.size(); ++ci) {
      Cell& c = cells[ci];
      check_sweep_gpus(st->sweep, c.run.cfg);
      if (st->keep_every > 0) c.run.keep_every = st->keep_every;
      SweepCell sc;
      sc.name = c.name;
      sc.run = c.run;
      sc.pes = c.pes;
      sc.seeds = c.seeds;
      sc.planned_runs = cell_runs[ci];
      sc.title = plan_name + ", cell " + c.name;
      sc.summary_extra = {{"cell", c.name}, {"cell_args", c.args}, {"plan", st->plan}};
      sc.origin = {{"preset", preset}, {"plan", st->plan}, {"cell", c.name}};
      sweep_cells.push_back(std::move(sc));
    }
    return run_cell_sweep(sweep_cells, st->out, st->sweep, parse_shard(st->shard), st->print_config);
  };
}

}  // namespace popebench::cli
