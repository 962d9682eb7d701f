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

namespace popebench {

struct IndirectIndexingConfig {
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

  // Throws UserError naming the first bad parameter.
  void validate() const;
  int width() const;  // longest full sequence: max_len + 6 + digits(max_shift)
  int vocab_size() const;
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
