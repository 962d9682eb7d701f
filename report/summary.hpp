// Summaries of several runs: mean +- std of the final test accuracy per positional embedding,
// with the paper's numbers beside ours where the runs are of the paper's task. Used by
// `reproduce`, `sweep` and `merge`.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/paper_table1.hpp"

namespace popebench {

struct TaskConfig;
// Whether the paper's numbers describe runs of task t: Indirect Indexing with the paper's strings,
// shifts and alphabet (any pair draw and split sizes: readings of the same task). Other tasks and
// smaller versions of it (the quick preset) get no paper column.
bool is_paper_task(const TaskConfig& t);
// A task as written in a file (a run config's "task"), validated; UserError naming `what` when it
// is not one this version reads.
TaskConfig readable_task(const nlohmann::json& task, const std::string& what);

// Mean and sample std (n - 1) over seeds, for every table of results; std is null for fewer than
// two values (no spread to report: a 0 would read as a perfectly repeatable result).
struct MeanStd {
  double mean = 0;
  nlohmann::json std;  // number, or null
};
MeanStd mean_sample_std(const std::vector<double>& xs);
// "mean ± std" with `digits` decimals, or the mean alone when std is null.
std::string format_mean_std(double mean, const nlohmann::json& std, int digits);
// The distinct values of a table's counts for its heading line, e.g. "3" or "2 or 3".
std::string one_or_other(const std::set<uint64_t>& values);

// runs: run JSON objects (complete ones), sources: where each came from (for messages; default
// "run k"). Returns the summary JSON (results/SCHEMA.md), with the runs' task and its chance
// level. Keeps the summary rule (report/summary_rule.hpp): distinct runs, one setting, rows that
// differ only in the PE.
nlohmann::json summarise_runs(const std::vector<nlohmann::json>& runs, const std::string& title,
                              const std::vector<std::string>& sources = {});
// The table, after a line saying what it is of (task, training lengths, seeds, chance, test
// examples) where the summary records its task; the paper's column only where it has values.
std::string summary_markdown(const nlohmann::json& summary);

}  // namespace popebench
