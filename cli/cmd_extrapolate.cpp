// popebench extrapolate: trains each (PE, seed) at the training lengths (the sweep engine,
// cli/cell_sweep.hpp: one cell), then evaluates each finished run with no fine-tuning on length
// buckets up to 10x (report/extrapolation.hpp), RoPE runs also with position interpolation and
// NTK scaling. Every finished run and every finished evaluation is a file in --out, so a stopped
// job reruns only what is missing.
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>

#include "cli/cell_sweep.hpp"
#include "cli/commands.hpp"
#include "cli/presets.hpp"
#include "cli/command_line.hpp"
#include "cli/sweep_options.hpp"
#include "common/files.hpp"
#include "common/version.hpp"
#include "common/json_read.hpp"
#include "train/checkpoint.hpp"
#include "report/extrapolation.hpp"
#include "model/pe/label.hpp"
#include "common/environment.hpp"

namespace popebench::cli {

Runner register_extrapolate(CLI::App& app, const std::string& preset) {
  struct State {
    RunOptions run;
    SweepOptions sweep;
    ExtrapolationConfig ex;
    std::string pes = "rope,pope,pope-delta0,alibi,none", factors, variants = "pi,ntk", out, attention;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("extrapolate", "Train at the training lengths, evaluate zero-shot up to 10x longer");
  cmd->add_option("--pe", st->pes, "Comma-separated PEs to train (pope-delta0: PoPE with delta init zero)")
      ->default_val(st->pes)->check(non_empty());
  cmd->add_option("--factors", st->factors, "Length buckets as multiples of the training max length (default 1..10)")
      ->check(non_empty());
  cmd->add_option("--bucket-examples", st->ex.examples, "Test examples per bucket")->default_val(st->ex.examples)
      ->check(integer_in(1, 100000000));
  cmd->add_option("--rope-variants", st->variants, "Test-time RoPE scalings evaluated for rope runs: pi, ntk, yarn (rope only) (or none)")
      ->default_val(st->variants)->check(non_empty());
  cmd->add_option("--eval-gpu-attention", st->attention,
                  "GPU attention's products for the evaluations (default: as each run trained): " +
                      choices::kGpuAttention.help())
      ->check(CLI::IsMember(choices::kGpuAttention.names()));
  cmd->add_option("--out", st->out, "Output directory")->required()->check(non_empty());
  add_sweep_options(*cmd, st->sweep, st->run, "extrapolation", preset,
                    "extrapolation (small model, minutes on a GPU), quick or paper");
  add_batch_runs_option(*cmd, st->sweep);
  return [st](const std::string& command) {
    st->sweep.command = command;
    std::vector<uint64_t> seeds = sweep_seeds(st->sweep);
    if (!st->factors.empty()) st->ex.factors = parse_int_list(st->factors, "--factors");
    st->ex.rope_variants = parse_rope_variants(st->variants);
    if (!st->attention.empty()) st->ex.gpu_attention = choices::kGpuAttention.parse(st->attention);
    st->ex.validate();
    if (!st->run.data_dir.empty()) throw UserError("extrapolate generates its data; --data is not supported here");
    finish_run_options(st->run);
    check_sweep_gpus(st->sweep, st->run.cfg);
    RunConfig& base = st->run.cfg;
    // A large enough alphabet for unique symbols at the longest bucket, unless one was given.
    const int max_factor = st->ex.factors.back();
    if (!st->run.task.given("--alphabet")) {
      const int need = max_factor * base.task.max_len();
      const int alphabet = need <= 52 ? 52 : std::max(512, need);
      std::visit([&](auto& t) {
        if constexpr (requires { std::decay_t<decltype(t)>::kDistinctSymbols; }) t.alphabet = alphabet;
      }, base.task.params);
      base.task.validate();
    }
    base.size_model_for_task();
    auto buckets = make_buckets(base.task, base.train.data_seed, st->ex);
    base.model.max_len = longest_input(buckets) + 1;  // built for the longest bucket, not the training length
    const std::vector<std::string> pes = parse_distinct_list(st->pes, "--pe");
    for (const auto& name : pes) pe_from_label(name, base.pe);  // each label valid before anything runs
    if (pes.empty() || seeds.empty()) throw UserError("nothing to run: --pe and --seeds must not be empty");
    // One cell: the PEs and seeds at the training lengths, runs in OUT/runs, no summary of their
    // own (the table below is the command's).
    SweepCell cell;
    cell.run = st->run;
    cell.pes = pes;
    cell.seeds = seeds;
    cell.planned_runs = pes.size() * seeds.size();
    cell.summarise = false;
    const std::string runs_dir = st->out + "/runs";
    if (st->run.print_config) return run_cell_sweep({cell}, runs_dir, st->sweep, Shard{}, true);
    make_dirs(runs_dir);
    make_dirs(st->out + "/eval");

    // Each run's evaluations, in the order of its scalings, by (PE label, seed).
    std::map<std::pair<std::string, uint64_t>, std::vector<nlohmann::json>> rows;
    std::mutex rows_mu;
    std::string device;  // as the runs report it
    auto evaluate_run = [&](const SweepRun& j, const nlohmann::json& run) {
      std::vector<float> params;  // loaded when an evaluation has to run (finished ones are files)
      std::vector<nlohmann::json> mine;
      for (const auto& scaling : scalings_for(j.opt.cfg.pe, st->ex)) {
        PEConfig pl = j.opt.cfg.pe;
        pl.rope_scaling = scaling;
        const std::string file = st->out + "/eval/" + pe_label(pl) + "_seed" + std::to_string(j.seed) + ".json";
        // What this evaluation depends on; an existing file made from the same is reused.
        const nlohmann::json key = {{"run_config", run.at("config")}, {"extrapolation", st->ex}, {"scaling", scaling}};
        nlohmann::json row;
        if (file_exists(file)) {
          nlohmann::json old;
          try {
            old = read_json_file(file);
          } catch (const UserError&) {  // a cut or foreign cache file: evaluate again
          }
          if (old.is_object() && old.value("key", nlohmann::json()) == key) row = old;
        }
        if (row.is_null()) {
          if (params.empty()) params = load_checkpoint(run.at("checkpoint").get<std::string>()).params;
          RunConfig ec = j.opt.cfg;
          if (st->ex.gpu_attention) ec.train.gpu_attention = *st->ex.gpu_attention;
          row = evaluate_buckets(ec, params, buckets, scaling, base.train.device);
          row["seed"] = j.seed;
          row["key"] = key;
          row["run"] = "runs/" + std::filesystem::path(j.opt.out_json).filename().string();
          row["train_test_acc"] = run["final"]["test"]["acc"];
          write_file_atomic(file, row.dump(2) + "\n");
        }
        std::string accs;
        for (const auto& a : row["acc"]) accs += " " + std::to_string(int(100 * a.get<double>() + 0.5));
        std::fprintf(stderr, "popebench: %s seed %llu acc %% by bucket:%s\n", row["label"].get<std::string>().c_str(),
                     static_cast<unsigned long long>(j.seed), accs.c_str());
        mine.push_back(std::move(row));
      }
      std::lock_guard<std::mutex> g(rows_mu);
      device = run["environment"].value("device", "");
      rows[{j.pe, j.seed}] = std::move(mine);
    };
    const int rc = run_cell_sweep({cell}, runs_dir, st->sweep, Shard{}, false, evaluate_run);
    if (rc != 0) return rc;
    std::vector<nlohmann::json> all;  // in the run list's order: PEs as listed, then seeds
    for (const auto& pe : pes)
      for (uint64_t seed : seeds)
        for (auto& x : rows.at({pe, seed})) {
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
                          {"metric", extrapolation_metric(all) == "acc"
                                         ? "test accuracy % per bucket, mean and sample std over seeds"
                                         : "test bits per byte per bucket, mean and sample std over seeds"},
                          {"table", table},
                          {"rows", all},
                          {"command", command},
                          {"popebench_version", kPopebenchVersion},
                          {"git_commit", git_commit()},
                          {"environment", environment_json(device, st->run.threads, command)}};
    if (nlohmann::json corpus = task_corpus_json(base.task); !corpus.is_null()) out["corpus"] = corpus;
    write_file_atomic(st->out + "/extrapolation.json", out.dump(2) + "\n");
    const std::string md = extrapolation_heading(out) + extrapolation_markdown(table);
    write_file_atomic(st->out + "/extrapolation.md", md);
    std::printf("%s\nwrote %s/extrapolation.json\n", md.c_str(), st->out.c_str());
    return 0;
  };
}

}  // namespace popebench::cli
