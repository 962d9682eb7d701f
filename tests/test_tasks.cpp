// The two extra diagnostic tasks (associative recall, k-back) and the large-alphabet form of
// Indirect Indexing used for length extrapolation: every example against the task's definition,
// parsed independently of the generator; frequencies; determinism; bad parameters.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "common/error.hpp"
#include "generators/task.hpp"
#include "generators/vocab.hpp"

using namespace popebench;

namespace {
TaskConfig task_named(const std::string& name, uint64_t n) {
  TaskConfig t;
  t.select(name);
  t.n_train = n;
  t.n_val = t.n_test = 100;
  return t;
}
bool is_digit(uint16_t t) { return t >= vocab::kDigit0 && t < vocab::kDigit0 + 10; }
// Chi-square-free check of a uniform histogram: every bin within 5 binomial sigma of n/bins.
template <typename Map>
void check_uniform(const Map& hist, int lo, int hi, uint64_t n) {
  const double bins = hi - lo + 1, p = 1.0 / bins, sd = std::sqrt(n * p * (1 - p));
  REQUIRE(hist.size() == static_cast<size_t>(bins));
  for (int k = lo; k <= hi; ++k) {
    INFO("bin " << k);
    CHECK(std::abs(double(hist.at(k)) - n * p) < 5 * sd);
  }
}
}  // namespace

TEST_CASE("associative recall: every example is pairs, a query key, and that key's value", "[generator][tasks]") {
  TaskConfig t = task_named("associative-recall", 30000);
  const auto& c = t.as<AssociativeRecallConfig>();
  SplitStats st;
  Dataset d = generate_split(t, 7, Split::kTrain, &st);
  REQUIRE(d.width == 2 * c.max_len + 4);
  REQUIRE(d.vocab_size == vocab::kFirstSymbol + c.alphabet + c.values);
  auto is_key = [&](uint16_t x) { return x >= vocab::symbol(0) && x < vocab::symbol(c.alphabet); };
  auto is_value = [&](uint16_t x) { return x >= vocab::symbol(c.alphabet) && x < vocab::symbol(c.alphabet + c.values); };
  for (size_t i = 0; i < d.size(); ++i) {
    const uint16_t* s = d.seq(i);
    const int len = d.length(i), n = (len - 4) / 2;
    REQUIRE((len - 4) % 2 == 0);
    REQUIRE(n >= c.min_len);
    REQUIRE(n <= c.max_len);
    std::set<uint16_t> keys;
    int found = -1;
    for (int p = 0; p < n; ++p) {
      REQUIRE(is_key(s[2 * p]));
      REQUIRE(is_value(s[2 * p + 1]));
      keys.insert(s[2 * p]);
      if (s[2 * p] == s[2 * n + 1]) found = p;
    }
    REQUIRE(keys.size() == static_cast<size_t>(n));  // unique keys: the answer is defined
    REQUIRE(s[2 * n] == vocab::kComma);
    REQUIRE(s[2 * n + 2] == vocab::kComma);
    REQUIRE(found >= 0);
    REQUIRE(d.target(i) == s[2 * found + 1]);
    REQUIRE(d.answer_pos(i) == 2 * n + 2);  // the last ','
    for (int p = len; p < d.width; ++p) REQUIRE(s[p] == vocab::kPad);
  }
  check_uniform(st.length_hist, c.min_len, c.max_len, t.n_train);
  CHECK(t.chance() == Approx(1.0 / c.values));
}

