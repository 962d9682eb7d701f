// Fuzz target: a sweep plan file, read as `popebench sweep` reads its structure (cli/sweep_plan.hpp:
// the bounded JSON reader, then every field's type, the cell names, PEs and seeds).
#include "cli/sweep_plan.hpp"
#include "common/error.hpp"
#include "fuzz/fuzz_util.hpp"

using namespace popebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_input("plan.json", data, size);
  try {
    cli::read_plan_file(path);
  } catch (const UserError&) {
  }
  return 0;
}
