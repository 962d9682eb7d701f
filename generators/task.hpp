// A task = a generator with its parameters and split sizes. The one place that knows which tasks
// exist: the CLI, the trainer and the dataset files go through it.
#pragma once
#include <vector>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/associative_recall.hpp"
#include "generators/dataset.hpp"
#include "generators/indirect_indexing.hpp"
#include "generators/k_back.hpp"
#include "generators/text.hpp"

namespace popebench {

enum class Split { kTrain = 0, kVal = 1, kTest = 2 };
const char* split_name(Split s);

// Names of the tasks, comma-separated, for messages and option checks.
const char* task_names();
// Every task with one line on what it asks (`popebench list`; docs/tasks.md says more).
struct TaskKindInfo {
  const char* name;
  const char* help;
};
const std::vector<TaskKindInfo>& task_kinds();

struct TaskConfig {
  std::string name = "indirect-indexing";  // one of task_kinds()
  // The parameters of each task; only the one `name` selects is used and serialised.
  IndirectIndexingConfig indirect_indexing;
  AssociativeRecallConfig associative_recall;
  KBackConfig k_back;
  TextConfig text;
  // Records per split (SPEC §1); for text, n_val and n_test count the bytes of text scored.
  uint64_t n_train = 1000000, n_val = 10000, n_test = 10000;

  void validate() const;  // throws UserError
  int width() const;
  int vocab_size() const;
  uint64_t count(Split s) const;
  // The selected task's length range (string length or pairs), what length extrapolation varies.
  int min_len() const;
  int max_len() const;
  void set_length_range(int lo, int hi);
  // Chance accuracy of a model that knows the answer's type but not which one.
  double chance() const;
};
void to_json(nlohmann::json& j, const TaskConfig& c);
void from_json(const nlohmann::json& j, TaskConfig& c);

// Generates one split from the seed; identical bytes to what `popebench generate` writes.
Dataset generate_split(const TaskConfig& c, uint64_t seed, Split s, SplitStats* stats = nullptr);
// The files a task reads its records from (text: the corpus folder, its documents, bytes and
// digest), so that two runs' data can be compared; null for a task that draws its examples.
nlohmann::json task_corpus_json(const TaskConfig& c);
// What a run's JSON says of data generated in the process: the seed, and the corpus if any.
nlohmann::json generated_data_source(const TaskConfig& c, uint64_t seed);

}  // namespace popebench
