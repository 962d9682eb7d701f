// popebench list: what the suite offers by name, one line each: the shipped presets (with the
// options each sets, from configs/presets/), the positional embeddings and the tasks.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/presets.hpp"
#include "generators/task.hpp"
#include "model/pe/pe_registry.hpp"
#include "config/config.hpp"

namespace popebench::cli {

Runner register_list(CLI::App& app) {
  auto as_json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("list", "List the presets, positional embeddings and tasks, one line each");
  cmd->add_flag("--json", *as_json, "As one JSON object (presets with their seeds and options)");
  return [as_json](const std::string&) -> int {
    nlohmann::json out = {{"presets", nlohmann::json::array()}, {"positional_embeddings", nlohmann::json::array()},
                          {"tasks", nlohmann::json::array()}};
    for (const auto& [name, text] : shipped_presets()) {
      const Preset p = read_preset(name);
      out["presets"].push_back({{"name", name}, {"description", p.description}, {"seeds", p.seeds}, {"args", p.args}});
    }
    for (const auto& k : pe_kinds())
      out["positional_embeddings"].push_back({{"name", k.name}, {"help", k.help}, {"gpu", k.gpu != nullptr}});
    for (const auto& k : task_kinds()) out["tasks"].push_back({{"name", k.name}, {"help", k.help}});
    if (*as_json) {
      std::printf("%s\n", out.dump(2).c_str());
      return 0;
    }
    std::printf("presets (--preset NAME, or a preset file's path; configs/presets/NAME.json):\n");
    for (const auto& p : out["presets"]) {
      std::string args;
      for (const auto& a : p["args"]) args += " " + a.get<std::string>();
      std::string seeds;
      for (const auto& s : p["seeds"]) seeds += (seeds.empty() ? "" : ",") + std::to_string(s.get<uint64_t>());
      std::printf("  %-19s %s\n  %-19s seeds %s; options:%s\n", p["name"].get<std::string>().c_str(),
                  p["description"].get<std::string>().c_str(), "", seeds.c_str(), args.empty() ? " none" : args.c_str());
    }
    std::printf("positional embeddings (--pe):\n");
    for (const auto& k : pe_kinds())
      std::printf("  %-19s %s%s\n", k.name.c_str(), k.help.c_str(), k.gpu ? "" : " (CPU only: no GPU kernel)");
    std::printf("tasks (--task; docs/tasks.md):\n");
    for (const auto& k : task_kinds()) std::printf("  %-19s %s\n", k.name, k.help);
    return 0;
  };
}

}  // namespace popebench::cli
