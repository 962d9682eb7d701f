#include "cli/sweep_options.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "backend/run_batch.hpp"
#include "cli/command_line.hpp"
#include "common/error.hpp"
#include "kernels/device.hpp"

namespace popebench::cli {

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

}  // namespace popebench::cli
