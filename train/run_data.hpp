// A run's data: the three splits generated in memory from the data seed, or read from a dataset
// directory (whose manifest then sets the task and data seed), with where they came from.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.hpp"
#include "generators/dataset.hpp"
#include "generators/dataset_io.hpp"

namespace popebench {

struct Splits {
  Dataset train, val, test;
  nlohmann::json source;  // where the data came from: generated (seed) or a directory (checksums)
};
// With a dataset directory, the task and data seed come from its manifest (cfg is updated).
Splits load_data(RunConfig& cfg, const std::string& data_dir);
// That update alone: the task, data seed, vocabulary and length of the dataset in `info`.
void apply_dataset_manifest(RunConfig& cfg, const DatasetDir& info);

}  // namespace popebench
