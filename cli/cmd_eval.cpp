#include <filesystem>
#include <cstdio>

#include <omp.h>

#include "cli/commands.hpp"
#include "cli/run_options.hpp"
#include "common/files.hpp"
#include "models/transformer.hpp"
#include "generators/dataset_io.hpp"
#include "models/checkpoint.hpp"

namespace popebench::cli {

Runner register_eval(CLI::App& app) {
  struct State {
    std::string checkpoint, data, out, device = "auto";
    int threads = 0;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("eval", "Evaluate a checkpoint on a dataset's validation and test splits");
  cmd->add_option("--checkpoint", st->checkpoint, "Checkpoint written by `popebench train`")->required()->check(non_empty());
  cmd->add_option("--data", st->data, "Dataset directory (default: regenerate the run's own data)");
  cmd->add_option("--out", st->out, "Write the result JSON here (default: print only)")->check(non_empty());
  cmd->add_option("--device", st->device, "auto, cpu or cuda")->default_val("auto");
  cmd->add_option("--threads", st->threads, "CPU threads (0: all cores)")->default_val(0)->check(integer_in(0, 1024));
  return [st]() {
    OpenedCheckpoint opened = open_checkpoint(st->checkpoint, st->out, st->threads);
    Checkpoint& ck = opened.ck;
    RunConfig& cfg = opened.cfg;
    RunConfig data_cfg = cfg;
    Splits data = load_data(data_cfg, st->data);
    // Another task's tokens could fit the vocabulary and score a meaningless accuracy.
    if (data_cfg.task.name != cfg.task.name)
      throw UserError(st->data + " holds " + data_cfg.task.name + " data; the checkpoint was trained on " + cfg.task.name);
    if (data_cfg.model.vocab_size != cfg.model.vocab_size || data_cfg.task.width() > cfg.model.max_len)
      throw UserError(st->data + ": its vocabulary or sequence length does not fit the checkpoint's model");
    auto be = make_backend(cfg, st->device);
    be->set_state(ck.params, ck.m, ck.v);
    std::fprintf(stderr, "popebench: evaluating %s (step %lld) on %zu validation and %zu test examples, %s\n",
                 st->checkpoint.c_str(), static_cast<long long>(ck.step), data.val.size(), data.test.size(),
                 be->device_name().c_str());
    EvalResult val = evaluate(*be, cfg, data.val), test = evaluate(*be, cfg, data.test);
    nlohmann::json out = {{"schema", "popebench.eval"}, {"schema_version", 1}, {"checkpoint", st->checkpoint},
                          {"step", ck.step}, {"config", ck.config}, {"data", data.source},
                          {"val", val}, {"test", test},
                          {"environment", environment_json(be->device_name(), omp_get_max_threads(), g_command_line, be->device_index())}};
    if (!st->out.empty()) {
      const auto parent = std::filesystem::path(st->out).parent_path();
      if (!parent.empty()) make_dirs(parent.string());
      write_file_atomic(st->out, out.dump(2) + "\n");
    }
    std::printf("step %lld  val acc %.2f%% (loss %.4f)  test acc %.2f%% (loss %.4f)\n", static_cast<long long>(ck.step),
                100 * val.acc, val.loss, 100 * test.acc, test.loss);
    return 0;
  };
}

}  // namespace popebench::cli
