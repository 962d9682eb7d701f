#include <cstdio>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/presets.hpp"
#include "cli/run_options.hpp"
#include "model/pe/pe_registry.hpp"
#include "train/stop_signal.hpp"

namespace popebench::cli {

Runner register_train(CLI::App& app, const std::string& preset) {
  struct State {
    RunOptions run;
    std::string out, checkpoint, preset, preset_error;
    bool resume = false;
    int64_t stop_at = 0;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("train", "Train one model and write its run JSON (results/SCHEMA.md)");
  // --preset (found before parsing): the run options start from the preset, registered with its
  // values as their defaults, as reproduce's do; its seeds are for reproduce and sweeps (--seed
  // picks this run's). A bad preset is reported when the command runs, as every bad value.
  if (!preset.empty()) {
    try {
      std::vector<uint64_t> unused_seeds;
      apply_preset(preset, st->run.cfg, unused_seeds);
    } catch (const UserError& e) {
      st->preset_error = e.what();
    }
  }
  cmd->add_option("--preset", st->preset,
                  "A shipped preset (popebench list) or a preset file's path: the defaults of the options below")
      ->check(non_empty());
  add_run_options(*cmd, st->run);
  cmd->add_option("--out", st->out, "Run JSON to write (not needed with --print-config)")->check(non_empty());
  cmd->add_option("--checkpoint", st->checkpoint, "Checkpoint file (default: OUT.ckpt)")->check(non_empty());
  cmd->add_flag("--resume", st->resume, "Continue from the checkpoint if it exists (the config must match)");
  cmd->add_option("--stop-at", st->stop_at, "Stop after this step with a checkpoint (continue with --resume)")
      ->check(integer_in(0, int64_t(1) << 40));
  return [st, cmd](const std::string& command) {
    if (!st->preset_error.empty()) throw UserError(st->preset_error);
    finish_run_options(st->run);
    // Which PE a run trains is the one choice with no neutral default: asked for, not assumed.
    if (cmd->get_option("--pe")->count() == 0)
      throw UserError("train needs --pe (one of " + pe_kind_list() + "; `popebench list` says what each is)");
    if (st->out.empty() && !st->run.print_config) throw UserError("--out is required: the run JSON to write");
    TrainOptions o = train_options_for(st->run, st->run.cfg, st->out, command, st->stop_at);
    o.checkpoint = st->checkpoint;
    o.resume = st->resume;
    if (!st->preset.empty()) o.origin = {{"preset", st->preset}};
    if (st->run.print_config) {
      print_run_configs({o});
      return 0;
    }
    o.warn_if_long_on_cpu = true;
    nlohmann::json run;
    try {
      run = train(o);
    } catch (const RunInterrupted& e) {
      std::fprintf(stderr, "popebench: %s\n", e.what());
      return stopped_exit_code();
    }
    std::printf("%s  %s seed %llu  val acc %.2f%%  test acc %.2f%%  (%.1f steps/s)  -> %s\n",
                run["environment"]["device"].get<std::string>().c_str(), o.cfg.pe.kind.c_str(),
                static_cast<unsigned long long>(o.cfg.train.seed), 100 * run["final"]["val"]["acc"].get<double>(),
                100 * run["final"]["test"]["acc"].get<double>(), run["timing"]["steps_per_s"].get<double>(),
                st->out.c_str());
    return 0;
  };
}

}  // namespace popebench::cli
