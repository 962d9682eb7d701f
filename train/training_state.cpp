#include "train/training_state.hpp"

#include <string>

#include "common/error.hpp"
#include "common/json_int.hpp"

namespace popebench {

namespace {
double number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j.at(key).is_number()) throw UserError(std::string("training state: '") + key + "' is not a number");
  return j.at(key).get<double>();
}
int64_t integer(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) throw UserError(std::string("training state: no '") + key + "'");
  return json_int<int64_t>(j, key);
}
std::optional<double> number_or_null(const nlohmann::json& j, const char* key) {
  if (j.contains(key) && j.at(key).is_null()) return std::nullopt;
  return number(j, key);
}
}  // namespace

void to_json(nlohmann::json& j, const CurvePoint& p) {
  j = {{"step", p.step},
       {"lr", p.lr},
       {"train_loss", p.train_loss ? nlohmann::json(*p.train_loss) : nlohmann::json(nullptr)},
       {"train_acc", p.train_acc ? nlohmann::json(*p.train_acc) : nlohmann::json(nullptr)},
       {"val_loss", p.val_loss},
       {"val_acc", p.val_acc},
       {"val_n", p.val_n},
       {"elapsed_s", p.elapsed_s}};
  if (p.val_bits_per_byte) j["val_bits_per_byte"] = *p.val_bits_per_byte;  // the text task only
}

void from_json(const nlohmann::json& j, CurvePoint& p) {
  if (!j.is_object()) throw UserError("training state: a curve point is not an object");
  p.step = integer(j, "step");
  p.lr = number(j, "lr");
  p.train_loss = number_or_null(j, "train_loss");
  p.train_acc = number_or_null(j, "train_acc");
  p.val_loss = number(j, "val_loss");
  p.val_acc = number(j, "val_acc");
  p.val_bits_per_byte = j.contains("val_bits_per_byte") ? std::optional<double>(number(j, "val_bits_per_byte")) : std::nullopt;
  p.val_n = integer(j, "val_n");
  p.elapsed_s = number(j, "elapsed_s");
}

nlohmann::json TrainingState::checkpoint_extra(const nlohmann::json& sampler_state) const {
  // The running train-loss sums go in too, so the next curve point is the same after a resume.
  return {{"curve", curve}, {"train_s", train_s}, {"eval_s", eval_s}, {"loss_sum", loss_sum},
          {"loss_n", loss_n}, {"hits", hits}, {"sampler", sampler_state}};
}

TrainingState TrainingState::from_checkpoint(int64_t step, const nlohmann::json& extra) {
  TrainingState s;
  s.step = step;
  if (!extra.contains("curve") || !extra.at("curve").is_array()) throw UserError("training state: no curve");
  s.curve = extra.at("curve").get<std::vector<CurvePoint>>();
  s.train_s = number(extra, "train_s");
  s.eval_s = number(extra, "eval_s");
  s.loss_sum = number(extra, "loss_sum");
  s.loss_n = integer(extra, "loss_n");
  s.hits = integer(extra, "hits");
  return s;
}

nlohmann::json TrainingState::sampler_state(const nlohmann::json& extra) {
  return extra.value("sampler", nlohmann::json());  // absent before shuffled epochs
}

}  // namespace popebench
