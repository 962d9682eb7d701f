#include <chrono>
#include <cstdio>

#include <climits>

#include "cli/commands.hpp"
#include "cli/command_line.hpp"
#include "generators/dataset_io.hpp"

namespace popebench::cli {

Runner register_generate(CLI::App& app) {
  struct State {
    GenerateOptions opt;
    TaskOptions task;
    std::string out, format = "binary";
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("generate", "Generate a task's train/val/test splits and manifest");
  add_task_options(*cmd, st->task);
  cmd->add_option("--out", st->out, "Output directory")->required()->check(non_empty());
  cmd->add_option("--seed", st->opt.seed, "Seed; splits come from independent streams derived from it")
      ->default_val(0)->check(integer_in(0, LLONG_MAX));
  cmd->add_option("--format", st->format, "binary (compact, for training) or text (one example per line)")
      ->default_val("binary")->check(CLI::IsMember({"binary", "text"}));
  return [st](const std::string&) {
    apply_task_options(st->task, st->opt.task);
    st->opt.storage = st->format == "text" ? DatasetStorage::kText : DatasetStorage::kBinary;
    auto t0 = std::chrono::steady_clock::now();
    auto m = write_dataset_dir(st->out, st->opt);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const char* sp : {"train", "val", "test"})
      std::printf("%-5s %9llu examples  %s  %s\n", sp,
                  static_cast<unsigned long long>(m["splits"][sp]["count"].get<uint64_t>()),
                  m["splits"][sp]["checksum"].get<std::string>().c_str(),
                  (st->out + "/" + m["splits"][sp]["file"].get<std::string>()).c_str());
    std::printf("wrote %s/manifest.json in %.2f s\n", st->out.c_str(), s);
    return 0;
  };
}

}  // namespace popebench::cli
