#include "generators/indirect_indexing.hpp"
#include "generators/example_draws.hpp"
#include "common/json_int.hpp"

#include <algorithm>
#include <cstdlib>

#include "common/error.hpp"
#include "generators/vocab.hpp"

namespace popebench {

static int decimal_digits(int v) {
  int d = 1;
  while (v >= 10) { v /= 10; ++d; }
  return d;
}

void IndirectIndexingConfig::validate() const {
  auto bad = [](const std::string& m) { throw UserError(m); };
  if (min_len < 1) bad("min length must be at least 1 (got " + std::to_string(min_len) + ")");
  if (max_len < min_len)
    bad("max length " + std::to_string(max_len) + " is below min length " + std::to_string(min_len));
  if (max_shift < 0) bad("max shift must be >= 0 (got " + std::to_string(max_shift) + ")");
  if (max_shift == 0 && !allow_zero_shift) bad("max shift 0 leaves no shift to draw unless --allow-zero-shift");
  // Every shift in the range must be reachable in every string, so the re-draw always ends fast.
  if (max_shift > min_len - 1)
    bad("shift range +-" + std::to_string(max_shift) + " is wider than the shortest string (" +
        std::to_string(min_len) + ") allows: need max shift <= min length - 1");
  if (pair_draw != "joint" && pair_draw != "shift-first" && pair_draw != "source-first")
    bad("unknown pair draw '" + pair_draw + "' (known: joint, shift-first, source-first)");
  if (alphabet > vocab::kMaxAlphabet)
    bad("alphabet size " + std::to_string(alphabet) + " exceeds the vocabulary's limit of " +
        std::to_string(vocab::kMaxAlphabet) + " symbols");
  if (alphabet < max_len)
    bad("alphabet size " + std::to_string(alphabet) + " is smaller than max length " +
        std::to_string(max_len) + ": letters are drawn without replacement");
}

int IndirectIndexingConfig::width() const { return max_len + 6 + decimal_digits(max_shift); }
int IndirectIndexingConfig::vocab_size() const { return vocab::vocab_size(alphabet); }

void to_json(nlohmann::json& j, const IndirectIndexingConfig& c) {
  j = {{"min_len", c.min_len}, {"max_len", c.max_len}, {"max_shift", c.max_shift},
       {"alphabet", c.alphabet}, {"allow_zero_shift", c.allow_zero_shift}, {"pair_draw", c.pair_draw}};
}
void from_json(const nlohmann::json& j, IndirectIndexingConfig& c) {
  c.min_len = json_int<int>(j, "min_len");
  c.max_len = json_int<int>(j, "max_len");
  c.max_shift = json_int<int>(j, "max_shift");
  c.alphabet = json_int<int>(j, "alphabet");
  c.allow_zero_shift = j.at("allow_zero_shift");
  c.pair_draw = j.value("pair_draw", "joint");  // absent before the option existed
}

IndirectIndexingExample draw_indirect_indexing(Pcg32& rng, const IndirectIndexingConfig& c) {
  IndirectIndexingExample ex;
  int L = static_cast<int>(rng.uniform_int(c.min_len, c.max_len));
  ex.str_len = L;
  // Partial Fisher-Yates over the alphabet: the first L entries are a uniform draw without
  // replacement, in uniform order.
  // Alphabets beyond 52 exist for length extrapolation (up to 10 x 40 unique symbols).
  std::vector<uint16_t> pool(c.alphabet);
  for (int i = 0; i < c.alphabet; ++i) pool[i] = vocab::symbol(i);
  for (int i = 0; i < L; ++i) {
    int j = i + static_cast<int>(rng.bounded(static_cast<uint32_t>(c.alphabet - i)));
    std::swap(pool[i], pool[j]);
  }
  int src = 0, shift = 0;
  if (c.pair_draw == "shift-first") {
    do shift = static_cast<int>(rng.uniform_int(-c.max_shift, c.max_shift));
    while (shift == 0 && !c.allow_zero_shift);
    // Sources that keep the target inside: [max(0, -shift), L - 1 - max(0, shift)], never empty
    // since max_shift <= min_len - 1 (validate).
    src = static_cast<int>(rng.uniform_int(std::max(0, -shift), L - 1 - std::max(0, shift)));
  } else if (c.pair_draw == "source-first") {
    src = static_cast<int>(rng.bounded(static_cast<uint32_t>(L)));
    // Shifts that keep the target inside: [max(-max_shift, -src), min(max_shift, L - 1 - src)],
    // less 0 unless allowed; drawn by index so that one draw suffices.
    const int lo = std::max(-c.max_shift, -src), hi = std::min(c.max_shift, L - 1 - src);
    const bool skip0 = !c.allow_zero_shift && lo <= 0 && hi >= 0;
    const int n = hi - lo + 1 - (skip0 ? 1 : 0);
    shift = lo + static_cast<int>(rng.bounded(static_cast<uint32_t>(n)));
    if (skip0 && shift >= 0) ++shift;
  } else {
    for (;;) {
      src = static_cast<int>(rng.bounded(static_cast<uint32_t>(L)));
      shift = static_cast<int>(rng.uniform_int(-c.max_shift, c.max_shift));
      if (shift == 0 && !c.allow_zero_shift) continue;
      if (src + shift >= 0 && src + shift < L) break;
    }
  }
  ex.source_pos = src;
  ex.shift = shift;
  auto& t = ex.tokens;
  t.reserve(c.width());
  t.assign(pool.begin(), pool.begin() + L);
  t.push_back(vocab::kComma);
  t.push_back(pool[src]);
  t.push_back(vocab::kComma);
  // The sign is always written, also for zero (as '+'), so every shift has one format.
  t.push_back(shift < 0 ? vocab::kMinus : vocab::kPlus);
  std::string digits = std::to_string(std::abs(shift));
  for (char d : digits) t.push_back(static_cast<uint16_t>(vocab::kDigit0 + (d - '0')));
  t.push_back(vocab::kComma);
  t.push_back(pool[src + shift]);
  return ex;
}

std::string to_text(const uint16_t* tokens, int len) {
  std::string s;
  for (int i = 0; i < len; ++i) {
    if (vocab::is_symbol(tokens[i]) && tokens[i] - vocab::kFirstSymbol >= vocab::kLetters)
      throw UserError("text format holds at most 52 distinct symbols; use the binary format");
    s += vocab::token_text(tokens[i]);
  }
  return s;
}

std::vector<uint16_t> parse_text(const std::string& line) {
  std::vector<uint16_t> out;
  for (char ch : line) {
    int t = vocab::char_token(ch);
    if (t < 0) throw UserError(std::string("unexpected character '") + ch + "' in line: " + line);
    out.push_back(static_cast<uint16_t>(t));
  }
  // Grammar: letters+ , letter , sign digits+ , letter
  size_t n = out.size(), i = 0;
  auto fail = [&]() { throw UserError("malformed Indirect Indexing line: " + line); };
  while (i < n && vocab::is_symbol(out[i])) ++i;
  if (i == 0 || i + 6 > n || out[i] != vocab::kComma || !vocab::is_symbol(out[i + 1]) ||
      out[i + 2] != vocab::kComma || (out[i + 3] != vocab::kPlus && out[i + 3] != vocab::kMinus))
    fail();
  size_t j = i + 4;
  while (j < n && out[j] >= vocab::kDigit0 && out[j] < vocab::kFirstSymbol) ++j;
  if (j == i + 4 || j + 2 != n || out[j] != vocab::kComma || !vocab::is_symbol(out[j + 1])) fail();
  return out;
}

std::map<int, double> expected_shift_distribution(const IndirectIndexingConfig& c) {
  std::map<int, double> p;
  const int nlen = c.max_len - c.min_len + 1;
  auto allowed = [&](int k) { return k != 0 || c.allow_zero_shift; };
  for (int L = c.min_len; L <= c.max_len; ++L) {
    if (c.pair_draw == "source-first") {
      for (int s = 0; s < L; ++s) {
        int valid = 0;
        for (int k = -c.max_shift; k <= c.max_shift; ++k) valid += allowed(k) && s + k >= 0 && s + k < L;
        for (int k = -c.max_shift; k <= c.max_shift; ++k)
          if (allowed(k) && s + k >= 0 && s + k < L) p[k] += 1.0 / L / valid / nlen;
      }
      continue;
    }
    double total = 0;
    for (int k = -c.max_shift; k <= c.max_shift; ++k)
      if (allowed(k)) total += c.pair_draw == "shift-first" ? 1.0 : std::max(0, L - std::abs(k));
    for (int k = -c.max_shift; k <= c.max_shift; ++k)
      if (allowed(k)) p[k] += (c.pair_draw == "shift-first" ? 1.0 : std::max(0, L - std::abs(k))) / total / nlen;
  }
  return p;
}

const std::vector<TaskOption<IndirectIndexingConfig>>& IndirectIndexingConfig::options() {
  using C = IndirectIndexingConfig;
  static const std::vector<TaskOption<C>> opts = {
      {"--max-shift", "shifts in [-max, +max]", &C::max_shift},
      {"--alphabet", "distinct symbols", &C::alphabet},
      {"--allow-zero-shift", "allow shift 0 (the paper does not say; excluded by default)", &C::allow_zero_shift},
      {"--pair-draw", "(source, shift) drawn jointly, shift-first or source-first", &C::pair_draw},
  };
  return opts;
}

Example IndirectIndexingConfig::draw(Pcg32& rng) const {
  IndirectIndexingExample e = draw_indirect_indexing(rng, *this);
  return {std::move(e.tokens), e.str_len, e.shift};
}
Dataset IndirectIndexingConfig::generate(Pcg32& rng, Split, uint64_t count, SplitStats* stats) const {
  return draw_examples(*this, rng, count, stats);
}

}  // namespace popebench
