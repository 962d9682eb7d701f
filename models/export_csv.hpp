// Run JSONs flattened into one tidy CSV (`popebench export`), for pandas and spreadsheets: one
// row per run, or per point of each run's curve, every config field a column of its own
// ("config.model.d_model"), so that any option can be filtered and grouped on. Accuracies stay
// fractions, as in the JSON (results/SCHEMA.md); tables elsewhere print percent.
#pragma once
#include <string>
#include <vector>

#include "models/run_json.hpp"

namespace popebench {

struct ExportedRun {
  std::string file;  // as given, for the "file" column
  RunRecord run;
};

// curves: a row per curve point (step, lr, train and validation loss and accuracy) instead of a
// row per run (status, steps done, final validation and test numbers, speed). Columns: the
// fixed ones, then every config leaf of any run, sorted; a field a run lacks is left empty.
std::string runs_csv(const std::vector<ExportedRun>& runs, bool curves);

// One CSV field: quoted (with doubled quotes) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s);

}  // namespace popebench
