#include "report/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "common/error.hpp"
#include "common/version.hpp"
#include "generators/task.hpp"
#include "config/config.hpp"
#include "train/run_json.hpp"
#include "report/summary_rule.hpp"

namespace popebench {

MeanStd mean_sample_std(const std::vector<double>& xs) {
  MeanStd r;
  for (double x : xs) r.mean += x / xs.size();
  double var = 0;
  for (double x : xs) var += (x - r.mean) * (x - r.mean);
  r.std = xs.size() > 1 ? nlohmann::json(std::sqrt(var / (xs.size() - 1))) : nlohmann::json(nullptr);
  return r;
}

std::string format_mean_std(double mean, const nlohmann::json& std, int digits) {
  char buf[64];
  if (std.is_null())
    std::snprintf(buf, sizeof buf, "%.*f", digits, mean);
  else
    std::snprintf(buf, sizeof buf, "%.*f ± %.*f", digits, mean, digits, std.get<double>());
  return buf;
}

std::string one_or_other(const std::set<uint64_t>& values) {
  std::string out;
  for (uint64_t n : values) out += (out.empty() ? "" : " or ") + std::to_string(n);
  return out;
}

TaskConfig readable_task(const nlohmann::json& task, const std::string& what) {
  try {
    TaskConfig t = task.get<TaskConfig>();
    t.validate();
    return t;
  } catch (const UserError& e) {
    throw UserError(what + ": its task: " + e.what());
  } catch (const std::exception&) {
    throw UserError(what + ": its task is not one this version reads");
  }
}

bool is_paper_task(const TaskConfig& t) {
  const IndirectIndexingConfig paper;  // its defaults are the paper's task (docs/spec.md §1)
  if (!t.is<IndirectIndexingConfig>()) return false;
  const IndirectIndexingConfig& c = t.as<IndirectIndexingConfig>();
  return c.min_len == paper.min_len && c.max_len == paper.max_len &&
         c.max_shift == paper.max_shift && c.alphabet == paper.alphabet && c.allow_zero_shift == paper.allow_zero_shift;
}

nlohmann::json summarise_runs(const std::vector<nlohmann::json>& runs, const std::string& title,
                              const std::vector<std::string>& sources) {
  // Rows in the paper's order (Table 1, then Table 9), other PEs after them by name, so a table
  // reads like the paper's whatever order the files were listed in.
  auto rank = [](const std::string& pe) {
    const auto& order = paper_indirect_indexing_pes();
    return std::size_t(std::find(order.begin(), order.end(), pe) - order.begin());
  };
  auto before = [&](const std::string& a, const std::string& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  };
  std::map<std::string, std::vector<RunRecord>, decltype(before)> by_pe(before);
  SummaryRows rule;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string source = i < sources.size() ? sources[i] : "run " + std::to_string(i + 1);
    RunRecord r = read_run(runs[i], source);
    if (r.status != "complete") throw UserError("summary: " + source + " (" + r.pe + " seed " + std::to_string(r.seed) + ") is not complete");
    // An accuracy over no examples is no measurement: 0 % would be averaged in as a real one.
    const auto& test = runs[i].at("final").at("test");
    if (!test.contains("n") || !test["n"].is_number_integer() || test["n"].get<int64_t>() <= 0)
      throw UserError("summary: " + source + " was tested on no examples (its test split is empty)");
    // The text task's corpus is a setting too: its folder is in the config, its contents in the data's digest.
    nlohmann::json shared = shared_run_config(runs[i].at("config"));
    const nlohmann::json data = runs[i].value("data", nlohmann::json::object());
    if (data.is_object() && data.contains("corpus")) {
      const nlohmann::json& corpus = data["corpus"];
      shared["corpus_digest"] = corpus.is_object() ? corpus.value("digest", nlohmann::json()) : corpus;
    }
    rule.add(r.pe, r.seed, run_pe_config(runs[i].at("config")), shared, source);
    by_pe[r.pe].push_back(r);
  }
  // The rule above made every run one setting: the first run's task is every run's.
  TaskConfig task;
  if (!runs.empty()) {
    nlohmann::json config = runs[0].at("config");
    try {
      config = normalized_config(config);  // an older file's task gets today's defaults for newer fields
    } catch (const std::exception&) {
      // as written: readable_task judges its task
    }
    const nlohmann::json t = config.is_object() && config.contains("task") ? config["task"] : nlohmann::json();
    task = readable_task(t, sources.empty() ? "run 1" : sources[0]);
  }
  const bool paper_task = !runs.empty() && is_paper_task(task);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [pe, rs] : by_pe) {
    std::vector<double> acc;
    nlohmann::json seeds = nlohmann::json::array(), accs = nlohmann::json::array();
    for (const auto& r : rs) {
      acc.push_back(100.0 * r.test_acc);
      seeds.push_back(r.seed);
      accs.push_back(acc.back());
    }
    const MeanStd ms = mean_sample_std(acc);
    nlohmann::json row = {{"pe", pe}, {"n", acc.size()}, {"seeds", seeds}, {"test_acc", accs},
                          {"mean", ms.mean}, {"std", ms.std}};
    PaperValue p = paper_task ? paper_indirect_indexing(pe) : PaperValue{};
    row["paper"] = p.present ? nlohmann::json{{"mean", p.mean}, {"std", p.std}} : nlohmann::json(nullptr);
    rows.push_back(row);
  }
  nlohmann::json out = {{"schema", "popebench.summary"}, {"schema_version", 1}, {"title", title},
                        {"metric", "test accuracy %"}, {"std", "sample (n-1)"}, {"rows", rows},
                        {"popebench_version", kPopebenchVersion}, {"git_commit", git_commit()}};
  if (!runs.empty()) {
    out["task"] = task;
    out["chance"] = task.chance();
    out["paper_task"] = paper_task;
  }
  return out;
}

std::string summary_markdown(const nlohmann::json& s) {
  std::string out;
  char buf[512];
  if (s.contains("task")) {  // what the numbers are of, before the numbers (older summaries lack it)
    const TaskConfig t = readable_task(s["task"], "summary");
    std::set<uint64_t> seeds_per_pe;
    for (const auto& r : s["rows"]) seeds_per_pe.insert(r["n"].get<uint64_t>());
    const std::string seeds = one_or_other(seeds_per_pe);
    std::snprintf(buf, sizeof buf, "%s, trained on lengths %d-%d; %s seed%s per PE; chance %.2f %%; test accuracy on %llu examples.\n\n",
                  t.name().c_str(), t.min_len(), t.max_len(), seeds.c_str(), seeds == "1" ? "" : "s",
                  100 * s["chance"].get<double>(), static_cast<unsigned long long>(t.n_test));
    out += buf;
  }
  bool paper = false;
  for (const auto& r : s["rows"]) paper = paper || !r["paper"].is_null();
  out += paper ? "| PE | runs | test accuracy % (ours) | paper |\n| --- | --- | --- | --- |\n"
               : "| PE | runs | test accuracy % |\n| --- | --- | --- |\n";
  for (const auto& r : s["rows"]) {
    const std::string ours = format_mean_std(r["mean"].get<double>(), r["std"], 2);
    std::snprintf(buf, sizeof buf, "| %s | %d | %s |", r["pe"].get<std::string>().c_str(), r["n"].get<int>(), ours.c_str());
    out += buf;
    if (paper)
      out += " " + (r["paper"].is_null() ? std::string("-") : format_mean_std(r["paper"]["mean"].get<double>(), r["paper"]["std"], 2)) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace popebench
