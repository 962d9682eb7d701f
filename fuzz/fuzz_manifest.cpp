// Fuzz target: a dataset folder's manifest.json, opened and its three splits loaded (the split
// files are whatever the manifest names; most inputs name none that exist).
#include "common/error.hpp"
#include "fuzz/fuzz_util.hpp"
#include "generators/dataset_io.hpp"

using namespace popebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::write_input("manifest.json", data, size);
  try {
    DatasetDir info = open_dataset_dir(fuzz::scratch_dir());
    for (Split s : {Split::kTrain, Split::kVal, Split::kTest}) load_split(fuzz::scratch_dir(), info, s);
  } catch (const UserError&) {
  }
  return 0;
}
