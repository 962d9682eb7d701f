#include "cli/presets.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "common/files.hpp"

namespace popebench::cli {

bool is_preset_path(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

Preset read_preset(const std::string& name) {
  if (is_preset_path(name)) {
    if (!file_exists(name)) throw UserError("preset file " + name + " does not exist");
    Preset p = parse_preset(read_file(name), "preset file " + name);
    if (p.name.empty()) p.name = name;
    return p;
  }
  std::string known;
  for (const auto& [n, text] : shipped_presets()) {
    if (n == name) return parse_preset(text, "preset " + name);
    known += (known.empty() ? "" : ", ") + n;
  }
  throw UserError("unknown preset '" + name + "' (known: " + known + "; or a path to a preset file)");
}

}  // namespace popebench::cli
