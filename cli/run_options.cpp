#include "cli/run_options.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <thread>
#include <type_traits>
#include <variant>

#include <omp.h>

#include "cli/presets.hpp"

#include "cli/commands.hpp"
#include "config/option_table.hpp"
#include "common/files.hpp"
#include "generators/dataset_io.hpp"
#include "model/model_description.hpp"
#include "model/pe/pe_registry.hpp"
#include "backend/run_batch.hpp"
#include "model/transformer.hpp"
#include "report/extrapolation.hpp"
#include "kernels/device.hpp"
#include "train/run_data.hpp"

namespace popebench::cli {


CLI::Validator integer_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& x) -> std::string {
        const std::string range = "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        if (x.empty() || x.find_first_not_of("0123456789", x[0] == '-' || x[0] == '+' ? 1 : 0) != std::string::npos ||
            x == "-" || x == "+")
          return range + " (got '" + x + "')";
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(x.c_str(), &end, 10);
        if (errno == ERANGE || v < lo || v > hi) return range + " (got " + x + ")";
        return std::string();
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& x) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(x.c_str(), &end);
        if (x.empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
          return "must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got '" + x + "')";
        return std::string();
      },
      "NUMBER");
}

const CLI::Validator& non_empty() {
  static const CLI::Validator v(
      [](std::string& x) { return x.find_first_not_of(", ") == std::string::npos ? std::string("is empty") : std::string(); },
      "NON-EMPTY");
  return v;
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

std::string prescan_option(int argc, char** argv, const std::string& name) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == name && i + 1 < argc) return argv[i + 1];
    if (a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
  }
  return "";
}

std::vector<std::string> split_list(const std::string& s, const std::string& what) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) throw UserError(what + ": an empty item in '" + s + "'");
    out.push_back(item);
  }
  if (s.back() == ',') throw UserError(what + ": an empty item in '" + s + "'");  // getline drops the last one
  return out;
}

namespace {
long long parse_nonneg(const std::string& s, const std::string& what) {
  try {
    size_t pos;
    long long v = std::stoll(s, &pos);
    if (pos != s.size() || v < 0) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw UserError(what + ": '" + s + "' is not a non-negative integer");
  }
}
}  // namespace

std::vector<uint64_t> parse_seeds(const std::string& s) {
  std::vector<uint64_t> out;
  for (const auto& item : split_list(s, "--seeds")) {
    const auto seed = static_cast<uint64_t>(parse_nonneg(item, "--seeds"));
    // a repeated seed would be one run counted twice in the summary (report/summary_rule.hpp)
    if (std::find(out.begin(), out.end(), seed) != out.end()) throw UserError("--seeds: " + item + " is listed twice");
    out.push_back(seed);
  }
  if (out.empty()) throw UserError("--seeds is empty");
  return out;
}

std::vector<std::string> parse_distinct_list(const std::string& s, const std::string& what) {
  std::vector<std::string> out = split_list(s, what);
  if (out.empty()) throw UserError(what + " is empty");
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (out[i] == out[j]) throw UserError(what + ": " + out[i] + " is listed twice");
  return out;
}

std::vector<RopeScaling> parse_rope_variants(const std::string& s) {
  return s == "none" ? std::vector<RopeScaling>{} : rope_variants_from(parse_distinct_list(s, "--rope-variants"));
}

