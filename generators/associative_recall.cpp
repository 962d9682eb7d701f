#include "generators/associative_recall.hpp"
#include "generators/example_draws.hpp"
#include "common/json_int.hpp"

#include <vector>

#include "common/error.hpp"
#include "generators/vocab.hpp"

namespace popebench {

void AssociativeRecallConfig::validate() const {
  auto bad = [](const std::string& m) { throw UserError("associative recall: " + m); };
  if (min_len < 1) bad("min pairs must be at least 1 (got " + std::to_string(min_len) + ")");
  if (max_len < min_len)
    bad("max pairs " + std::to_string(max_len) + " is below min pairs " + std::to_string(min_len));
  if (values < 2) bad("need at least 2 value symbols (got " + std::to_string(values) + ")");
  if (alphabet < max_len)
    bad("key alphabet " + std::to_string(alphabet) + " is smaller than max pairs " + std::to_string(max_len) +
        ": keys are drawn without replacement");
  if (alphabet + values > vocab::kMaxAlphabet)
    bad("key alphabet + values " + std::to_string(alphabet + values) + " exceeds the vocabulary's limit of " +
        std::to_string(vocab::kMaxAlphabet) + " symbols");
}

int AssociativeRecallConfig::vocab_size() const { return vocab::vocab_size(alphabet + values); }

void to_json(nlohmann::json& j, const AssociativeRecallConfig& c) {
  j = {{"min_len", c.min_len}, {"max_len", c.max_len}, {"alphabet", c.alphabet}, {"values", c.values}};
}
void from_json(const nlohmann::json& j, AssociativeRecallConfig& c) {
  c.min_len = json_int<int>(j, "min_len");
  c.max_len = json_int<int>(j, "max_len");
  c.alphabet = json_int<int>(j, "alphabet");
  c.values = json_int<int>(j, "values");
}

Example draw_associative_recall(Pcg32& rng, const AssociativeRecallConfig& c) {
  Example ex;
  const int n = static_cast<int>(rng.uniform_int(c.min_len, c.max_len));
  ex.length = n;
  std::vector<uint16_t> keys(c.alphabet);  // partial Fisher-Yates: first n = unique keys, uniform order
  for (int i = 0; i < c.alphabet; ++i) keys[i] = vocab::symbol(i);
  for (int i = 0; i < n; ++i) std::swap(keys[i], keys[i + rng.bounded(static_cast<uint32_t>(c.alphabet - i))]);
  auto& t = ex.tokens;
  t.reserve(c.width());
  std::vector<uint16_t> vals(n);
  for (int i = 0; i < n; ++i) {
    vals[i] = vocab::symbol(c.alphabet + static_cast<int>(rng.bounded(static_cast<uint32_t>(c.values))));
    t.push_back(keys[i]);
    t.push_back(vals[i]);
  }
  const int q = static_cast<int>(rng.bounded(static_cast<uint32_t>(n)));
  ex.offset = q;
  t.push_back(vocab::kComma);
  t.push_back(keys[q]);
  t.push_back(vocab::kComma);
  t.push_back(vals[q]);
  return ex;
}

const std::vector<TaskOption<AssociativeRecallConfig>>& AssociativeRecallConfig::options() {
  using C = AssociativeRecallConfig;
  static const std::vector<TaskOption<C>> opts = {
      {"--alphabet", "distinct key symbols", &C::alphabet},
      {"--values", "value symbols", &C::values},
  };
  return opts;
}

Example AssociativeRecallConfig::draw(Pcg32& rng) const { return draw_associative_recall(rng, *this); }
Dataset AssociativeRecallConfig::generate(Pcg32& rng, Split, uint64_t count, SplitStats* stats) const {
  return draw_examples(*this, rng, count, stats);
}

}  // namespace popebench
