// k-back: "s1 s2 ... sL , k , a" — a string of L symbols drawn with replacement, a ',' marker, the
// offset k in decimal digits, and the answer a = the symbol k positions before the marker
// (a = s_{L-k+1}, so k = 1 is the last symbol). Symbols repeat, so the answer cannot be found
// by content: only its position relative to the marker identifies it.
// Chance: 1 / alphabet.
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include <vector>

#include "common/rng.hpp"
#include "generators/dataset.hpp"
#include "generators/task_option.hpp"

namespace popebench {

// The task's registration: generators/task_list.hpp says what each member below is for.
struct KBackConfig {
  static constexpr const char* kName = "k-back";
  static constexpr const char* kHelp =
      "a string, then a marker with k: answer the symbol k positions before the marker (position alone)";
  static constexpr const char* kLength = "string length";
  static constexpr const char* kOffsetName = "k";

  int min_len = 20;   // string length, inclusive range
  int max_len = 40;
  int max_k = 15;     // k uniform in [1, max_k]; needs max_k <= min_len
  int alphabet = 52;  // symbols, drawn with replacement

  static const std::vector<TaskOption<KBackConfig>>& options();
  void validate() const;  // throws UserError naming the first bad parameter
  int width() const;      // max_len + 3 + digits(max_k)
  int vocab_size() const;
  double chance() const { return 1.0 / alphabet; }
  Example draw(Pcg32& rng) const;
  Dataset generate(Pcg32& rng, Split split, uint64_t count, SplitStats* stats) const;
};
void to_json(nlohmann::json& j, const KBackConfig& c);
void from_json(const nlohmann::json& j, KBackConfig& c);

Example draw_k_back(Pcg32& rng, const KBackConfig& c);

}  // namespace popebench
