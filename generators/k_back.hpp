// k-back: "s1 s2 ... sL , k , a" — a string of L symbols drawn with replacement, a ',' marker, the
// offset k in decimal digits, and the answer a = the symbol k positions before the marker
// (a = s_{L-k+1}, so k = 1 is the last symbol). Symbols repeat, so the answer cannot be found
// by content: only its position relative to the marker identifies it.
// Chance: 1 / alphabet.
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "common/rng.hpp"
#include "generators/dataset.hpp"

namespace popebench {

struct KBackConfig {
  int min_len = 20;   // string length, inclusive range
  int max_len = 40;
  int max_k = 15;     // k uniform in [1, max_k]; needs max_k <= min_len
  int alphabet = 52;  // symbols, drawn with replacement

  void validate() const;  // throws UserError naming the first bad parameter
  int width() const;      // max_len + 3 + digits(max_k)
  int vocab_size() const;
};
void to_json(nlohmann::json& j, const KBackConfig& c);
void from_json(const nlohmann::json& j, KBackConfig& c);

Example draw_k_back(Pcg32& rng, const KBackConfig& c);

}  // namespace popebench
