// Fuzz target: a checkpoint file, loaded and its config validated as `popebench eval` and a
// resume do before building a model from it. The checksum is recomputed over the input first,
// so that mutations reach the fields behind it (a file that fails the checksum is refused early).
#include <cstring>
#include <vector>

#include "common/files.hpp"
#include "fuzz/fuzz_util.hpp"
#include "train/checkpoint.hpp"

using namespace popebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> buf(data, data + size);
  if (buf.size() >= 16) {
    const uint64_t sum = fnv1a64(buf.data(), buf.size() - 8);
    std::memcpy(buf.data() + buf.size() - 8, &sum, 8);
  }
  const std::string path = fuzz::write_input("input.ckpt", buf.data(), buf.size());
  try {
    Checkpoint ck = load_checkpoint(path);
    checkpoint_run_config(ck, path);
  } catch (const UserError&) {
  }
  return 0;
}