std::vector<int> parse_int_list(const std::string& s, const std::string& what) {
  std::vector<int> out;
  for (const auto& item : split_list(s, what)) {
    long long v = parse_nonneg(item, what);
    if (v > 1000000) throw UserError(what + ": '" + item + "' is too large");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

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

void add_batch_runs_option(CLI::App& cmd, SweepOptions& sw) {
  const CLI::Validator auto_or_count(
      [](std::string& v) -> std::string {
        if (v == "auto") return "";
        const std::string e = integer_in(1, 64)(v);
        return e.empty() ? "" : "auto or a count of runs from 1 to 64, not '" + v + "'";
      },
      "auto|1..64");
  cmd.add_option_function<std::string>(
         "--batch-runs", [&sw](const std::string& v) { sw.batch_runs = v == "auto" ? 0 : std::stoi(v); },
         "GPU: runs that differ only in their seeds train as one batched model (one product per layer for all "
         "of them; each run computes exactly what it computes alone). auto: the runs that --concurrent trains "
         "at once on a GPU, --concurrent still counting runs; N: up to N a batch, --concurrent then counting "
         "batches; 1: every run alone")
      ->default_str("auto")
      ->check(auto_or_count);
}

void add_sweep_options(CLI::App& cmd, SweepOptions& sw, RunOptions& r, const std::string& default_preset,
                       const std::string& preset, const std::string& preset_help) {
  sw.preset = preset.empty() ? default_preset : preset;
  cmd.add_option("--preset", sw.preset,
                 preset_help + ", or a preset file's path; sets the defaults of the options below (configs/presets/)")
      ->default_val(default_preset);
  cmd.add_option("--seeds", sw.seeds, "Comma-separated seeds (default: the preset's)")
      ->check(non_empty())->each([&sw](const std::string&) { sw.seeds_given = true; });
  cmd.add_option("--concurrent", sw.concurrent, "Runs trained at once on each GPU or on the CPU (threads; on a GPU those that differ only in their seeds "
                 "train as one batch, see --batch-runs, the others each on its own stream)")
      ->default_val(1)->check(CLI::Range(1, 64));
  cmd.add_option("--gpus", sw.gpus, "GPUs to spread the runs over (run k on GPU k % N), --concurrent runs on each")
      ->default_val(1)->check(CLI::Range(1, 64));
  cmd.add_option("--time-limit", sw.time_limit,
                 "Seconds; then every unfinished run checkpoints and the command exits 75 (rerun to continue)")
      ->default_val(0)->check(number_in(0.0, 1e7));
  cmd.add_option("--stop-at", sw.stop_at,
                 "Step; every run checkpoints and stops after it, with a partial run JSON (rerun without it to continue)")
      ->default_val(0)->check(integer_in(0, int64_t(1) << 40));
  // The run options start from the preset (the one named on the command line, found before
  // parsing, or the command's default): registered with its values as their defaults, so that
  // --help shows what a run of that preset gets, and what the user gives is applied over it at
  // parse time.
  try {
    RunConfig c;
    apply_preset(preset.empty() ? default_preset : preset, c, sw.preset_seeds);
    r.cfg = c;
  } catch (const UserError&) {
    // reported when the command runs (sweep_seeds), as every other bad value
  }
  add_run_options(cmd, r, /*with_pe_and_seed=*/false);
}

std::vector<uint64_t> sweep_seeds(const SweepOptions& sw) {
  RunConfig dummy;
  std::vector<uint64_t> seeds;
  apply_preset(sw.preset, dummy, seeds);  // validates the name
  if (sw.seeds_given) seeds = parse_seeds(sw.seeds);  // given but empty is an error, not the preset's
  return seeds;
}

void check_sweep_gpus(const SweepOptions& sw, const RunConfig& cfg) {
  if (sw.batch_runs > 1) require_batch_device(cfg);
  if (sw.gpus <= 1) return;
  if (cfg.train.device == DeviceChoice::kCpu) throw UserError("--gpus " + std::to_string(sw.gpus) + " needs --device cuda or auto");
  const DeviceInfo d = query_device();
  if (d.cuda_devices < sw.gpus)
    throw UserError("--gpus " + std::to_string(sw.gpus) + ": " + std::to_string(d.cuda_devices) + " CUDA device" +
                    (d.cuda_devices == 1 ? "" : "s") + " found" + (d.error.empty() ? "" : " (" + d.error + ")"));
}

int sweep_threads_per_run(const SweepOptions& sw, const RunOptions& r) {
  if (!sweep_runs_at_once(sw)) return r.threads;
  const auto at_once = static_cast<unsigned>(sw.concurrent * sw.gpus);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency() / at_once));
}

double sweep_deadline(const SweepOptions& sw) {
  if (sw.time_limit <= 0) return 0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() + sw.time_limit;
}

void require_dataset_fits(const std::string& dir, const TaskConfig& data, const RunConfig& cfg) {
  if (data.name() != cfg.task.name())
    throw UserError(dir + " holds " + data.name() + " data; the checkpoint was trained on " + cfg.task.name());
  if (data.vocab_size() != cfg.model.vocab_size || data.width() > cfg.model.max_len)
    throw UserError(dir + ": its vocabulary or sequence length does not fit the checkpoint's model");
}

OpenedCheckpoint open_checkpoint(const std::string& path, const std::string& out, int threads,
                                 const std::vector<NamedPath>& more_outputs) {
  if (!out.empty()) check_output_path(out, "--out");
  for (const auto& o : more_outputs)
    if (!o.path.empty()) check_output_path(o.path, o.what);
  std::vector<NamedPath> outputs = {{out, "--out"}};
  outputs.insert(outputs.end(), more_outputs.begin(), more_outputs.end());
  refuse_outputs_over_inputs(outputs, {{path, "the checkpoint"}});
  if (threads > 0) omp_set_num_threads(threads);
  OpenedCheckpoint o;
  o.ck = load_checkpoint(path);
  o.cfg = checkpoint_run_config(o.ck, path);
  return o;
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

TrainOptions sweep_run_options(const SweepOptions& sw, const RunOptions& r, const RunConfig& cfg,
                               const std::string& out_json, const std::string& label, double deadline) {
  TrainOptions o = train_options_for(r, cfg, out_json, sw.command, sw.stop_at);
  o.resume = true;
  o.skip_if_complete = true;  // a rerun of the sweep trains only what is not finished
  o.threads = sweep_threads_per_run(sw, r);
  o.label = label;
  o.deadline = deadline;
  o.resume_hint = "rerun the same command to continue";
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
