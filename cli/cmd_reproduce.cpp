// popebench reproduce indirect-indexing: trains every (PE, seed) of the experiment, one run JSON
// each, then writes the summary table. Runs whose JSON is complete are skipped; an unfinished
// one resumes from its checkpoint, so a stopped sweep loses no finished work.
#include <cstdio>

#include "cli/cell_sweep.hpp"
#include "cli/commands.hpp"
#include "cli/presets.hpp"
#include "cli/command_line.hpp"
#include "cli/sweep_options.hpp"
#include "common/error.hpp"
#include "report/paper_table1.hpp"
#include "report/summary.hpp"

namespace popebench::cli {

Runner register_reproduce(CLI::App& app, const std::string& preset, bool on_cpu) {
  const bool quick_for_cpu = preset.empty() && on_cpu;
  struct State {
    RunOptions run;
    SweepOptions sweep;
    std::string task = "indirect-indexing", pes = "rope,pope", out, shard;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("reproduce", "Run the paper's experiment (all PEs x seeds) and write its table");
  cmd->add_option("experiment", st->task, "Experiment to reproduce")->check(CLI::IsMember({"indirect-indexing"}))
      ->default_val(st->task);
  cmd->add_option("--pe", st->pes, "Comma-separated PEs to run, or all (Table 1 and v3 Table 9 rows)")->default_val(st->pes)->check(non_empty());
  cmd->add_option("--out", st->out, "Output directory (default: runs/<experiment>_<preset>)")->check(non_empty());
  cmd->add_option("--shard", st->shard, "i/n: run only the i-th of n parts of the run list (0 <= i < n)");
  add_sweep_options(*cmd, st->sweep, st->run, quick_for_cpu ? "quick" : "paper", preset,
                    "paper (the paper's recipe, docs/spec.md, 100k steps; the default with a GPU) or quick (minutes on a CPU; the default without)");
  add_batch_runs_option(*cmd, st->sweep);
  return [st, quick_for_cpu](const std::string& command) {
    st->sweep.command = command;
    if (quick_for_cpu && st->sweep.preset == "quick")
      std::fprintf(stderr,
                   "popebench: training on the CPU, so the quick preset (minutes); the paper's experiment is --preset paper "
                   "(about a month on two cores)\n");
    std::vector<uint64_t> seeds = sweep_seeds(st->sweep);
    // "all": the paper's Table 1 and v3 Table 9 rows.
    auto pes = st->pes == "all" ? paper_indirect_indexing_pes() : parse_distinct_list(st->pes, "--pe");
    if (pes.empty() || seeds.empty()) throw UserError("nothing to run: --pe and --seeds must not be empty");
    for (const auto& pe : pes) {
      PEConfig p;
      p.kind = pe;
      p.validate();
    }
    finish_run_options(st->run);
    check_sweep_gpus(st->sweep, st->run.cfg);
    std::string dir = st->out.empty() ? "runs/indirect_indexing_" + st->sweep.preset : st->out;
    // The experiment is a sweep of one cell: the preset's config over the PEs and seeds.
    SweepCell cell;
    cell.run = st->run;
    cell.pes = pes;
    cell.seeds = seeds;
    cell.planned_runs = pes.size() * seeds.size();
    cell.title = "Indirect Indexing, preset " + st->sweep.preset;
    cell.summary_extra = {{"preset", st->sweep.preset}};
    cell.origin = {{"preset", st->sweep.preset}};
    return run_cell_sweep({cell}, dir, st->sweep, parse_shard(st->shard), st->run.print_config);
  };
}

}  // namespace popebench::cli
