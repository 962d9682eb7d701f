#include "cli/presets.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/run_options.hpp"
#include "common/files.hpp"
#include "common/json_read.hpp"

namespace popebench::cli {

namespace {

bool is_path(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

Preset parse_preset(const std::string& text, const std::string& where) {
  const nlohmann::json j = parse_json_document(text, where);
  if (!j.is_object()) throw UserError(where + " is not a JSON object");
  static const std::set<std::string> known = {"name", "description", "seeds", "args"};
  for (const auto& [k, v] : j.items())
    if (!known.count(k)) throw UserError(where + ": unknown key '" + k + "' (known: name, description, seeds, args)");
  Preset p;
  if (j.contains("name")) {
    if (!j["name"].is_string()) throw UserError(where + ": name must be a string");
    p.name = j["name"].get<std::string>();
  }
  if (j.contains("description")) {
    if (!j["description"].is_string()) throw UserError(where + ": description must be a string");
    p.description = j["description"].get<std::string>();
  }
  if (!j.contains("seeds") || !j["seeds"].is_array() || j["seeds"].empty())
    throw UserError(where + ": seeds must be a non-empty list of seeds");
  for (const auto& s : j["seeds"]) {
    if (!s.is_number_unsigned()) throw UserError(where + ": every seed must be an integer >= 0");
    const uint64_t seed = s.get<uint64_t>();
    if (std::find(p.seeds.begin(), p.seeds.end(), seed) != p.seeds.end())
      throw UserError(where + ": seed " + std::to_string(seed) + " is listed twice");
    p.seeds.push_back(seed);
  }
  if (!j.contains("args") || !j["args"].is_array()) throw UserError(where + ": args must be a list of strings");
  for (const auto& a : j["args"]) {
    if (!a.is_string()) throw UserError(where + ": args must be a list of strings");
    p.args.push_back(a.get<std::string>());
  }
  return p;
}

}  // namespace

Preset read_preset(const std::string& name) {
  if (is_path(name)) {
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

void apply_preset(const std::string& name, RunConfig& c, std::vector<uint64_t>& seeds) {
  const Preset p = read_preset(name);
  c = parse_run_args(p.args, RunConfig{}, is_path(name) ? "preset file " + name : "preset " + name).cfg;
  seeds = p.seeds;
}

}  // namespace popebench::cli
