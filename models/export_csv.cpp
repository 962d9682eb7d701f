#include "models/export_csv.hpp"

#include <map>
#include <set>
#include <sstream>

namespace popebench {
namespace {

// A JSON scalar as CSV text: strings bare, numbers as JSON writes them (round-trip exact),
// booleans true/false, null empty. Arrays (e.g. a list of factors) as their JSON text.
std::string scalar_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// Every leaf of a config object, keyed by its dotted path ("config.model.d_model").
void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), prefix + "." + it.key(), out);
    return;
  }
  out[prefix] = scalar_text(j);
}

std::string field_of(const nlohmann::json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) ? scalar_text(obj.at(key)) : "";
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string runs_csv(const std::vector<ExportedRun>& runs, bool curves) {
  std::vector<std::map<std::string, std::string>> configs;
  std::set<std::string> config_cols;
  for (const auto& r : runs) {
    std::map<std::string, std::string> c;
    flatten(r.run.raw.at("config"), "config", c);
    for (const auto& kv : c) config_cols.insert(kv.first);
    configs.push_back(std::move(c));
  }
  const std::vector<std::string> fixed =
      curves ? std::vector<std::string>{"file", "pe", "seed", "step", "lr", "train_loss", "train_acc", "val_loss", "val_acc", "val_n"}
             : std::vector<std::string>{"file", "status", "pe", "seed", "steps", "steps_done", "val_acc", "test_acc", "val_loss",
                                        "test_loss", "steps_per_s", "git_commit", "device", "date"};
  std::ostringstream out;
  auto write_row = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << csv_field(cells[i]);
    out << "\n";
  };
  std::vector<std::string> header = fixed;
  header.insert(header.end(), config_cols.begin(), config_cols.end());
  write_row(header);
  for (size_t k = 0; k < runs.size(); ++k) {
    const RunRecord& r = runs[k].run;
    const nlohmann::json& j = r.raw;
    auto with_config = [&](std::vector<std::string> cells) {
      for (const auto& col : config_cols) {
        auto it = configs[k].find(col);
        cells.push_back(it == configs[k].end() ? "" : it->second);
      }
      write_row(cells);
    };
    if (curves) {
      for (const auto& p : j.value("curve", nlohmann::json::array()))
        with_config({runs[k].file, r.pe, std::to_string(r.seed), field_of(p, "step"), field_of(p, "lr"), field_of(p, "train_loss"),
                     field_of(p, "train_acc"), field_of(p, "val_loss"), field_of(p, "val_acc"), field_of(p, "val_n")});
      continue;
    }
    const bool done = r.status == "complete";
    const nlohmann::json env = j.value("environment", nlohmann::json::object());
    auto num = [](double x) { return nlohmann::json(x).dump(); };
    with_config({runs[k].file, r.status, r.pe, std::to_string(r.seed), std::to_string(r.steps),
                 done ? std::to_string(r.steps) : field_of(j, "steps_done"), done ? num(r.val_acc) : "",
                 done ? num(r.test_acc) : "", done ? num(r.val_loss) : "", done ? num(r.test_loss) : "",
                 j.contains("timing") ? field_of(j.at("timing"), "steps_per_s") : "", field_of(env, "git_commit"),
                 field_of(env, "device"), field_of(env, "date")});
  }
  return out.str();
}

}  // namespace popebench
