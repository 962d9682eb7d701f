// popebench: one CLI for datasets, training, evaluation and benchmarks.
// Errors the user can fix are reported on one line, "popebench: error: ...", with exit code 2.
#include <cstdio>
#include <map>

#include "cli/commands.hpp"
#include "cli/command_line.hpp"
#include "common/error.hpp"
#include "common/utf8.hpp"
#include "common/version.hpp"
#include "kernels/device.hpp"

int main(int argc, char** argv) {
  using namespace popebench;
  // Line by line even into a file or pipe: a job killed by a time limit (or a signal that ends
  // it before exit flushes) leaves every line it finished in its log.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  for (int i = 1; i < argc; ++i)  // common/utf8.hpp: what reaches JSON is UTF-8, checked before any work
    if (!is_utf8(argv[i])) {
      std::fprintf(stderr, "popebench: error: argument %d ('%s') is not UTF-8 text; popebench records its arguments in JSON, "
                           "which holds UTF-8 only\n", i, escaped_bytes(argv[i]).c_str());
      return 2;
    }
  CLI::App app{"popebench: positional-embedding benchmarks (PoPE vs RoPE and friends)"};
  app.set_version_flag("--version", std::string(kPopebenchVersion) + " (" + git_commit() + ")");
  app.require_subcommand(1);
  std::map<CLI::App*, cli::Runner> runners;
  auto add = [&](cli::Runner r) { runners[app.get_subcommands({}).back()] = std::move(r); };
  add(cli::register_generate(app));
  add(cli::register_train(app, argc > 1 && std::string(argv[1]) == "train" ? cli::prescan_option(argc, argv, "--preset") : ""));
  add(cli::register_eval(app));
  add(cli::register_inspect(app));
  add(cli::register_bench(app));
  add(cli::register_merge(app));
  add(cli::register_export(app));
  add(cli::register_sweep(app));
  add(cli::register_list(app));
  // `reproduce` without --preset on a machine that would train on its CPU runs the quick preset:
  // the paper's six 100k-step runs take about a month on two cores (0.22 steps/s measured).
  bool reproduce_on_cpu = false;
  if (argc > 1 && std::string(argv[1]) == "reproduce" && cli::prescan_option(argc, argv, "--preset").empty()) {
    const std::string device = cli::prescan_option(argc, argv, "--device");
    reproduce_on_cpu = device == "cpu" || (device != "cuda" && query_device().cuda_devices == 0);
  }
  add(cli::register_reproduce(app, cli::prescan_option(argc, argv, "--preset"), reproduce_on_cpu));
  add(cli::register_extrapolate(app, cli::prescan_option(argc, argv, "--preset")));
  const std::string command = cli::command_line(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "popebench: error: %s (see --help)\n", e.what());
    return 2;
  } catch (const UserError& e) {  // from an option's own parser (e.g. a list), run while parsing
    std::fprintf(stderr, "popebench: error: %s (see --help)\n", e.what());
    return 2;
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run(command);
  } catch (const UserError& e) {
    std::fprintf(stderr, "popebench: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "popebench: error: out of memory\n");
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "popebench: internal error: %s\n", e.what());
    return 4;
  }
  return 1;
}
