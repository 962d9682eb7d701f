// A preset's text read as a structure (cli/presets.hpp): the bounded JSON reader, then every
// field's type, the seeds and the args. What the args mean is parse_run_args's (presets.cpp), so
// this reader needs no model and is fuzzed on its own (fuzz/fuzz_preset.cpp).
#include <algorithm>
#include <set>

#include "cli/presets.hpp"
#include "common/error.hpp"
#include "common/json_read.hpp"

namespace popebench::cli {

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

}  // namespace popebench::cli
