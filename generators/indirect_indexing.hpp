// Indirect Indexing (SPEC §1): "string,source,shift,target" — find the source character in the
// string, move by the signed shift, answer the character there.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/rng.hpp"
#include "generators/dataset.hpp"
#include "generators/task_option.hpp"

namespace popebench {

// The task's registration: generators/task_list.hpp says what each member below is for.
struct IndirectIndexingConfig {
  static constexpr const char* kName = "indirect-indexing";
  static constexpr const char* kHelp =
      "a string of distinct letters, a source letter and a signed shift: answer the letter at the source's position "
      "plus the shift (the paper's diagnostic: content and position together)";
  static constexpr const char* kLength = "string length";
  static constexpr const char* kOffsetName = "shift";
  static constexpr bool kTextFormat = true;  // the paper's text form is a dataset format (to_text, parse_text)
  static constexpr bool kDistinctSymbols = true;  // a string uses each symbol at most once

  int min_len = 20;     // string length range, inclusive
  int max_len = 40;
  int max_shift = 15;   // shift drawn from [-max_shift, +max_shift]
  int alphabet = 52;    // distinct symbols; every string uses each at most once
  bool allow_zero_shift = false;  // SPEC choice: the paper does not say; excluded by default
  // How the (source position, shift) pair is drawn (the paper does not say): "joint" (SPEC
  // choice) re-draws both until the target is inside the string, so the pair is uniform over the
  // valid pairs; "shift-first" draws the shift uniformly, then a source that keeps the target
  // inside; "source-first" draws the source uniformly, then a shift that keeps it inside.
  std::string pair_draw = "joint";

  static const std::vector<TaskOption<IndirectIndexingConfig>>& options();
  // Throws UserError naming the first bad parameter.
  void validate() const;
  int width() const;  // longest full sequence: max_len + 6 + digits(max_shift)
  int vocab_size() const;
  double chance() const { return 1.0 / alphabet; }
  Example draw(Pcg32& rng) const;
  Dataset generate(Pcg32& rng, Split split, uint64_t count, SplitStats* stats) const;
};
void to_json(nlohmann::json& j, const IndirectIndexingConfig& c);
void from_json(const nlohmann::json& j, IndirectIndexingConfig& c);

// One example, as drawn; the tokens are the record the model sees.
struct IndirectIndexingExample {
  int str_len = 0, source_pos = 0, shift = 0;
  std::vector<uint16_t> tokens;  // full sequence, target last
};

// Draws one example; the (source, shift) pair as IndirectIndexingConfig::pair_draw says.
IndirectIndexingExample draw_indirect_indexing(Pcg32& rng, const IndirectIndexingConfig& c);

// Text form (paper's): "TzbkWoKDyscBepYvfwxEVQtgPa,c,-8,b". Parsing checks the grammar only.
std::string to_text(const uint16_t* tokens, int len);
std::vector<uint16_t> parse_text(const std::string& line);  // throws UserError

// Expected probability of each shift under the config's pair draw, averaged over the uniform
// length distribution. joint: P(k | L) = (L - |k|) / sum_k' (L - |k'|); shift-first: uniform
// over the allowed shifts; source-first: sum over sources s of 1/L times 1/(valid shifts at s).
std::map<int, double> expected_shift_distribution(const IndirectIndexingConfig& c);

}  // namespace popebench
