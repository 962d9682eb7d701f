#include "generators/task.hpp"

#include "common/error.hpp"
#include "common/json_int.hpp"

namespace popebench {

std::string task_names() {
  std::string names;
  for_each_task_kind([&](const auto& t) { names += (names.empty() ? "" : ", ") + std::string(t.kName); });
  return names;
}

const std::vector<TaskKindInfo>& task_kinds() {
  static const std::vector<TaskKindInfo> kinds = [] {
    std::vector<TaskKindInfo> k;
    for_each_task_kind([&](const auto& t) { k.push_back({t.kName, t.kHelp}); });
    return k;
  }();
  return kinds;
}

std::string TaskConfig::name() const {
  return std::visit([](const auto& t) { return std::string(t.kName); }, params);
}

void TaskConfig::select(const std::string& name) {
  bool found = false;
  for_each_task_kind([&](auto t) {
    if (!found && name == t.kName) {
      params = std::move(t);
      found = true;
    }
  });
  if (!found) throw UserError("unknown task '" + name + "' (known: " + task_names() + ")");
}

void TaskConfig::validate() const {
  std::visit([](const auto& t) { t.validate(); }, params);
}
int TaskConfig::width() const {
  return std::visit([](const auto& t) { return t.width(); }, params);
}
int TaskConfig::vocab_size() const {
  return std::visit([](const auto& t) { return t.vocab_size(); }, params);
}
uint64_t TaskConfig::count(Split s) const {
  return s == Split::kTrain ? n_train : s == Split::kVal ? n_val : n_test;
}
int TaskConfig::min_len() const {
  return std::visit([](const auto& t) { return t.min_len; }, params);
}
int TaskConfig::max_len() const {
  return std::visit([](const auto& t) { return t.max_len; }, params);
}
void TaskConfig::set_length_range(int lo, int hi) {
  std::visit([&](auto& t) {
    t.min_len = lo;
    t.max_len = hi;
  }, params);
}
double TaskConfig::chance() const {
  return std::visit([](const auto& t) { return t.chance(); }, params);
}
bool TaskConfig::language_model() const {
  return std::visit([](const auto& t) {
    if constexpr (requires { std::decay_t<decltype(t)>::kLanguageModel; }) return bool(std::decay_t<decltype(t)>::kLanguageModel);
    return false;
  }, params);
}
bool TaskConfig::has_text_format() const {
  return std::visit([](const auto& t) {
    if constexpr (requires { std::decay_t<decltype(t)>::kTextFormat; }) return bool(std::decay_t<decltype(t)>::kTextFormat);
    return false;
  }, params);
}

void to_json(nlohmann::json& j, const TaskConfig& c) {
  nlohmann::json params = std::visit([](const auto& t) { return nlohmann::json(t); }, c.params);
  j = {{"name", c.name()}, {"params", params}, {"n_train", c.n_train}, {"n_val", c.n_val}, {"n_test", c.n_test}};
}
void from_json(const nlohmann::json& j, TaskConfig& c) {
  c.select(j.at("name").get<std::string>());
  std::visit([&](auto& t) { t = j.at("params"); }, c.params);
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

Dataset generate_split(const TaskConfig& c, uint64_t seed, Split s, SplitStats* stats) {
  c.validate();
  static const Stream kSplitStreams[] = {Stream::kTrain, Stream::kVal, Stream::kTest};
  Pcg32 rng = make_stream(seed, kSplitStreams[static_cast<int>(s)]);
  return std::visit([&](const auto& t) {
    if constexpr (requires { t.check_split_sizes(c.n_train, c.n_val, c.n_test); })
      t.check_split_sizes(c.n_train, c.n_val, c.n_test);
    return t.generate(rng, s, c.count(s), stats);
  }, c.params);
}

nlohmann::json task_corpus_json(const TaskConfig& c) {
  return std::visit([](const auto& t) {
    if constexpr (requires { t.corpus_json(); }) return t.corpus_json();
    return nlohmann::json();
  }, c.params);
}

nlohmann::json generated_data_source(const TaskConfig& c, uint64_t seed) {
  nlohmann::json j = {{"kind", "generated"}, {"seed", seed}};
  if (nlohmann::json corpus = task_corpus_json(c); !corpus.is_null()) j["corpus"] = corpus;
  return j;
}

}  // namespace popebench