TEST_CASE("k-back: the answer is the symbol k before the marker", "[generator][tasks]") {
  TaskConfig t = task_named("k-back", 30000);
  const auto& c = t.as<KBackConfig>();
  SplitStats st;
  Dataset d = generate_split(t, 8, Split::kTrain, &st);
  REQUIRE(d.width == c.max_len + 5);  // string, ',', up to two digits, ',', answer
  size_t repeats = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const uint16_t* s = d.seq(i);
    int L = 0;
    while (vocab::is_symbol(s[L])) ++L;
    REQUIRE(L >= c.min_len);
    REQUIRE(L <= c.max_len);
    REQUIRE(s[L] == vocab::kComma);
    int j = L + 1, k = 0;
    while (is_digit(s[j])) k = 10 * k + (s[j++] - vocab::kDigit0);
    REQUIRE(j > L + 1);
    REQUIRE(s[j] == vocab::kComma);
    REQUIRE(j + 2 == d.length(i));
    REQUIRE(k >= 1);
    REQUIRE(k <= c.max_k);
    REQUIRE(d.target(i) == s[L - k]);
    std::set<uint16_t> distinct(s, s + L);
    repeats += distinct.size() < static_cast<size_t>(L);
  }
  check_uniform(st.offset_hist, 1, c.max_k, t.n_train);
  check_uniform(st.length_hist, c.min_len, c.max_len, t.n_train);
  // With replacement from 52 symbols, a 20-40 symbol string almost always repeats one: the
  // answer's content does not identify its position.
  CHECK(repeats > d.size() * 9 / 10);
}

TEST_CASE("Indirect Indexing with a 512-symbol alphabet makes 400-symbol strings of unique symbols", "[generator][tasks]") {
  TaskConfig t = task_named("indirect-indexing", 300);
  auto& c = t.as<IndirectIndexingConfig>();
  c.alphabet = 512;
  c.min_len = 361;
  c.max_len = 400;
  Dataset d = generate_split(t, 3, Split::kTest);
  REQUIRE(d.vocab_size == vocab::kFirstSymbol + 512);
  for (size_t i = 0; i < d.size(); ++i) {
    const uint16_t* s = d.seq(i);
    int L = 0;
    while (vocab::is_symbol(s[L])) ++L;
    REQUIRE(L >= 361);
    REQUIRE(L <= 400);
    REQUIRE(std::set<uint16_t>(s, s + L).size() == static_cast<size_t>(L));
    for (int p = 0; p < L; ++p) REQUIRE(s[p] < vocab::symbol(512));
  }
}

TEST_CASE("each task: the same seed gives the same bytes, another seed others", "[generator][tasks]") {
  for (std::string name : {"associative-recall", "k-back"}) {
    TaskConfig t = task_named(name, 2000);
    Dataset a = generate_split(t, 5, Split::kTrain), b = generate_split(t, 5, Split::kTrain),
            c = generate_split(t, 6, Split::kTrain), v = generate_split(t, 5, Split::kVal);
    INFO(name);
    CHECK(a.tokens == b.tokens);
    CHECK(a.lengths == b.lengths);
    CHECK(a.tokens != c.tokens);
    CHECK(std::vector<uint16_t>(a.tokens.begin(), a.tokens.begin() + 100 * a.width) != v.tokens);
  }
}

TEST_CASE("task configs round-trip through JSON and bad parameters are refused", "[generator][tasks]") {
  for (std::string name : {"indirect-indexing", "associative-recall", "k-back"}) {
    TaskConfig t = task_named(name, 10);
    t.set_length_range(11, 13);
    nlohmann::json j = t;
    TaskConfig back = j.get<TaskConfig>();
    CHECK(nlohmann::json(back) == j);
    CHECK(back.min_len() == 11);
    CHECK(back.max_len() == 13);
  }
  auto msg = [](TaskConfig t) {
    try {
      t.validate();
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  TaskConfig t = task_named("k-back", 10);
  t.as<KBackConfig>().max_k = 25;
  CHECK_THAT(msg(t), Catch::Contains("reaches before the shortest string"));
  t = task_named("associative-recall", 10);
  t.as<AssociativeRecallConfig>().alphabet = 15;
  CHECK_THAT(msg(t), Catch::Contains("keys are drawn without replacement"));
  t.as<AssociativeRecallConfig>().alphabet = 4090;
  CHECK_THAT(msg(t), Catch::Contains("exceeds the vocabulary"));
  CHECK_THROWS_WITH(TaskConfig().select("copy"), Catch::Contains("unknown task 'copy'"));
}
