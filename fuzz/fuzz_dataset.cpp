// Fuzz target: the dataset file decoders (binary records and the text format).
#include "common/error.hpp"
#include "fuzz/fuzz_util.hpp"
#include "generators/dataset_io.hpp"

using namespace popebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    decode_binary(bytes, "input");
  } catch (const UserError&) {
  }
  try {
    TaskConfig task;  // the paper's Indirect Indexing: the only task with a text format
    decode_text(bytes, task, "input");
  } catch (const UserError&) {
  }
  return 0;
}
