#include "config/config.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <utility>

#include "common/error.hpp"

namespace popebench {

namespace {
[[noreturn]] void bad(const std::string& m) { throw UserError(m); }

}  // namespace

void ModelConfig::validate() const {
  // Upper bounds too: a config read from a file (a checkpoint, a run JSON) must not size buffers
  // past what the CLI accepts, nor overflow the parameter layout's int dimensions.
  if (n_layer < 1 || n_layer > 1024) bad("n_layer must be in [1, 1024]");
  if (d_model < 1 || d_model > (1 << 16) || n_head < 1 || n_head > (1 << 12))
    bad("d_model must be in [1, 65536] and n_head in [1, 4096]");
  if (vocab_size < 1 || vocab_size > (1 << 20) || max_len < 1 || max_len > (1 << 20))
    bad("vocab_size and max_len must be in [1, 2^20]");
  if (d_model % n_head != 0)
    bad("n_head " + std::to_string(n_head) + " does not divide d_model " + std::to_string(d_model));
  if (head_dim() % 2 != 0) bad("head dim " + std::to_string(head_dim()) + " must be even (RoPE pairs channels)");
  if (mlp_ratio < 1 || mlp_ratio > 64) bad("mlp_ratio must be in [1, 64]");
  if (!(init_std > 0) || !std::isfinite(init_std)) bad("init_std must be a finite number > 0");
  if (attn_scale != "head_dim" && attn_scale != "qk_dim") {
    double v = 0;
    size_t used = 0;
    try {
      v = std::stod(attn_scale, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != attn_scale.size() || !(v > 0) || !std::isfinite(v))
      bad("attention scale '" + attn_scale + "' is not head_dim, qk_dim or a positive number");
  }
  if (init == ModelInit::kScaledEmbedding && tied_embeddings)
    bad("--init scaled-embedding has an untied head: it cannot be combined with --tie-embeddings");
}

double attention_scale(const ModelConfig& m, int qk_dim) {
  if (m.attn_scale == "head_dim") return 1.0 / std::sqrt(double(m.head_dim()));
  if (m.attn_scale == "qk_dim") return 1.0 / std::sqrt(double(qk_dim));
  return std::stod(m.attn_scale);
}

void OptimConfig::validate() const {
  // Written so that NaN fails every test (a comparison with NaN is false) and inf is named.
  for (auto [v, name] : {std::pair{lr, "lr"}, {lr_min, "lr_min"}, {beta1, "beta1"}, {beta2, "beta2"}, {eps, "Adam eps"},
                         {weight_decay, "weight decay"}, {grad_clip, "grad clip"}, {pe_lr_mult, "PE learning-rate multiplier"}})
    if (!std::isfinite(v)) bad(std::string(name) + " must be a finite number (got " + std::to_string(v) + ")");
  if (!(lr > 0) || !(lr_min >= 0) || !(lr_min <= lr)) bad("need 0 <= lr_min <= lr and lr > 0");
  if (warmup_steps < 0) bad("warmup steps must be >= 0");
  if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1)) bad("Adam betas must be in [0, 1)");
  if (!(eps > 0)) bad("Adam eps must be > 0");
  if (!(weight_decay >= 0) || !(grad_clip >= 0)) bad("weight decay and grad clip must be >= 0");
  if (!(pe_lr_mult >= 0) || !std::isfinite(pe_lr_mult)) bad("PE learning-rate multiplier must be a finite number >= 0");
}

void InputConfig::validate() const {
  if (context < 0) bad("context must be >= 0 (0: the whole input)");
  if (pad_attention == PadAttention::kMasked && pad != PadSide::kLeft)
    bad("--pad-attention masked needs --pad left (right pads are already behind the causal mask)");
}

void TrainConfig::validate() const {
  if (steps < 1) bad("steps must be >= 1 (got " + std::to_string(steps) + ")");
  if (batch < 1) bad("batch must be >= 1 (got " + std::to_string(batch) + ")");
  if (eval_every < 0 || eval_examples < 0 || checkpoint_every < 0) bad("intervals must be >= 0");
  if (eval_batch < 1) bad("eval batch must be >= 1");
  if (grad_accum < 1 || grad_accum > 4096) bad("grad accumulation must be in [1, 4096] micro-batches");
  if (curriculum_steps < 0 || curriculum_steps > steps)
    bad("the curriculum's steps must be in [0, steps] (got " + std::to_string(curriculum_steps) + ")");
  if (curriculum_steps > 0 && sampling != BatchSampling::kReplacement)
    bad("a curriculum over length draws with replacement: it cannot be combined with --sampling " + word(sampling));
  if (!loss_fields.empty() && loss != TrainLoss::kAll) bad("loss fields choose among the targets of the loss on every token (--loss all)");
  for (size_t i = 0; i < loss_fields.size(); ++i) {
    if (loss_fields[i] < 0 || loss_fields[i] > 63) bad("loss fields must be in [0, 63]");
    if (std::count(loss_fields.begin(), loss_fields.end(), loss_fields[i]) > 1) bad("loss fields must be distinct");
  }
}

void RunConfig::validate() const {
  task.validate();
  model.validate();
  pe.validate();
  optim.validate();
  train.validate();
  input.validate();
  if (model.vocab_size != task.vocab_size()) bad("model vocabulary does not match the task's");
  if (model.max_len < task.width()) bad("model max_len is shorter than the task's sequences");
  if (task.n_train < 1) bad("the training split is empty");
  if ((model.abs_pos != AbsPos::kNone) && (pe.kind == "learned" || pe.kind == "sinusoidal"))
    bad("--abs-pos adds a position embedding on top of the PE; the PE " + pe.kind + " is one already");
  // A crop could drop a whole field, and with it the numbering the fields are chosen by.
  if (!train.loss_fields.empty() && input.context > 0) bad("loss fields are numbered from the input's start, which a context crop removes");
  if (optim.warmup_steps > train.steps) bad("warmup (" + std::to_string(optim.warmup_steps) + ") is longer than the run (" + std::to_string(train.steps) + " steps)");
}

int RunConfig::input_len() const {
  const int whole = task.width() - 1;  // the target is never an input
  return input.context > 0 ? std::min(whole, input.context) : whole;
}

void to_json(nlohmann::json& j, const RunConfig& c) {
  j = {{"task", c.task}, {"model", c.model}, {"pe", c.pe}, {"optim", c.optim}, {"train", c.train}, {"input", c.input}};
}
void from_json(const nlohmann::json& j, RunConfig& c) {
  c.task = j.at("task");
  c.model = j.at("model");
  c.pe = j.at("pe");
  c.optim = j.at("optim");
  c.train = j.at("train");
  c.input = j.contains("input") ? j.at("input").get<InputConfig>() : InputConfig{};  // absent before the screen
}

nlohmann::json normalized_config(const nlohmann::json& j) {
  RunConfig c = j;
  return c;
}

std::string config_differences(const nlohmann::json& cfg, const RunConfig& base) {
  const nlohmann::json a = cfg.flatten(), b = nlohmann::json(base).flatten();
  std::string out;
  for (const auto& [path, value] : a.items()) {
    if (b.contains(path) && b[path] == value) continue;
    std::string key = path.substr(1);  // "/model/n_layer" -> "model.n_layer"
    std::replace(key.begin(), key.end(), '/', '.');
    out += (out.empty() ? "" : ", ") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}


}  // namespace popebench
