#include "generators/k_back.hpp"
#include "generators/example_draws.hpp"
#include "common/json_int.hpp"

#include <string>

#include "common/error.hpp"
#include "generators/vocab.hpp"

namespace popebench {

void KBackConfig::validate() const {
  auto bad = [](const std::string& m) { throw UserError("k-back: " + m); };
  if (min_len < 1) bad("min length must be at least 1 (got " + std::to_string(min_len) + ")");
  if (max_len < min_len)
    bad("max length " + std::to_string(max_len) + " is below min length " + std::to_string(min_len));
  if (max_k < 1) bad("max k must be >= 1 (got " + std::to_string(max_k) + ")");
  if (max_k > min_len)
    bad("max k " + std::to_string(max_k) + " reaches before the shortest string (" + std::to_string(min_len) +
        "): need max k <= min length");
  if (alphabet < 2 || alphabet > vocab::kMaxAlphabet)
    bad("alphabet size must be in [2, " + std::to_string(vocab::kMaxAlphabet) + "] (got " + std::to_string(alphabet) + ")");
}

int KBackConfig::width() const { return max_len + 3 + static_cast<int>(std::to_string(max_k).size()); }
int KBackConfig::vocab_size() const { return vocab::vocab_size(alphabet); }

void to_json(nlohmann::json& j, const KBackConfig& c) {
  j = {{"min_len", c.min_len}, {"max_len", c.max_len}, {"max_k", c.max_k}, {"alphabet", c.alphabet}};
}
void from_json(const nlohmann::json& j, KBackConfig& c) {
  c.min_len = json_int<int>(j, "min_len");
  c.max_len = json_int<int>(j, "max_len");
  c.max_k = json_int<int>(j, "max_k");
  c.alphabet = json_int<int>(j, "alphabet");
}

Example draw_k_back(Pcg32& rng, const KBackConfig& c) {
  Example ex;
  const int L = static_cast<int>(rng.uniform_int(c.min_len, c.max_len));
  ex.length = L;
  auto& t = ex.tokens;
  t.reserve(c.width());
  for (int i = 0; i < L; ++i) t.push_back(vocab::symbol(static_cast<int>(rng.bounded(static_cast<uint32_t>(c.alphabet)))));
  const int k = static_cast<int>(rng.uniform_int(1, c.max_k));
  ex.offset = k;
  const uint16_t answer = t[L - k];
  t.push_back(vocab::kComma);
  for (char d : std::to_string(k)) t.push_back(static_cast<uint16_t>(vocab::kDigit0 + (d - '0')));
  t.push_back(vocab::kComma);
  t.push_back(answer);
  return ex;
}

const std::vector<TaskOption<KBackConfig>>& KBackConfig::options() {
  using C = KBackConfig;
  static const std::vector<TaskOption<C>> opts = {
      {"--max-k", "k in [1, max]", &C::max_k},
      {"--alphabet", "symbols, drawn with replacement", &C::alphabet},
  };
  return opts;
}

Example KBackConfig::draw(Pcg32& rng) const { return draw_k_back(rng, *this); }
Dataset KBackConfig::generate(Pcg32& rng, Split, uint64_t count, SplitStats* stats) const {
  return draw_examples(*this, rng, count, stats);
}

}  // namespace popebench
