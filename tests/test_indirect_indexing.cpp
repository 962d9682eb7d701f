#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "common/error.hpp"
#include "generators/indirect_indexing.hpp"
#include "generators/task.hpp"
#include "generators/vocab.hpp"

using namespace popebench;

static const char* GOLDEN_TRAIN_0 = "LnselFcfEqZwJhCQPNYWziOMBVmyUtDHSXu,q,+12,i";
static const char* GOLDEN_TRAIN_1 = "XpZilcYsgVOTrLhjaHvuDkxGNyKQPfoU,P,-11,H";
static const char* GOLDEN_TRAIN_2 = "KNDqFMgsQLOVlanpkEbSxudUtICZzRWjrTfh,t,+11,h";
static const char* GOLDEN_TEST_0 = "rUEAWnKlIcfNVyPbhikZBozxQOwugTCdpG,U,+2,A";

namespace {
// Parses a generated record back into its parts, independently of the generator's code path.
struct Parsed {
  std::vector<uint16_t> str;
  uint16_t source, target;
  int shift;
  int comma_pos;
};
Parsed parse_record(const uint16_t* t, int len) {
  Parsed p;
  int i = 0;
  while (vocab::is_symbol(t[i])) p.str.push_back(t[i++]);
  REQUIRE(t[i] == vocab::kComma);
  p.source = t[i + 1];
  REQUIRE(t[i + 2] == vocab::kComma);
  REQUIRE((t[i + 3] == vocab::kPlus || t[i + 3] == vocab::kMinus));
  int sign = t[i + 3] == vocab::kMinus ? -1 : 1;
  int j = i + 4, mag = 0;
  while (t[j] >= vocab::kDigit0 && t[j] < vocab::kFirstSymbol) mag = mag * 10 + (t[j++] - vocab::kDigit0);
  REQUIRE(j > i + 4);
  REQUIRE(t[j] == vocab::kComma);
  p.comma_pos = j;
  p.shift = sign * mag;
  p.target = t[j + 1];
  REQUIRE(j + 2 == len);
  return p;
}
}  // namespace

TEST_CASE("every generated example satisfies the task's definition", "[generator]") {
  IndirectIndexingConfig c;
  TaskConfig task;
  task.n_train = 50000;
  SplitStats st;
  Dataset d = generate_split(task, 11, Split::kTrain, &st);
  REQUIRE(d.size() == 50000);
  REQUIRE(d.width == 48);
  REQUIRE(d.vocab_size == 66);
  for (size_t e = 0; e < d.size(); ++e) {
    const uint16_t* t = d.seq(e);
    int len = d.length(e);
    Parsed p = parse_record(t, len);
    int L = static_cast<int>(p.str.size());
    REQUIRE(L >= 20);
    REQUIRE(L <= 40);
    REQUIRE(std::set<uint16_t>(p.str.begin(), p.str.end()).size() == p.str.size());
    for (uint16_t s : p.str) REQUIRE(s < vocab::kFirstSymbol + 52);
    REQUIRE(p.shift != 0);
    REQUIRE(std::abs(p.shift) <= 15);
    auto it = std::find(p.str.begin(), p.str.end(), p.source);
    REQUIRE(it != p.str.end());
    int src = static_cast<int>(it - p.str.begin());
    REQUIRE(src + p.shift >= 0);
    REQUIRE(src + p.shift < L);
    REQUIRE(p.target == p.str[src + p.shift]);
    REQUIRE(d.answer_pos(e) == p.comma_pos);       // the answer is read at the last ','
    REQUIRE(d.target(e) == p.target);
    for (int k = len; k < d.width; ++k) REQUIRE(t[k] == vocab::kPad);
    std::string text = to_text(t, len);
    REQUIRE(parse_text(text) == std::vector<uint16_t>(t, t + len));
  }
}

