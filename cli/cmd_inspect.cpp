// popebench inspect: diagnostics of a checkpoint (report/inspect.hpp): of any task, which
// frequencies attention uses; of Indirect Indexing, also where it looks and what it gets right.
#include <cstdio>
#include <filesystem>

#include <omp.h>

#include "cli/commands.hpp"
#include "cli/command_line.hpp"
#include "cli/open_checkpoint.hpp"
#include "common/files.hpp"
#include "generators/dataset_io.hpp"
#include "train/checkpoint.hpp"
#include "report/inspect.hpp"
#include "common/environment.hpp"

namespace popebench::cli {

Runner register_inspect(CLI::App& app) {
  struct State {
    std::string checkpoint, data, out, predictions, split = "test";
    InspectOptions o;
    int threads = 0;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("inspect", "Diagnostics of a checkpoint: which frequencies attention uses and PoPE's delta; "
                                            "of Indirect Indexing also accuracy by shift, length and source position, "
                                            "attention from the answer position, examples");
  cmd->add_option("checkpoint", st->checkpoint, "Checkpoint written by a run (RUN.json.ckpt)")->required()->check(non_empty());
  cmd->add_option("--data", st->data, "Dataset directory (default: regenerate the run's own data)")->check(non_empty());
  cmd->add_option("--split", st->split, "val or test")->default_val("test")->check(CLI::IsMember({"val", "test"}));
  cmd->add_option("--examples", st->o.examples, "The split's first N examples (0: all)")->default_val(0)->check(integer_in(0, 1LL << 40));
  cmd->add_option("--show", st->o.show, "Examples listed with their predictions")->default_val(20)->check(integer_in(0, 100000));
  cmd->add_option("--batch", st->o.batch, "Examples per forward pass")->default_val(256)->check(integer_in(1, 1 << 16));
  cmd->add_option("--out", st->out, "Write the JSON here (default: standard output)")->check(non_empty());
  cmd->add_option("--predictions", st->predictions,
                  "Also write every inspected example's prediction here as CSV (index, example, string length, "
                  "source position, shift, target, prediction, correct, class)")
      ->check(non_empty());
  cmd->add_option("--threads", st->threads, "CPU threads (0: all cores)")->default_val(0)->check(integer_in(0, 1024));
  return [st](const std::string& command) {
    OpenedCheckpoint opened = open_checkpoint(st->checkpoint, st->out, st->threads, {{st->predictions, "--predictions"}});
    Checkpoint& ck = opened.ck;
    RunConfig& cfg = opened.cfg;
    // Indirect Indexing models get the task's own diagnostics; every model, the frequency usage.
    const bool indirect_indexing = cfg.task.is<IndirectIndexingConfig>();
    if (!indirect_indexing && !st->predictions.empty())
      throw UserError("--predictions lists Indirect Indexing examples; this checkpoint's task is " + cfg.task.name());
    const Split split = st->split == "val" ? Split::kVal : Split::kTest;
    Dataset d;
    nlohmann::json source;
    if (st->data.empty()) {  // only the split asked for: the paper's training split is 6.4M examples
      d = generate_split(cfg.task, cfg.train.data_seed, split);
      source = generated_data_source(cfg.task, cfg.train.data_seed);
    } else {
      DatasetDir info = open_dataset_dir(st->data);
      require_dataset_fits(st->data, info.task, cfg);
      cfg.task = info.task;
      d = load_split(st->data, info, split);
      source = {{"kind", "directory"}, {"dir", st->data}, {"checksum", info.manifest["splits"][st->split]["checksum"]}};
    }
    std::vector<PredictionRow> rows;  // --predictions
    nlohmann::json out = {{"schema", "popebench.inspect"}, {"schema_version", 1}, {"checkpoint", st->checkpoint},
                          {"step", ck.step}, {"config", ck.config}, {"data", source}, {"split", st->split},
                          {"result", indirect_indexing
                                         ? inspect_model(cfg, ck.params, d, st->o, st->predictions.empty() ? nullptr : &rows)
                                         : inspect_frequencies(cfg, ck.params, d, st->o)},
                          {"environment", environment_json("cpu", omp_get_max_threads(), command)}};
    if (!st->predictions.empty()) {
      const auto parent = std::filesystem::path(st->predictions).parent_path();
      if (!parent.empty()) make_dirs(parent.string());
      write_file_atomic(st->predictions, predictions_csv(rows));
    }
    const std::string text = out.dump(2) + "\n";
    if (st->out.empty()) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      return 0;
    }
    const auto parent = std::filesystem::path(st->out).parent_path();
    if (!parent.empty()) make_dirs(parent.string());
    write_file_atomic(st->out, text);
    const auto& r = out["result"];
    if (indirect_indexing)
      std::fprintf(stderr, "step %lld  %s acc %.2f%% over %zu examples -> %s\n", static_cast<long long>(ck.step),
                   st->split.c_str(), 100 * r["acc"].get<double>(), r["n"].get<size_t>(), st->out.c_str());
    else
      std::fprintf(stderr, "step %lld  %s: frequency usage over %zu records -> %s\n", static_cast<long long>(ck.step),
                   st->split.c_str(), r["n"].get<size_t>(), st->out.c_str());
    return 0;
  };
}

}  // namespace popebench::cli
