// Dataset files: a directory with train/val/test files and manifest.json (format in
// docs/dataset_format.md). Readers verify magic, version, size and checksum, and that each file
// matches the manifest, and refuse anything else with a UserError that names the problem.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "generators/task.hpp"

namespace popebench {

constexpr int kDatasetFormatVersion = 1;
enum class DatasetStorage { kBinary, kText };

struct GenerateOptions {
  TaskConfig task;
  uint64_t seed = 0;
  DatasetStorage storage = DatasetStorage::kBinary;
};

// Generates the three splits and writes them, each file atomically, the manifest last.
// Returns the manifest.
nlohmann::json write_dataset_dir(const std::string& dir, const GenerateOptions& opt);

// Binary split file: serialise / parse with full validation.
std::string encode_binary(const Dataset& d, const std::string& task_name);
Dataset decode_binary(const std::string& bytes, const std::string& what);
std::string encode_text(const Dataset& d);
Dataset decode_text(const std::string& text, const TaskConfig& task, const std::string& what);

// A dataset directory, verified against its manifest.
struct DatasetDir {
  nlohmann::json manifest;
  TaskConfig task;
  uint64_t seed = 0;
};
DatasetDir open_dataset_dir(const std::string& dir);
Dataset load_split(const std::string& dir, const DatasetDir& info, Split s);

}  // namespace popebench
