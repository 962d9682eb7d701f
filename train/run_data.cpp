#include "train/run_data.hpp"

namespace popebench {

void apply_dataset_manifest(RunConfig& cfg, const DatasetDir& info) {
  cfg.task = info.task;
  cfg.train.data_seed = info.seed;
  cfg.size_model_for_task();
}

Splits load_data(RunConfig& cfg, const std::string& dir) {
  Splits s;
  if (dir.empty()) {
    s.train = generate_split(cfg.task, cfg.train.data_seed, Split::kTrain);
    s.val = generate_split(cfg.task, cfg.train.data_seed, Split::kVal);
    s.test = generate_split(cfg.task, cfg.train.data_seed, Split::kTest);
    s.source = generated_data_source(cfg.task, cfg.train.data_seed);
    return s;
  }
  DatasetDir info = open_dataset_dir(dir);
  apply_dataset_manifest(cfg, info);
  s.train = load_split(dir, info, Split::kTrain);
  s.val = load_split(dir, info, Split::kVal);
  s.test = load_split(dir, info, Split::kTest);
  nlohmann::json sums;
  for (const char* sp : {"train", "val", "test"}) sums[sp] = info.manifest["splits"][sp]["checksum"];
  s.source = {{"kind", "directory"}, {"dir", dir}, {"seed", info.seed}, {"checksums", sums}};
  return s;
}

}  // namespace popebench
