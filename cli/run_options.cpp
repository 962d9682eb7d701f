#include "cli/run_options.hpp"

#include <cstdio>
#include <type_traits>
#include <variant>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/presets.hpp"
#include "config/option_table.hpp"
#include "generators/dataset_io.hpp"
#include "model/model_description.hpp"
#include "model/pe/pe_registry.hpp"
#include "train/run_data.hpp"

namespace popebench::cli {

RunOptions parse_run_args(const std::vector<std::string>& args, const RunConfig& base, const std::string& where) {
  CLI::App app{"run options"};
  RunOptions r;
  r.cfg = base;  // registered with base's values as their defaults: an option not in args keeps them
  add_run_options(app, r, /*with_pe_and_seed=*/false);
  std::vector<std::string> rev(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(rev);
  } catch (const CLI::Success&) {  // --help: CLI11's message for it is meant for a main()
    throw UserError(where + ": --help does not belong in a run's args; give it to the command");
  } catch (const CLI::ParseError& e) {
    throw UserError(where + ": " + e.what());
  }
  // What the command does with its runs (print them instead of training) is the command's option.
  for (const char* command_only : {"--print-config"})
    if (app.get_option(command_only)->count() > 0)
      throw UserError(where + ": " + command_only + " does not belong in a run's args; give it to the command");
  try {
    finish_run_options(r);
  } catch (const UserError& e) {
    throw UserError(where + ": " + e.what());
  }
  return r;
}

void apply_preset(const std::string& name, RunConfig& c, std::vector<uint64_t>& seeds) {
  const Preset p = read_preset(name);
  c = parse_run_args(p.args, RunConfig{}, is_preset_path(name) ? "preset file " + name : "preset " + name).cfg;
  seeds = p.seeds;
}

TrainOptions train_options_for(const RunOptions& r, const RunConfig& cfg, const std::string& out_json,
                               const std::string& command, int64_t stop_at) {
  TrainOptions o;
  o.cfg = cfg;
  o.data_dir = r.data_dir;
  o.out_json = out_json;
  o.threads = r.threads;
  o.log_every = r.log_every;
  o.keep_every = r.keep_every;
  o.step_log_every = r.step_log_every;
  o.command = command;
  o.stop_at = stop_at;
  return o;
}

namespace {
// One option's flag, bound to its field of s.
template <class S, class V>
CLI::Option* add_flag_for(CLI::App& cmd, S& s, const OptionDecl<S>& d, const std::string& help, V S::*member) {
  V& v = s.*member;
  if constexpr (std::is_same_v<V, bool>) {
    return cmd.add_flag(d.flag, v, help);
  } else if constexpr (std::is_same_v<V, std::vector<int>>) {
    return cmd.add_option_function<std::string>(
        d.flag, [&v, flag = std::string(d.flag)](const std::string& x) { v = parse_int_list(x, flag); }, help);
  } else {
    CLI::Option* opt = cmd.add_option(d.flag, v, help);
    if constexpr (std::is_same_v<V, std::string>) {
      if (!v.empty()) opt->default_val(v);
    } else {
      opt->default_val(v);
    }
    return opt;
  }
}
// A word option: the word is read into the field's enum as the flag is parsed; an unknown one is
// the UserError "unknown <what> 'x' (known: ...)".
template <class S>
CLI::Option* add_flag_for(CLI::App& cmd, S& s, const OptionDecl<S>& d, const std::string& help,
                          const WordField<S>& field) {
  return cmd.add_option_function<std::string>(d.flag, [&s, set = field.set](const std::string& x) { set(s, x); }, help)
      ->default_str(field.get(s));
}

// The flags of one section of the config, from its declarations (config/option_table.hpp), bound
// to the section's fields with their current values as defaults.
template <class S>
void add_section_options(CLI::App& cmd, S& s, const std::vector<OptionDecl<S>>& decls, const char* group,
                         bool with_pe_and_seed) {
  for (const auto& d : decls) {
    if (!d.flag || (d.per_run && !with_pe_and_seed)) continue;
    const std::string help = d.pe_kinds ? pe_kind_list() + option_help(d) : option_help(d);
    CLI::Option* o = std::visit([&](const auto& member) { return add_flag_for(cmd, s, d, help, member); }, d.field);
    if (d.range) o->check(integer_in(d.range->lo, d.range->hi));
    o->group(group);
  }
}
}  // namespace

void add_run_options(CLI::App& cmd, RunOptions& r, bool with_pe_and_seed) {
  auto& c = r.cfg;
  add_task_options(cmd, r.task);
  cmd.add_option("--data", r.data_dir, "Dataset directory from `popebench generate` (default: generate in memory)")
      ->check(non_empty());
  add_section_options(cmd, c.model, model_options(), "Model", with_pe_and_seed);
  add_section_options(cmd, c.pe, pe_options(), "Positional embedding", with_pe_and_seed);
  add_section_options(cmd, c.optim, optim_options(), "Optimizer", with_pe_and_seed);
  add_section_options(cmd, c.input, input_options(), "Input", with_pe_and_seed);
  const char* g = "Training";
  add_section_options(cmd, c.train, train_options(), g, with_pe_and_seed);
  cmd.add_option("--step-log", r.step_log_every,
                 "Every N steps a row (step, lr, loss, grad norm, batch accuracy) in RUN.steps.csv beside the run JSON (0: none)")
      ->default_val(r.step_log_every)->check(integer_in(0, 1000000000000LL))->group(g);
  cmd.add_flag("--print-config", r.print_config,
               "Print every run's resolved config (and parameter count) as JSON, then exit without training")->group(g);
  cmd.add_option("--threads", r.threads, "CPU threads (0: all cores)")->default_val(0)->check(integer_in(0, 1024))->group(g);
  cmd.add_option("--keep-checkpoints", r.keep_every,
                 "Also keep the checkpoint of every N-th step as CHECKPOINT.stepN (for `inspect` along the curve; 0: none)")
      ->default_val(0)->check(integer_in(0, 1000000000000LL))->group(g);
  cmd.add_option("--log-every", r.log_every, "Progress line every N steps when stderr is not a terminal (0: the last step's only, and no line when a run starts)")->default_val(r.log_every)->check(integer_in(0, 1000000000000LL))->group(g);
}

void finish_run_options(RunOptions& r) {
  if (!r.data_dir.empty())
    for (auto* o : r.task.opts)
      if (o->count() > 0)
        throw UserError(o->get_name() + " cannot be combined with --data: the dataset's manifest defines the task");
  if (r.threads < 0) throw UserError("--threads must be >= 0");
  apply_task_options(r.task, r.cfg.task);
  r.cfg.size_model_for_task();
  r.cfg.model.validate();
  r.cfg.pe.validate();
  r.cfg.optim.validate();
  r.cfg.train.validate();
  r.cfg.input.validate();
  // A run reports validation and test accuracy: over no examples they would read as 0 % (with
  // --data the dataset's own sizes are checked when it is read).
  if (r.data_dir.empty() && r.cfg.task.n_val < 1) throw UserError("the validation split is empty (--n-val must be >= 1 for a run)");
  if (r.data_dir.empty() && r.cfg.task.n_test < 1) throw UserError("the test split is empty (--n-test must be >= 1 for a run)");
}

void print_run_configs(const std::vector<TrainOptions>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const TrainOptions& o : runs) {
    RunConfig cfg = o.cfg;
    if (!o.data_dir.empty()) apply_dataset_manifest(cfg, open_dataset_dir(o.data_dir));  // as load_data does
    cfg.validate();
    const ModelDescription model(cfg.model, cfg.pe);  // the layout only
    out.push_back({{"out", o.out_json}, {"parameters", model.layout().n_params}, {"config", cfg}});
  }
  std::printf("%s\n", out.dump(2).c_str());
}

}  // namespace popebench::cli
