// Associative recall: "k1 v1 k2 v2 ... kn vn , q , v" — n key-value pairs, then a query key;
// answer the value stored with it. Keys are distinct symbols drawn without replacement from
// `alphabet` key symbols; values are drawn with replacement from `values` further symbols (their
// own ids, after the keys'), so a key and a value are never the same token. The queried pair is
// uniform over the n pairs. The lookup is by content (which key matches the query), at any
// distance; binding a value to its key needs only the adjacent-token relation.
// Chance: 1 / values (the right answer is one of the value symbols).
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include <vector>

#include "common/rng.hpp"
#include "generators/dataset.hpp"
#include "generators/task_option.hpp"

namespace popebench {

// The task's registration: generators/task_list.hpp says what each member below is for.
struct AssociativeRecallConfig {
  static constexpr const char* kName = "associative-recall";
  static constexpr const char* kHelp = "key-value pairs, then a key: answer its value (content alone)";
  static constexpr const char* kLength = "pairs";
  static constexpr const char* kOffsetName = "query_pair";
  static constexpr bool kDistinctSymbols = true;  // the keys of an example are distinct

  int min_len = 10;   // number of pairs, inclusive range
  int max_len = 20;
  int alphabet = 52;  // distinct key symbols (>= max_len: keys are unique within an example)
  int values = 26;    // value symbols

  static const std::vector<TaskOption<AssociativeRecallConfig>>& options();
  void validate() const;  // throws UserError naming the first bad parameter
  int width() const { return 2 * max_len + 4; }
  int vocab_size() const;
  double chance() const { return 1.0 / values; }  // the answer is one of the value symbols
  Example draw(Pcg32& rng) const;
  Dataset generate(Pcg32& rng, Split split, uint64_t count, SplitStats* stats) const;
};
void to_json(nlohmann::json& j, const AssociativeRecallConfig& c);
void from_json(const nlohmann::json& j, AssociativeRecallConfig& c);

Example draw_associative_recall(Pcg32& rng, const AssociativeRecallConfig& c);

}  // namespace popebench
