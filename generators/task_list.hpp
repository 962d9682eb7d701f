// The registry of tasks: every task popebench knows is one type in TaskParams below, the order
// in which `popebench list`, the CLI's help and error messages name them (the first is the
// default). Adding a task is its generator files, one line here and its tests (docs/adding.md).
//
// A task's config struct (generators/k_back.hpp is a short example) holds its parameters and
//   kName, kHelp          its name (--task, the run JSON) and one line on what it asks
//   kLength               what min_len and max_len count ("string length", "pairs")
//   min_len, max_len      its length range, inclusive: what length extrapolation varies
//   options()             its own command-line options (generators/task_option.hpp)
//   validate()            UserError naming the first bad parameter
//   width(), vocab_size() the longest record (target included) and the tokens it uses
//   chance()              the accuracy of a model that knows the answer's type but not which one
//   generate(rng, split, count, stats)  a split's records from the split's stream
//   to_json / from_json   its parameters, as the run JSON and dataset manifests hold them
// and, where they apply (task.cpp looks for them):
//   kOffsetName, draw(rng)   a task of independent draws (generators/example_draws.hpp)
//   kTextFormat = true       the paper's text form is a dataset format for it (Indirect Indexing)
//   kDistinctSymbols = true  an example uses each of its `alphabet` symbols at most once, so that
//                            `extrapolate` widens the alphabet for its longest bucket
//   kLanguageModel = true    scored on every next token, in bits per byte (text)
//   check_split_sizes(n_train, n_val, n_test)  UserError before any split is cut (text)
//   corpus_json()            the files its records come from, for the run JSON (text)
#pragma once
#include <variant>

#include "generators/associative_recall.hpp"
#include "generators/indirect_indexing.hpp"
#include "generators/k_back.hpp"
#include "generators/text.hpp"

namespace popebench {

using TaskParams = std::variant<IndirectIndexingConfig, AssociativeRecallConfig, KBackConfig, TextConfig>;

// Calls f(Cfg{}) for every registered task, in order. (No templated lambda: the CUDA sources
// that reach this header are compiled as C++17.)
template <typename F, size_t... I>
void for_each_task_kind_of(F& f, std::index_sequence<I...>) {
  (f(std::variant_alternative_t<I, TaskParams>{}), ...);
}
template <typename F>
void for_each_task_kind(F&& f) {
  for_each_task_kind_of(f, std::make_index_sequence<std::variant_size_v<TaskParams>>{});
}

}  // namespace popebench
