#include "report/export_csv.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <map>
#include <set>
#include <sstream>

#include "common/files.hpp"
#include "common/json_read.hpp"
#include "report/extrapolation.hpp"
#include "train/step_log.hpp"

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

std::string csv_field(const std::string& in) {
  // A text cell that a spreadsheet would read as a formula (=, +, -, @, tab, CR first) gets a
  // leading "'", OWASP's rule; numbers (-0.5, +3, 1e-3) are left as they are.
  std::string s = in;
  if (!s.empty() && std::string("=+-@\t\r").find(s[0]) != std::string::npos) {
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) s = "'" + s;
  }
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

namespace {

// Rows of CSV text, each field through csv_field.
class CsvWriter {
 public:
  void row(const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) out_ << (i ? "," : "") << csv_field(cells[i]);
    out_ << "\n";
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

// Columns some rows have and others may not: each row's values by column name, and the union of
// the names, sorted; a row lacking a column gets an empty field.
struct ColumnSet {
  std::vector<std::map<std::string, std::string>> values;  // one map per source (run, table)
  std::set<std::string> names;
  void add(std::map<std::string, std::string> v) {
    for (const auto& kv : v) names.insert(kv.first);
    values.push_back(std::move(v));
  }
  // cells, then source k's value of every column in `names`.
  std::vector<std::string> with(std::vector<std::string> cells, size_t k) const {
    for (const auto& col : names) {
      const auto it = values[k].find(col);
      cells.push_back(it == values[k].end() ? "" : it->second);
    }
    return cells;
  }
};

}  // namespace

static nlohmann::json exported_config(const nlohmann::json& config, const std::string& what) {
  nlohmann::json c;
  try {
    c = normalized_config(config);  // every field, an older file's missing ones at their defaults
  } catch (const nlohmann::json::exception& e) {
    throw UserError(what + ": its config is not as popebench writes it (" + std::string(e.what()) + ")");
  }
  // Fields the run JSON records only when set, at their documented defaults (results/SCHEMA.md).
  if (!c["train"].contains("loss_fields")) c["train"]["loss_fields"] = nlohmann::json::array();
  if (!c["train"].contains("curriculum_steps")) c["train"]["curriculum_steps"] = 0;
  if (!c["pe"].contains("rope_train_len")) c["pe"]["rope_train_len"] = 0;
  return c;
}

static nlohmann::json run_origin(const ExportedRun& r) {
  nlohmann::json o = r.run.raw.value("origin", nlohmann::json::object());
  if (!o.is_object()) o = nlohmann::json::object();
  if (!o.empty()) return o;
  // Written before runs recorded their origin: read from the command that made the run (its
  // environment.command): `--preset X`; a sweep's plan (the argument after "sweep") and its cell
  // (the folder the sweep wrote the run's checkpoint in, OUT/CELL/RUN.json.ckpt); `reproduce`
  // without --preset ran paper on a GPU and quick on a CPU. What the command does not say stays empty.
  namespace fs = std::filesystem;
  const nlohmann::json env = r.run.raw.value("environment", nlohmann::json::object());
  const std::string command = env.is_object() ? env.value("command", std::string()) : std::string();
  std::vector<std::string> words;
  std::istringstream in(command);
  for (std::string w; in >> w;) words.push_back(w);
  auto after = [&](const std::string& word) -> std::string {
    const auto it = std::find(words.begin(), words.end(), word);
    return it != words.end() && it + 1 != words.end() ? *(it + 1) : "";
  };
  if (const std::string p = after("--preset"); !p.empty()) o["preset"] = p;
  if (std::find(words.begin(), words.end(), "sweep") != words.end()) {
    if (const std::string plan = after("sweep"); !plan.empty()) {
      o["plan"] = plan;
      std::error_code ec;  // the plan names the preset (docs/sweep_format.md: default paper), when it is at hand
      if (!o.contains("preset") && fs::is_regular_file(plan, ec)) {
        try {
          const nlohmann::json doc = read_json_file(plan);
          if (doc.is_object() && doc.value("preset", nlohmann::json("paper")).is_string())
            o["preset"] = doc.value("preset", std::string("paper"));
        } catch (const UserError&) {
        }
      }
    }
    const std::string ck = r.run.raw.value("checkpoint", std::string());
    if (!ck.empty()) o["cell"] = fs::path(ck).parent_path().filename().string();
  } else if (std::find(words.begin(), words.end(), "reproduce") != words.end() && !o.contains("preset")) {
    o["preset"] = env.value("device", std::string()) == "cpu" ? "quick" : "paper";
  }
  return o;
}

// Every run's config leaves (defaults filled) and origin, as columns.
static ColumnSet run_columns(const std::vector<ExportedRun>& runs) {
  ColumnSet cols;
  for (const auto& r : runs) {
    std::map<std::string, std::string> c;
    flatten(exported_config(r.run.raw.at("config"), r.file), "config", c);
    const nlohmann::json origin = run_origin(r);
    for (const char* key : {"preset", "plan", "cell"}) c[std::string("origin.") + key] = field_of(origin, key);
    cols.add(std::move(c));
  }
  return cols;
}

std::string runs_csv(const std::vector<ExportedRun>& runs, bool curves) {
  const ColumnSet cols = run_columns(runs);
  std::vector<std::string> header =
      curves ? std::vector<std::string>{"file", "pe", "seed", "step", "lr", "train_loss", "train_acc", "val_loss", "val_acc", "val_n"}
             : std::vector<std::string>{"file", "status", "pe", "seed", "steps", "steps_done", "val_acc", "test_acc", "val_loss",
                                        "test_loss", "steps_per_s", "git_commit", "device", "date"};
  header.insert(header.end(), cols.names.begin(), cols.names.end());
  CsvWriter out;
  out.row(header);
  for (size_t k = 0; k < runs.size(); ++k) {
    const RunRecord& r = runs[k].run;
    const nlohmann::json& j = r.raw;
    if (curves) {
      for (const auto& p : j.value("curve", nlohmann::json::array()))
        out.row(cols.with({runs[k].file, r.pe, std::to_string(r.seed), field_of(p, "step"), field_of(p, "lr"),
                           field_of(p, "train_loss"), field_of(p, "train_acc"), field_of(p, "val_loss"), field_of(p, "val_acc"),
                           field_of(p, "val_n")},
                          k));
      continue;
    }
    const bool done = r.status == "complete";
    const nlohmann::json env = j.value("environment", nlohmann::json::object());
    auto num = [](double x) { return nlohmann::json(x).dump(); };
    out.row(cols.with({runs[k].file, r.status, r.pe, std::to_string(r.seed), std::to_string(r.steps),
                       done ? std::to_string(r.steps) : field_of(j, "steps_done"), done ? num(r.val_acc) : "",
                       done ? num(r.test_acc) : "", done ? num(r.val_loss) : "", done ? num(r.test_loss) : "",
                       j.contains("timing") ? field_of(j.at("timing"), "steps_per_s") : "", field_of(env, "git_commit"),
                       field_of(env, "device"), field_of(env, "date")},
                      k));
  }
  return out.str();
}

std::string step_logs_csv(const std::vector<ExportedRun>& runs) {
  const ColumnSet cols = run_columns(runs);
  std::vector<std::string> logs;  // each run's step log (step_log.hpp: beside its run JSON), or ""
  for (const auto& r : runs) logs.push_back(std::filesystem::is_regular_file(step_log_path(r.file)) ? step_log_path(r.file) : "");
  if (std::all_of(logs.begin(), logs.end(), [](const std::string& l) { return l.empty(); }))
    throw UserError("--steps: no run has a step log (RUN.steps.csv beside its run JSON; runs made with --step-log 0 or "
                    "before step logs existed have none)");
  std::vector<std::string> header = {"file", "pe", "seed", "step", "lr", "loss", "grad_norm", "train_acc"};
  header.insert(header.end(), cols.names.begin(), cols.names.end());
  CsvWriter out;
  out.row(header);
  for (size_t k = 0; k < runs.size(); ++k) {
    if (logs[k].empty()) continue;
    std::istringstream in(read_file(logs[k]));
    std::string line;
    if (!std::getline(in, line) || line != kStepLogHeader)
      throw UserError(logs[k] + ": not a step log (its header is not " + kStepLogHeader + ")");
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      std::vector<std::string> cells = {runs[k].file, runs[k].run.pe, std::to_string(runs[k].run.seed)};
      std::istringstream fields(line);
      for (std::string v; std::getline(fields, v, ',');) cells.push_back(v);
      if (cells.size() != 8) throw UserError(logs[k] + ": a row without the header's five columns");
      out.row(cols.with(cells, k));
    }
  }
  return out.str();
}

