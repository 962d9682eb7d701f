// A task = a generator with its parameters and split sizes. The one place that knows which tasks
// exist: the CLI, the trainer and the dataset files go through it.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/dataset.hpp"
#include "generators/indirect_indexing.hpp"

namespace popebench {

enum class Split { kTrain = 0, kVal = 1, kTest = 2 };
const char* split_name(Split s);

struct TaskConfig {
  std::string name = "indirect-indexing";
  IndirectIndexingConfig indirect_indexing;
  uint64_t n_train = 1000000, n_val = 10000, n_test = 10000;  // SPEC §1

  void validate() const;  // throws UserError
  int width() const;
  int vocab_size() const;
  uint64_t count(Split s) const;
};
void to_json(nlohmann::json& j, const TaskConfig& c);
void from_json(const nlohmann::json& j, TaskConfig& c);

// Generates one split from the seed; identical bytes to what `popebench generate` writes.
Dataset generate_split(const TaskConfig& c, uint64_t seed, Split s, SplitStats* stats = nullptr);

}  // namespace popebench
