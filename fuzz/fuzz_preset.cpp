// Fuzz target: a preset file (`--preset FILE`), read as a structure as `train`, `reproduce` and a
// plan's "preset" read it (cli/presets.hpp's parse_preset: the bounded JSON reader, then fields).
#include "cli/presets.hpp"
#include "common/error.hpp"
#include "fuzz/fuzz_util.hpp"

using namespace popebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    cli::parse_preset(std::string(reinterpret_cast<const char*>(data), size), "preset file");
  } catch (const UserError&) {
  }
  return 0;
}