nlohmann::json read_extrapolation(const nlohmann::json& j, const std::string& what) {
  check_extrapolation_doc(j, what);
  return j;
}

std::string extrapolation_csv(const std::vector<ExportedExtrapolation>& tables) {
  ColumnSet cols;
  for (const auto& t : tables) {
    std::map<std::string, std::string> c;
    flatten(t.doc.at("task"), "task", c);
    // The model every run of the table shares (its training config; PE and seed are the rows').
    const nlohmann::json train = t.doc.value("train_config", nlohmann::json::object());
    if (train.is_object() && train.contains("model")) flatten(train.at("model"), "model", c);
    cols.add(std::move(c));
  }
  std::vector<std::string> header = {"file", "label", "pe", "scaling", "seed", "factor", "bucket_min_len", "bucket_max_len",
                                     "bucket_examples", "rope_factor", "acc", "loss", "n", "train_test_acc", "run"};
  header.insert(header.end(), cols.names.begin(), cols.names.end());
  CsvWriter out;
  out.row(header);
  for (size_t k = 0; k < tables.size(); ++k) {
    const nlohmann::json& doc = tables[k].doc;
    std::map<int, nlohmann::json> bucket;  // by factor
    for (const auto& b : doc.at("buckets")) bucket[b.at("factor").get<int>()] = b;
    for (const auto& row : doc.at("rows")) {
      const nlohmann::json& factors = row.at("factors");
      for (size_t i = 0; i < factors.size(); ++i) {
        const auto it = bucket.find(factors[i].get<int>());
        const nlohmann::json b = it == bucket.end() ? nlohmann::json::object() : it->second;
        auto at = [&](const char* key) {
          return row.contains(key) && row[key].is_array() && i < row[key].size() ? scalar_text(row[key][i]) : "";
        };
        out.row(cols.with({tables[k].file, field_of(row, "label"), field_of(row, "pe"), field_of(row, "scaling"),
                           field_of(row, "seed"), scalar_text(factors[i]), field_of(b, "min_len"), field_of(b, "max_len"),
                           field_of(b, "examples"), at("rope_factor"), at("acc"), at("loss"), at("n"),
                           field_of(row, "train_test_acc"), field_of(row, "run")},
                          k));
      }
    }
  }
  return out.str();
}

}  // namespace popebench
