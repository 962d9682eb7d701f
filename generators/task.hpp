// A task = the selected generator with its parameters and split sizes. The CLI, the trainer and
// the dataset files go through it; which tasks exist is generators/task_list.hpp's.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/dataset.hpp"
#include "generators/task_list.hpp"

namespace popebench {

// Names of the tasks, comma-separated, for messages and option checks.
std::string task_names();
// Every task with one line on what it asks (`popebench list`; docs/tasks.md says more).
struct TaskKindInfo {
  const char* name;
  const char* help;
};
const std::vector<TaskKindInfo>& task_kinds();

struct TaskConfig {
  TaskParams params;  // the selected task and its parameters (default: the registry's first)
  // Records per split (SPEC §1); for text, n_val and n_test count the bytes of text scored.
  uint64_t n_train = 1000000, n_val = 10000, n_test = 10000;

  std::string name() const;
  // Selects a task by name with its default parameters (UserError for an unknown name).
  void select(const std::string& name);
  template <typename T>
  bool is() const { return std::holds_alternative<T>(params); }
  // The selected task's parameters; asking for another task's is a programming error.
  template <typename T>
  T& as() {
    if (!is<T>()) throw std::logic_error(std::string("the task is ") + name() + ", not " + T::kName);
    return std::get<T>(params);
  }
  template <typename T>
  const T& as() const {
    if (!is<T>()) throw std::logic_error(std::string("the task is ") + name() + ", not " + T::kName);
    return std::get<T>(params);
  }

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
  // Scored on every next token, in bits per byte (the text task), rather than on its answer.
  bool language_model() const;
  // The paper's text form is a dataset format for this task (Indirect Indexing).
  bool has_text_format() const;
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
