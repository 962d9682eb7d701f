// popebench extrapolate: trains each (PE, seed) at the training lengths, then evaluates it with no
// fine-tuning on length buckets up to 10x (models/extrapolation.hpp), RoPE runs also with
// position interpolation and NTK scaling. Every finished run and every finished evaluation is a
// file in --out, so a stopped job reruns only what is missing.
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "cli/commands.hpp"
#include "cli/job_pool.hpp"
#include "cli/presets.hpp"
#include "cli/run_options.hpp"
#include "common/files.hpp"
#include "models/stop_signal.hpp"
#include "common/version.hpp"
#include "models/checkpoint.hpp"
#include "models/extrapolation.hpp"

namespace popebench::cli {

Runner register_extrapolate(CLI::App& app, const std::string& preset) {
  struct State {
    RunOptions run;
    SweepOptions sweep;
    ExtrapolationConfig ex;
    std::string pes = "rope,pope,pope-delta0,alibi,none", factors, variants = "pi,ntk", out;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("extrapolate", "Train at the training lengths, evaluate zero-shot up to 10x longer");
  cmd->add_option("--pe", st->pes, "Comma-separated PEs to train (pope-delta0: PoPE with delta init zero)")
      ->default_val(st->pes)->check(non_empty());
  cmd->add_option("--factors", st->factors, "Length buckets as multiples of the training max length (default 1..10)")
      ->check(non_empty());
  cmd->add_option("--bucket-examples", st->ex.examples, "Test examples per bucket")->default_val(st->ex.examples)
      ->check(integer_in(1, 100000000));
  cmd->add_option("--rope-variants", st->variants, "Test-time RoPE scalings evaluated for rope runs: pi, ntk (or none)")
      ->default_val(st->variants)->check(non_empty());
  cmd->add_option("--out", st->out, "Output directory")->required()->check(non_empty());
  add_sweep_options(*cmd, st->sweep, st->run, "extrapolation", preset,
                    "extrapolation (small model, minutes on a GPU), quick or paper");
  return [st]() {
    std::vector<uint64_t> seeds = sweep_seeds(st->sweep);
    if (!st->factors.empty()) st->ex.factors = parse_int_list(st->factors, "--factors");
    st->ex.rope_variants = st->variants == "none" ? std::vector<std::string>{} : parse_distinct_list(st->variants, "--rope-variants");
    st->ex.validate();
    if (!st->run.data_dir.empty()) throw UserError("extrapolate generates its data; --data is not supported here");
    finish_run_options(st->run);
    check_sweep_gpus(st->sweep, st->run.cfg);
    RunConfig& base = st->run.cfg;
    // A large enough alphabet for unique symbols at the longest bucket, unless one was given.
    const int max_factor = st->ex.factors.back();
    if (!(st->run.task.alphabet && st->run.task.alphabet->count() > 0) && base.task.name != "k-back") {
      const int need = max_factor * base.task.max_len();
      const int alphabet = need <= 52 ? 52 : std::max(512, need);
      base.task.indirect_indexing.alphabet = alphabet;
      base.task.associative_recall.alphabet = alphabet;
      base.task.validate();
    }
    base.size_model_for_task();
    auto buckets = make_buckets(base.task, base.train.data_seed, st->ex);
    base.model.max_len = longest_input(buckets) + 1;  // built for the longest bucket, not the training length
    std::vector<PEConfig> pes;
    for (const auto& name : parse_distinct_list(st->pes, "--pe")) pes.push_back(pe_from_label(name, base.pe));
    if (pes.empty() || seeds.empty()) throw UserError("nothing to run: --pe and --seeds must not be empty");
    const double deadline = sweep_deadline(st->sweep);
    // One run's options: what --print-config lists is what the job below trains.
    auto run_options = [&](const PEConfig& pe, uint64_t seed) {
      const std::string name = pe_label(pe) + "_seed" + std::to_string(seed);
      RunConfig cfg = base;
      cfg.pe = pe;
      cfg.train.seed = seed;
      return sweep_run_options(st->sweep, st->run, cfg, st->out + "/runs/" + name + ".json",
                               sweep_runs_at_once(st->sweep) ? name : "", deadline);
    };
    if (st->run.print_config) {
      std::vector<TrainOptions> runs;
      for (const auto& pe : pes)
        for (uint64_t s : seeds) runs.push_back(run_options(pe, s));
      print_run_configs(runs);
      return 0;
    }
    make_dirs(st->out + "/runs");
    make_dirs(st->out + "/eval");

    struct Job {
      PEConfig pe;
      uint64_t seed;
    };
    std::vector<Job> jobs;
    for (const auto& pe : pes)
      for (uint64_t s : seeds) jobs.push_back({pe, s});
    std::vector<std::vector<nlohmann::json>> rows(jobs.size());
    std::mutex log_mu;
    std::string device;  // as the runs report it
    auto label = [&](size_t k) { return pe_label(jobs[k].pe) + " seed " + std::to_string(jobs[k].seed); };
    StopSignalScope signals;  // for the whole sweep: a signal stops it, not just the run in flight
    const bool finished = run_jobs(
        jobs.size(), st->sweep.concurrent, st->sweep.gpus,
        [&](size_t k) {
          const Job& j = jobs[k];
          const TrainOptions o = run_options(j.pe, j.seed);
          nlohmann::json run = train(o);
          std::vector<float> params;  // loaded when an evaluation has to run (finished ones are files)
          for (const auto& scaling : scalings_for(j.pe, st->ex)) {
            PEConfig pl = j.pe;
            pl.rope_scaling = scaling;
            const std::string file = st->out + "/eval/" + pe_label(pl) + "_seed" + std::to_string(j.seed) + ".json";
            // What this evaluation depends on; an existing file made from the same is reused.
            const nlohmann::json key = {{"run_config", run.at("config")}, {"extrapolation", st->ex}, {"scaling", scaling}};
            nlohmann::json row;
            if (file_exists(file)) {
              auto old = nlohmann::json::parse(read_file(file), nullptr, false);
              if (!old.is_discarded() && old.value("key", nlohmann::json()) == key) row = old;
            }
            if (row.is_null()) {
              if (params.empty()) params = load_checkpoint(run.at("checkpoint").get<std::string>()).params;
              row = evaluate_buckets(o.cfg, params, buckets, scaling, base.train.device);
              row["seed"] = j.seed;
              row["key"] = key;
              row["run"] = "runs/" + std::filesystem::path(o.out_json).filename().string();
              row["train_test_acc"] = run["final"]["test"]["acc"];
              write_file_atomic(file, row.dump(2) + "\n");
            }
            std::lock_guard<std::mutex> g(log_mu);
            device = run["environment"].value("device", "");
            std::string accs;
            for (const auto& a : row["acc"]) accs += " " + std::to_string(int(100 * a.get<double>() + 0.5));
            std::fprintf(stderr, "popebench: %s seed %llu acc %% by bucket:%s\n", row["label"].get<std::string>().c_str(),
                         static_cast<unsigned long long>(j.seed), accs.c_str());
            rows[k].push_back(row);
          }
        },
        label);
    if (!finished) {
      std::fprintf(stderr, "popebench: stopped before every run finished; rerun the same command to continue\n");
      return stopped_exit_code();
    }
    std::vector<nlohmann::json> all;
    for (auto& r : rows)
      for (auto& x : r) {
        x.erase("key");
        all.push_back(x);
      }
    nlohmann::json table = summarise_extrapolation(all);
    nlohmann::json out = {{"schema", "popebench.extrapolation"},
                          {"schema_version", 1},
                          {"task", base.task},
                          {"chance", base.task.chance()},
                          {"train_config", base},
                          {"extrapolation", st->ex},
                          {"buckets", buckets_json(buckets)},
                          {"metric", "test accuracy % per bucket, mean and sample std over seeds"},
                          {"table", table},
                          {"rows", all},
                          {"command", g_command_line},
                          {"popebench_version", kPopebenchVersion},
                          {"git_commit", git_commit()},
                          {"environment", environment_json(device, st->run.threads, g_command_line)}};
    write_file_atomic(st->out + "/extrapolation.json", out.dump(2) + "\n");
    const std::string md = extrapolation_heading(out) + extrapolation_markdown(table);
    write_file_atomic(st->out + "/extrapolation.md", md);
    std::printf("%s\nwrote %s/extrapolation.json\n", md.c_str(), st->out.c_str());
    return 0;
  };
}

}  // namespace popebench::cli
