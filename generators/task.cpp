#include "generators/task.hpp"

#include <type_traits>
#include "common/json_int.hpp"

#include "common/error.hpp"
#include "generators/vocab.hpp"

namespace popebench {

const char* split_name(Split s) {
  switch (s) {
    case Split::kTrain: return "train";
    case Split::kVal: return "val";
    case Split::kTest: return "test";
  }
  return "?";
}

const char* task_names() { return "indirect-indexing, associative-recall, k-back, text"; }

const std::vector<TaskKindInfo>& task_kinds() {
  static const std::vector<TaskKindInfo> kinds = {
      {"indirect-indexing", "a string of distinct letters, a source letter and a signed shift: answer the letter at the "
                            "source's position plus the shift (the paper's diagnostic: content and position together)"},
      {"associative-recall", "key-value pairs, then a key: answer its value (content alone)"},
      {"k-back", "a string, then a marker with k: answer the symbol k positions before the marker (position alone)"},
      {"text", "byte-level language modelling on a corpus of documents (default: the Linux kernel's documentation, "
               "Debian's linux-doc-6.1): windows of --max-len bytes, every next byte predicted (train with --loss all)"},
  };
  return kinds;
}

namespace {
// Calls f with the selected task's config (one switch for every per-task question).
template <typename Cfg, typename F>
auto with_task(Cfg& c, F&& f) {
  if (c.name == "indirect-indexing") return f(c.indirect_indexing);
  if (c.name == "associative-recall") return f(c.associative_recall);
  if (c.name == "k-back") return f(c.k_back);
  if (c.name == "text") return f(c.text);
  throw UserError("unknown task '" + c.name + "' (known: " + task_names() + ")");
}
}  // namespace

void TaskConfig::validate() const {
  with_task(*this, [](const auto& t) { t.validate(); });
}
int TaskConfig::width() const {
  return with_task(*this, [](const auto& t) { return t.width(); });
}
int TaskConfig::vocab_size() const {
  return with_task(*this, [](const auto& t) { return t.vocab_size(); });
}
uint64_t TaskConfig::count(Split s) const {
  return s == Split::kTrain ? n_train : s == Split::kVal ? n_val : n_test;
}
int TaskConfig::min_len() const {
  return with_task(*this, [](const auto& t) { return t.min_len; });
}
int TaskConfig::max_len() const {
  return with_task(*this, [](const auto& t) { return t.max_len; });
}
void TaskConfig::set_length_range(int lo, int hi) {
  with_task(*this, [&](auto& t) {
    t.min_len = lo;
    t.max_len = hi;
  });
}
double TaskConfig::chance() const {
  if (name == "associative-recall") return 1.0 / associative_recall.values;
  return 1.0 / with_task(*this, [](const auto& t) { return t.alphabet; });
}

void to_json(nlohmann::json& j, const TaskConfig& c) {
  nlohmann::json params = with_task(c, [](const auto& t) { return nlohmann::json(t); });
  j = {{"name", c.name}, {"params", params}, {"n_train", c.n_train}, {"n_val", c.n_val}, {"n_test", c.n_test}};
}
void from_json(const nlohmann::json& j, TaskConfig& c) {
  c.name = j.at("name");
  with_task(c, [&](auto& t) { t = j.at("params"); });
  c.n_train = json_int<uint64_t>(j, "n_train");
  c.n_val = json_int<uint64_t>(j, "n_val");
  c.n_test = json_int<uint64_t>(j, "n_test");
}

void to_json(nlohmann::json& j, const SplitStats& s) {
  nlohmann::json lh = nlohmann::json::object(), oh = nlohmann::json::object();
  for (auto [k, v] : s.length_hist) lh[std::to_string(k)] = v;
  for (auto [k, v] : s.offset_hist) oh[std::to_string(k)] = v;
  j = {{"length_hist", lh}, {s.offset_name + "_hist", oh}};
  if (!s.source.is_null()) j["source"] = s.source;
}

namespace {
Example draw(Pcg32& rng, const IndirectIndexingConfig& c) {
  IndirectIndexingExample e = draw_indirect_indexing(rng, c);
  return {std::move(e.tokens), e.str_len, e.shift};
}
Example draw(Pcg32& rng, const AssociativeRecallConfig& c) { return draw_associative_recall(rng, c); }
Example draw(Pcg32& rng, const KBackConfig& c) { return draw_k_back(rng, c); }
const char* offset_name(const IndirectIndexingConfig&) { return "shift"; }
const char* offset_name(const AssociativeRecallConfig&) { return "query_pair"; }
const char* offset_name(const KBackConfig&) { return "k"; }

// The independent-example tasks: `count` draws, each right-padded to the split's width.
template <typename Cfg>
void generate_examples(Dataset& d, Pcg32& rng, const Cfg& t, size_t count, SplitStats* stats) {
  if (stats) stats->offset_name = offset_name(t);
  for (size_t i = 0; i < count; ++i) {
    Example ex = draw(rng, t);
    std::copy(ex.tokens.begin(), ex.tokens.end(), d.tokens.begin() + i * d.width);
    d.lengths[i] = static_cast<uint16_t>(ex.tokens.size());
    if (stats) {
      stats->length_hist[ex.length]++;
      stats->offset_hist[ex.offset]++;
    }
  }
}
}  // namespace

Dataset generate_split(const TaskConfig& c, uint64_t seed, Split s, SplitStats* stats) {
  c.validate();
  static const Stream kSplitStreams[] = {Stream::kTrain, Stream::kVal, Stream::kTest};
  Pcg32 rng = make_stream(seed, kSplitStreams[static_cast<int>(s)]);
  // Text cuts records from a corpus instead of drawing independent examples.
  if (c.name == "text") {
    require_text_windows(c.text, c.n_train, c.n_val, c.n_test);
    return generate_text_split(c.text, rng, static_cast<int>(s), c.count(s), stats);
  }
  Dataset d;
  d.width = c.width();
  d.vocab_size = c.vocab_size();
  const size_t count = c.count(s);
  d.tokens.assign(count * d.width, vocab::kPad);
  d.lengths.resize(count);
  with_task(c, [&](const auto& t) {
    if constexpr (!std::is_same_v<std::decay_t<decltype(t)>, TextConfig>) generate_examples(d, rng, t, count, stats);
  });
  return d;
}

nlohmann::json task_corpus_json(const TaskConfig& c) {
  return c.name == "text" ? text_corpus_json(c.text.corpus) : nlohmann::json();
}

nlohmann::json generated_data_source(const TaskConfig& c, uint64_t seed) {
  nlohmann::json j = {{"kind", "generated"}, {"seed", seed}};
  if (nlohmann::json corpus = task_corpus_json(c); !corpus.is_null()) j["corpus"] = corpus;
  return j;
}

}  // namespace popebench
