// Fuzz target: a run JSON, read as `merge` reads it and summarised as one table.
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "fuzz/fuzz_util.hpp"
#include "train/run_json.hpp"
#include "report/summary.hpp"

using namespace popebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_input("run.json", data, size);
  try {
    RunRecord r = read_run_file(path);
    if (r.status == "complete") summary_markdown(summarise_runs({r.raw}, "fuzz"));
  } catch (const UserError&) {
  }
  return 0;
}
