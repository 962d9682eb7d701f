// Reading run JSON files back (results/SCHEMA.md). The C++ readers (summaries, merge, export)
// go through this, so a file written by an older version is read by the newer one; the Python
// plot scripts read the same schema themselves (tools/plot_common.py).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace popebench {

constexpr int kRunSchemaVersion = 1;

struct RunRecord {
  std::string status;   // complete | partial | diverged
  std::string pe;
  uint64_t seed = 0;
  int64_t steps = 0;
  double val_acc = 0, test_acc = 0, val_loss = 0, test_loss = 0;  // final; 0 when not complete
  nlohmann::json raw;
};

// Throws UserError naming `what` when the document is not a run JSON this version can read.
RunRecord read_run(const nlohmann::json& j, const std::string& what);
RunRecord read_run_file(const std::string& path);

}  // namespace popebench
