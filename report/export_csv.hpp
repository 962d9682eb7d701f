// Run JSONs flattened into one tidy CSV (`popebench export`), for pandas and spreadsheets: one
// row per run, or per point of each run's curve, every config field a column of its own
// ("config.model.d_model"), so that any option can be filtered and grouped on. Accuracies stay
// fractions, as in the JSON (results/SCHEMA.md); tables elsewhere print percent.
#pragma once
#include <string>
#include <vector>

#include "train/run_json.hpp"

namespace popebench {

struct ExportedRun {
  std::string file;  // as given, for the "file" column
  RunRecord run;
};

// curves: a row per curve point (step, lr, train and validation loss and accuracy) instead of a
// row per run (status, steps done, final validation and test numbers, speed). Columns: the
// fixed ones, then every config leaf, sorted: a file written before an option existed shows the
// option's default (normalized_config), and the fields recorded only when set show theirs; then
// origin.preset, origin.plan and origin.cell (the run JSON's "origin"; for older runs, what the
// command that made them says, and a sweep's plan file when it is found from here; empty where
// neither says).
std::string runs_csv(const std::vector<ExportedRun>& runs, bool curves);
// A row per row of each run's step log (RUN.steps.csv beside its run JSON: step, lr, loss,
// grad_norm, train_acc), with the run's file, PE, seed and the columns of runs_csv; runs without
// a step log are left out, and none having one is a UserError.
std::string step_logs_csv(const std::vector<ExportedRun>& runs);

// An extrapolation table (`extrapolate` or `merge`, results/SCHEMA.md) as given, for the "file"
// column, and its document.
struct ExportedExtrapolation {
  std::string file;
  nlohmann::json doc;
};
// Reads an extrapolation JSON; UserError naming `what` when it is not one this version reads.
nlohmann::json read_extrapolation(const nlohmann::json& j, const std::string& what);
// A row per (evaluated run, length bucket): file, label, pe, scaling, seed, factor, the bucket's
// lengths and examples, rope_factor, acc, loss, n, the run's own test accuracy and file, then
// the task's leaves ("task.params.max_len", ...) and the model's ("model.d_model", from the
// table's training config) of any table, sorted.
std::string extrapolation_csv(const std::vector<ExportedExtrapolation>& tables);

// One CSV field: quoted (with doubled quotes) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s);

}  // namespace popebench