TEST_CASE("shift and length frequencies match the re-draw rule", "[generator]") {
  TaskConfig task;
  task.n_train = 400000;
  SplitStats st;
  generate_split(task, 5, Split::kTrain, &st);
  const double n = 400000;
  // Lengths: uniform over 21 values. Shifts: P(k) = mean over L of (L-|k|)/sum_k'(L-|k'|),
  // e.g. P(+-1) = 0.0451, P(+-15) = 0.0168. Tolerance: 5 binomial standard deviations.
  auto expected = expected_shift_distribution(task.as<IndirectIndexingConfig>());
  REQUIRE(expected.size() == 30);
  double total = 0;
  for (auto [k, p] : expected) {
    total += p;
    double sd = std::sqrt(n * p * (1 - p));
    INFO("shift " << k << " expected " << n * p << " got " << st.offset_hist[k]);
    CHECK(std::abs(st.offset_hist[k] - n * p) < 5 * sd);
  }
  CHECK(total == Approx(1.0).epsilon(1e-12));
  CHECK(expected.at(1) == Approx(expected.at(-1)));
  CHECK(expected.at(1) > expected.at(15));
  REQUIRE(st.length_hist.size() == 21);
  for (auto [L, cnt] : st.length_hist) {
    double p = 1.0 / 21, sd = std::sqrt(n * p * (1 - p));
    INFO("length " << L);
    CHECK(std::abs(cnt - n * p) < 5 * sd);
  }
  CHECK(st.offset_hist.count(0) == 0);
}

TEST_CASE("zero shift appears when allowed", "[generator]") {
  TaskConfig task;
  task.as<IndirectIndexingConfig>().allow_zero_shift = true;
  task.n_train = 20000;
  SplitStats st;
  generate_split(task, 1, Split::kTrain, &st);
  auto expected = expected_shift_distribution(task.as<IndirectIndexingConfig>());
  double p = expected.at(0), sd = std::sqrt(20000 * p * (1 - p));
  CHECK(std::abs(st.offset_hist[0] - 20000 * p) < 5 * sd);
}

TEST_CASE("same seed gives the same bytes and seeds and splits differ", "[generator]") {
  TaskConfig task;
  task.n_train = task.n_val = task.n_test = 2000;
  Dataset a = generate_split(task, 3, Split::kTrain);
  Dataset b = generate_split(task, 3, Split::kTrain);
  Dataset c = generate_split(task, 4, Split::kTrain);
  Dataset v = generate_split(task, 3, Split::kVal);
  Dataset t = generate_split(task, 3, Split::kTest);
  CHECK(a.tokens == b.tokens);
  CHECK(a.lengths == b.lengths);
  CHECK(a.tokens != c.tokens);
  CHECK(a.tokens != v.tokens);
  CHECK(v.tokens != t.tokens);
}

TEST_CASE("golden: the first examples of seed 0 never change", "[generator]") {
  // Pins the RNG, the stream derivation and the tokenisation: if this fails, every published
  // dataset and result changes, so bump the dataset format version instead of editing the strings.
  TaskConfig task;
  task.n_train = 3;
  task.n_test = 2;
  Dataset d = generate_split(task, 0, Split::kTrain);
  Dataset t = generate_split(task, 0, Split::kTest);
  CHECK(to_text(d.seq(0), d.length(0)) == GOLDEN_TRAIN_0);
  CHECK(to_text(d.seq(1), d.length(1)) == GOLDEN_TRAIN_1);
  CHECK(to_text(d.seq(2), d.length(2)) == GOLDEN_TRAIN_2);
  CHECK(to_text(t.seq(0), t.length(0)) == GOLDEN_TEST_0);
}

TEST_CASE("text parsing rejects malformed lines", "[generator]") {
  CHECK_NOTHROW(parse_text("NZTUIGWkXFrhCJDzscat,N,+4,I"));
  CHECK_THROWS_AS(parse_text("NZTUIGWkXFrhCJDzscat,N,4,I"), UserError);   // no sign
  CHECK_THROWS_AS(parse_text("NZTUIGWkXFrhCJDzscat,N,+4"), UserError);    // no target
  CHECK_THROWS_AS(parse_text("NZTU IGWk,N,+4,I"), UserError);             // space
  CHECK_THROWS_AS(parse_text(",N,+4,I"), UserError);                      // empty string
}

TEST_CASE("invalid task parameters are refused with a message", "[generator]") {
  auto msg = [](IndirectIndexingConfig c) {
    try {
      c.validate();
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  IndirectIndexingConfig c;
  c.max_len = 10;
  CHECK_THAT(msg(c), Catch::Contains("below min length"));
  c = {};
  c.max_shift = 25;
  CHECK_THAT(msg(c), Catch::Contains("wider than the shortest string"));
  c = {};
  c.alphabet = 5000;
  CHECK_THAT(msg(c), Catch::Contains("exceeds the vocabulary"));
  c = {};
  c.alphabet = 30;
  CHECK_THAT(msg(c), Catch::Contains("without replacement"));
  CHECK(msg(IndirectIndexingConfig{}).empty());
}
