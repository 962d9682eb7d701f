#include "generators/task.hpp"

#include "common/files.hpp"

namespace popebench {

const char* split_name(Split s) {
  switch (s) {
    case Split::kTrain: return "train";
    case Split::kVal: return "val";
    case Split::kTest: return "test";
  }
  return "?";
}

void TaskConfig::validate() const {
  if (name != "indirect-indexing") throw UserError("unknown task '" + name + "' (known: indirect-indexing)");
  indirect_indexing.validate();
}
int TaskConfig::width() const { return indirect_indexing.width(); }
int TaskConfig::vocab_size() const { return indirect_indexing.vocab_size(); }
uint64_t TaskConfig::count(Split s) const {
  return s == Split::kTrain ? n_train : s == Split::kVal ? n_val : n_test;
}

void to_json(nlohmann::json& j, const TaskConfig& c) {
  j = {{"name", c.name}, {"params", c.indirect_indexing},
       {"n_train", c.n_train}, {"n_val", c.n_val}, {"n_test", c.n_test}};
}
void from_json(const nlohmann::json& j, TaskConfig& c) {
  c.name = j.at("name");
  c.indirect_indexing = j.at("params");
  c.n_train = j.at("n_train");
  c.n_val = j.at("n_val");
  c.n_test = j.at("n_test");
}

Dataset generate_split(const TaskConfig& c, uint64_t seed, Split s, SplitStats* stats) {
  c.validate();
  return generate_indirect_indexing(c.indirect_indexing, seed, static_cast<int>(s), c.count(s), stats);
}

}  // namespace popebench
