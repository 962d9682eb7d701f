// popebench eval: a checkpoint on a dataset's validation and test splits, and with --factors on
// length buckets up to 10x its training length, as `extrapolate` evaluates right after training
// (the same buckets from the run's data seed, so the same numbers for the same checkpoint).
#include <algorithm>
#include <filesystem>
#include <cstdio>

#include <omp.h>

#include "cli/commands.hpp"
#include "cli/command_line.hpp"
#include "cli/open_checkpoint.hpp"
#include "common/files.hpp"
#include "model/transformer.hpp"
#include "generators/dataset_io.hpp"
#include "train/checkpoint.hpp"
#include "report/extrapolation.hpp"
#include "common/environment.hpp"
#include "train/evaluate.hpp"
#include "train/run_data.hpp"

namespace popebench::cli {

Runner register_eval(CLI::App& app) {
  struct State {
    std::string checkpoint, data, out, device = "auto", factors, variants = "none", attention;
    int threads = 0;
    ExtrapolationConfig ex;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("eval", "Evaluate a checkpoint on a dataset's validation and test splits");
  cmd->add_option("--checkpoint", st->checkpoint, "Checkpoint written by `popebench train`")->required()->check(non_empty());
  cmd->add_option("--data", st->data, "Dataset directory (default: regenerate the run's own data)");
  cmd->add_option("--out", st->out, "Write the result JSON here (default: print only)")->check(non_empty());
  cmd->add_option("--device", st->device, choices::kDevice.help())->default_val("auto")->check(CLI::IsMember(choices::kDevice.names()));
  cmd->add_option("--gpu-attention", st->attention,
                  "GPU attention's products for this evaluation (default: the checkpoint's own; bf16 for long "
                  "buckets): " + choices::kGpuAttention.help())
      ->check(CLI::IsMember(choices::kGpuAttention.names()));
  cmd->add_option("--threads", st->threads, "CPU threads (0: all cores)")->default_val(0)->check(integer_in(0, 1024));
  cmd->add_option("--factors", st->factors,
                  "Also evaluate on length buckets, as multiples of the training max length (e.g. 1,2,5,10; "
                  "relative PEs only: a learned position table has no rows beyond its training length)")
      ->check(non_empty());
  cmd->add_option("--bucket-examples", st->ex.examples, "Test examples per length bucket")->default_val(st->ex.examples)
      ->check(integer_in(1, 100000000));
  cmd->add_option("--factor-of", st->ex.base_len,
                  "With --factors: multiples of this length instead of the checkpoint's training max length (a model "
                  "fine-tuned at 4 L evaluated at its base model's lengths: --factor-of L)")
      ->check(integer_in(1, 1000000));
  cmd->add_option("--rope-variants", st->variants, "With --factors, for RoPE checkpoints: also pi, ntk, yarn (rope only) (or none)")
      ->default_val(st->variants)->check(non_empty());
  return [st](const std::string& command) {
    OpenedCheckpoint opened = open_checkpoint(st->checkpoint, st->out, st->threads);
    Checkpoint& ck = opened.ck;
    RunConfig& cfg = opened.cfg;
    std::vector<Bucket> buckets;  // --factors: checked before any evaluation runs
    if (!st->factors.empty()) {
      st->ex.factors = parse_int_list(st->factors, "--factors");
      st->ex.rope_variants = parse_rope_variants(st->variants);
      st->ex.validate();
      buckets = make_buckets(cfg.task, cfg.train.data_seed, st->ex);
      const int need = longest_input(buckets) + 1;
      if (need > cfg.model.max_len) {
        // Only a learned table's rows are parameters of the length; every other PE computes its
        // positions, so the model is rebuilt for the longest bucket with the same parameters.
        if (cfg.pe.kind == "learned" || cfg.model.abs_pos == AbsPos::kLearned)
          throw UserError("--factors: the checkpoint's learned position table has " + std::to_string(cfg.model.max_len) +
                          " rows; the longest bucket needs " + std::to_string(need) + " (a learned table does not extrapolate)");
        cfg.model.max_len = need;
      }
    } else if (st->variants != "none") {
      throw UserError("--rope-variants applies with --factors only");
    } else if (st->ex.base_len > 0) {
      throw UserError("--factor-of applies with --factors only");
    }
    if (!st->attention.empty()) cfg.train.gpu_attention = choices::kGpuAttention.parse(st->attention);  // the recorded config stays as trained
    RunConfig data_cfg = cfg;
    Splits data = load_data(data_cfg, st->data);
    if (!st->data.empty()) require_dataset_fits(st->data, data_cfg.task, cfg);
    auto be = make_backend(cfg, choices::kDevice.parse(st->device));
    be->set_state(ck.params, ck.m, ck.v);
    std::fprintf(stderr, "popebench: evaluating %s (step %lld) on %zu validation and %zu test examples, %s\n",
                 st->checkpoint.c_str(), static_cast<long long>(ck.step), data.val.size(), data.test.size(),
                 be->device_name().c_str());
    EvalResult val = evaluate(*be, cfg, data.val), test = evaluate(*be, cfg, data.test);
    nlohmann::json out = {{"schema", "popebench.eval"}, {"schema_version", 1}, {"checkpoint", st->checkpoint},
                          {"step", ck.step}, {"config", ck.config}, {"gpu_attention", cfg.train.gpu_attention},
                          {"data", data.source},
                          {"val", val}, {"test", test},
                          {"environment", environment_json(be->device_name(), omp_get_max_threads(), command, be->device_index())}};
    std::string table;
    if (!buckets.empty()) {
      nlohmann::json rows = nlohmann::json::array();
      std::fprintf(stderr, "popebench: evaluating on %zu length buckets of %lld examples\n", buckets.size(),
                   static_cast<long long>(st->ex.examples));
      for (const auto& scaling : scalings_for(cfg.pe, st->ex)) {
        nlohmann::json row = evaluate_buckets(cfg, ck.params, buckets, scaling, choices::kDevice.parse(st->device));
        row["seed"] = cfg.train.seed;
        rows.push_back(row);
      }
      out["extrapolation"] = {{"config", st->ex}, {"buckets", buckets_json(buckets)}, {"rows", rows}, {"chance", cfg.task.chance()}};
      table = extrapolation_markdown(summarise_extrapolation(rows.get<std::vector<nlohmann::json>>()));  // one seed: no spread
    }
    if (!st->out.empty()) {
      const auto parent = std::filesystem::path(st->out).parent_path();
      if (!parent.empty()) make_dirs(parent.string());
      write_file_atomic(st->out, out.dump(2) + "\n");
    }
    std::printf("step %lld  val acc %.2f%% (loss %.4f)  test acc %.2f%% (loss %.4f)\n", static_cast<long long>(ck.step),
                100 * val.acc, val.loss, 100 * test.acc, test.loss);
    if (!table.empty()) std::printf("test accuracy %% by length bucket (chance %.1f %%):\n%s", 100 * cfg.task.chance(), table.c_str());
    return 0;
  };
}

}  // namespace popebench::cli
