#include "cli/sweep_plan.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/error.hpp"
#include "common/json_read.hpp"
#include "config/config.hpp"

namespace popebench::cli {
namespace {

std::vector<std::string> string_list(const nlohmann::json& j, const std::string& where) {
  if (!j.is_array()) throw UserError(where + " must be a list of strings");
  std::vector<std::string> out;
  for (const auto& x : j) {
    if (!x.is_string()) throw UserError(where + " must be a list of strings");
    out.push_back(x.get<std::string>());
  }
  return out;
}

void refuse_unknown_keys(const nlohmann::json& j, const std::set<std::string>& known, const std::string& where) {
  for (const auto& [k, v] : j.items())
    if (!known.count(k)) throw UserError(where + ": unknown key '" + k.substr(0, 40) + "'");
}

// How a cell is named in messages: its name when it is a folder name, else its first characters.
std::string cell_label(const nlohmann::json& c) {
  if (!c.contains("name") || !c["name"].is_string()) return "?";
  const std::string n = c["name"];
  return is_folder_name(n) ? n : n.substr(0, 40) + (n.size() > 40 ? "..." : "");
}

}  // namespace

// A plain loop, not std::regex, whose matcher recursed once per character and ran out of stack on
// a name of ~100,000 characters. 100 leaves room under any file system's 255-byte name limit for
// the run files inside ("pope-delta2pi_seed123.json.ckpt.step100000").
bool is_folder_name(const std::string& s) {
  auto plain = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-'; };
  return !s.empty() && s.size() <= 100 && std::isalnum(static_cast<unsigned char>(s[0])) && std::all_of(s.begin(), s.end(), plain);
}

Plan parse_plan(const nlohmann::json& plan, const std::string& path) {
  if (!plan.is_object()) throw UserError(path + " is not a JSON object");
  refuse_unknown_keys(plan, {"name", "description", "preset", "args", "cells"}, path);
  for (const char* key : {"name", "description", "preset"})
    if (plan.contains(key) && !plan[key].is_string()) throw UserError(path + ": " + key + " must be a string");
  Plan out;
  out.preset = plan.value("preset", std::string("paper"));
  out.name = plan.value("name", path);
  const auto common = plan.contains("args") ? string_list(plan["args"], path + ": args") : std::vector<std::string>{};
  if (!plan.contains("cells") || !plan["cells"].is_array() || plan["cells"].empty())
    throw UserError(path + ": cells must be a non-empty list");
  std::set<std::string> names;
  for (const auto& c : plan["cells"]) {
    if (!c.is_object()) throw UserError(path + ": every cell must be an object");
    const std::string where = path + ": cell " + cell_label(c);
    refuse_unknown_keys(c, {"name", "why", "args", "pe", "seeds"}, where);
    PlanCell cell;
    if (!c.contains("name") || !c["name"].is_string() || !is_folder_name(c["name"].get<std::string>()))
      throw UserError(where + ": name must be 1-100 letters, digits, '_', '.', '-', not starting with '_', '.' or '-' "
                              "(it names the cell's folder)");
    cell.name = c["name"];
    if (!names.insert(cell.name).second) throw UserError(path + ": two cells are named " + cell.name);
    if (c.contains("why") && !c["why"].is_string()) throw UserError(where + ": why must be a string");
    cell.args = common;
    if (c.contains("args"))
      for (auto& a : string_list(c["args"], where + ": args")) cell.args.push_back(a);
    if (!c.contains("pe")) throw UserError(where + ": pe is missing");
    cell.pes = string_list(c["pe"], where + ": pe");
    if (!c.contains("seeds") || !c["seeds"].is_array()) throw UserError(where + ": seeds must be a list of integers");
    for (const auto& s : c["seeds"]) {
      if (!s.is_number_integer() || s.get<int64_t>() < 0) throw UserError(where + ": seeds must be integers >= 0");
      cell.seeds.push_back(s.get<uint64_t>());
    }
    if (cell.pes.empty() || cell.seeds.empty()) throw UserError(where + ": pe and seeds must not be empty");
    // A row of a summary is a set of distinct runs: a repeated PE or seed would count one run twice.
    if (std::set<std::string>(cell.pes.begin(), cell.pes.end()).size() != cell.pes.size())
      throw UserError(where + ": a PE is listed twice");
    if (std::set<uint64_t>(cell.seeds.begin(), cell.seeds.end()).size() != cell.seeds.size())
      throw UserError(where + ": a seed is listed twice");
    for (const auto& pe : cell.pes) {
      PEConfig p;
      p.kind = pe;
      try {
        p.validate();
      } catch (const UserError& e) {
        throw UserError(where + ": " + e.what());
      }
    }
    out.cells.push_back(std::move(cell));
  }
  return out;
}

Plan read_plan_file(const std::string& path) { return parse_plan(read_json_file(path), path); }

}  // namespace popebench::cli
