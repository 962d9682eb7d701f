// Fuzz target: a run JSON exported to CSV as `popebench export` does, a row per run and a row per
// curve point (every config leaf a column, text cells quoted and formula-safe).
#include "common/error.hpp"
#include "common/json_read.hpp"
#include "fuzz/fuzz_util.hpp"
#include "report/export_csv.hpp"

using namespace popebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_input("run.json", data, size);
  try {
    const nlohmann::json doc = read_json_file(path);
    const std::vector<ExportedRun> runs = {{path, read_run(doc, path)}};
    runs_csv(runs, false);
    runs_csv(runs, true);
  } catch (const UserError&) {
  }
  return 0;
}
