#include "config/config.hpp"
#include "common/json_int.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <utility>

#include "common/error.hpp"

namespace popebench {

namespace {
[[noreturn]] void bad(const std::string& m) { throw UserError(m); }

// Fields whose JSON spelling is not the option's (the JSON's predates the option): pairs of
// {option value, JSON value}, the first pair the value when the key is absent.
using Spellings = std::initializer_list<std::pair<const char*, const char*>>;
const Spellings kSampling = {{"replacement", "uniform_with_replacement"}, {"epochs", "shuffled_epochs"}};
const Spellings kLoss = {{"answer", "answer_position_only"}, {"all", "every_next_token"}};
std::string json_spelling(const std::string& option_value, const Spellings& s) {
  for (const auto& [opt, js] : s)
    if (option_value == opt) return js;
  bad("no JSON spelling for '" + option_value + "'");
}
std::string option_spelling(const nlohmann::json& j, const char* key, const Spellings& s) {
  const std::string v = j.value(key, s.begin()->second);
  for (const auto& [opt, js] : s)
    if (v == js) return opt;
  bad("unknown " + std::string(key) + " '" + v + "' in the config");
}
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
  choices::kInit.require(init);
  if (init == "scaled-embedding" && tied_embeddings)
    bad("--init scaled-embedding has an untied head: it cannot be combined with --tie-embeddings");
  choices::kAbsPos.require(abs_pos);
  choices::kAttnTemp.require(attn_temp);
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
  choices::kWeightDecayOn.require(weight_decay_on);
  if (!(pe_lr_mult >= 0) || !std::isfinite(pe_lr_mult)) bad("PE learning-rate multiplier must be a finite number >= 0");
}

void InputConfig::validate() const {
  if (context < 0) bad("context must be >= 0 (0: the whole input)");
  choices::kPad.require(pad);
  choices::kPadAttention.require(pad_attention);
  if (pad_attention == "masked" && pad != "left")
    bad("--pad-attention masked needs --pad left (right pads are already behind the causal mask)");
}

void TrainConfig::validate() const {
  if (steps < 1) bad("steps must be >= 1 (got " + std::to_string(steps) + ")");
  if (batch < 1) bad("batch must be >= 1 (got " + std::to_string(batch) + ")");
  if (eval_every < 0 || eval_examples < 0 || checkpoint_every < 0) bad("intervals must be >= 0");
  if (eval_batch < 1) bad("eval batch must be >= 1");
  choices::kDevice.require(device);
  choices::kGpuMatmul.require(gpu_matmul);
  choices::kGpuAttention.require(gpu_attention);
  if (grad_accum < 1 || grad_accum > 4096) bad("grad accumulation must be in [1, 4096] micro-batches");
  choices::kSampling.require(sampling);
  choices::kLoss.require(loss);
  if (curriculum_steps < 0 || curriculum_steps > steps)
    bad("the curriculum's steps must be in [0, steps] (got " + std::to_string(curriculum_steps) + ")");
  if (curriculum_steps > 0 && sampling != "replacement")
    bad("a curriculum over length draws with replacement: it cannot be combined with --sampling " + sampling);
  if (!loss_fields.empty() && loss != "all") bad("loss fields choose among the targets of the loss on every token (--loss all)");
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
  if ((model.abs_pos != "none") && (pe.kind == "learned" || pe.kind == "sinusoidal"))
    bad("--abs-pos adds a position embedding on top of the PE; the PE " + pe.kind + " is one already");
  // A crop could drop a whole field, and with it the numbering the fields are chosen by.
  if (!train.loss_fields.empty() && input.context > 0) bad("loss fields are numbered from the input's start, which a context crop removes");
  if (optim.warmup_steps > train.steps) bad("warmup (" + std::to_string(optim.warmup_steps) + ") is longer than the run (" + std::to_string(train.steps) + " steps)");
}

int RunConfig::input_len() const {
  const int whole = task.width() - 1;  // the target is never an input
  return input.context > 0 ? std::min(whole, input.context) : whole;
}

void to_json(nlohmann::json& j, const ModelConfig& c) {
  j = {{"n_layer", c.n_layer}, {"d_model", c.d_model}, {"n_head", c.n_head}, {"mlp_ratio", c.mlp_ratio},
       {"vocab_size", c.vocab_size}, {"max_len", c.max_len}, {"init_std", c.init_std}, {"attn_scale", c.attn_scale},
       {"norm", "rmsnorm_prenorm"}, {"activation", "gelu_erf"}, {"bias", c.bias}, {"tied_embeddings", c.tied_embeddings},
       {"init", c.init}, {"abs_pos", c.abs_pos}, {"attn_temp", c.attn_temp}};
}
void from_json(const nlohmann::json& j, ModelConfig& c) {
  c.n_layer = json_int<int>(j, "n_layer");
  c.d_model = json_int<int>(j, "d_model");
  c.n_head = json_int<int>(j, "n_head");
  c.mlp_ratio = json_int<int>(j, "mlp_ratio");
  c.vocab_size = json_int<int>(j, "vocab_size");
  c.max_len = json_int<int>(j, "max_len");
  c.init_std = j.at("init_std");
  c.attn_scale = j.value("attn_scale", "head_dim");  // absent before the screen's options
  c.tied_embeddings = j.value("tied_embeddings", false);
  c.bias = j.value("bias", false);
  c.init = j.value("init", "gpt2");
  c.abs_pos = j.value("abs_pos", "none");
  c.attn_temp = j.value("attn_temp", "fixed");
}
void to_json(nlohmann::json& j, const PEConfig& c) {
  j = {{"kind", c.kind}, {"base", c.base}, {"delta_init", c.delta_init},
       {"rope_pairing", "half_split"}, {"delta_clamp", {-2 * M_PI, 0.0}}, {"delta_bound", c.delta_bound},
       {"delta_shared", c.delta_shared},
       {"rope_scaling", c.rope_scaling}, {"rope_factor", c.rope_factor}, {"freqs", c.freqs}};
  // Recorded only when set (YaRN's): a run's JSON then stays what it was before the field
  // existed, so reruns compare equal with committed runs (results/same_bits.py).
  if (c.rope_train_len != 0) j["rope_train_len"] = c.rope_train_len;
}
void from_json(const nlohmann::json& j, PEConfig& c) {
  c.kind = j.at("kind");
  c.base = j.at("base");
  c.delta_init = j.at("delta_init");
  c.rope_scaling = j.value("rope_scaling", "none");  // absent before length extrapolation
  c.rope_factor = j.value("rope_factor", 1.0);
  c.rope_train_len = j.value("rope_train_len", 0);  // absent before YaRN
  c.freqs = j.value("freqs", "decreasing");  // absent before the screen's options
  c.delta_bound = j.value("delta_bound", "clamp");
  c.delta_shared = j.value("delta_shared", false);
}
void to_json(nlohmann::json& j, const OptimConfig& c) {
  j = {{"name", "adamw"}, {"lr", c.lr}, {"lr_min", c.lr_min}, {"warmup_steps", c.warmup_steps},
       {"schedule", "linear_warmup_cosine"}, {"beta1", c.beta1}, {"beta2", c.beta2}, {"eps", c.eps},
       {"weight_decay", c.weight_decay}, {"weight_decay_on", c.weight_decay_on}, {"grad_clip", c.grad_clip},
       {"pe_lr_mult", c.pe_lr_mult}};
}
void from_json(const nlohmann::json& j, OptimConfig& c) {
  c.lr = j.at("lr");
  c.lr_min = j.at("lr_min");
  c.warmup_steps = json_int<int>(j, "warmup_steps");
  c.beta1 = j.at("beta1");
  c.beta2 = j.at("beta2");
  c.eps = j.at("eps");
  c.weight_decay = j.at("weight_decay");
  c.grad_clip = j.at("grad_clip");
  c.weight_decay_on = j.value("weight_decay_on", "matrices");
  c.pe_lr_mult = j.value("pe_lr_mult", 1.0);
}
void to_json(nlohmann::json& j, const TrainConfig& c) {
  j = {{"seed", c.seed}, {"data_seed", c.data_seed}, {"steps", c.steps}, {"batch", c.batch},
       {"eval_every", c.eval_every}, {"eval_examples", c.eval_examples}, {"eval_batch", c.eval_batch},
       {"checkpoint_every", c.checkpoint_every}, {"device", c.device}, {"gpu_matmul", c.gpu_matmul},
       {"gpu_attention", c.gpu_attention},
       {"batch_sampling", json_spelling(c.sampling, kSampling)}, {"grad_accum", c.grad_accum},
       {"loss", json_spelling(c.loss, kLoss)}};
  // Only when set, so that every run made before the option has the config it had.
  if (!c.loss_fields.empty()) j["loss_fields"] = c.loss_fields;
  if (c.curriculum_steps > 0) j["curriculum_steps"] = c.curriculum_steps;
  if (!c.init_from.empty()) j["init_from"] = c.init_from;
}
void from_json(const nlohmann::json& j, TrainConfig& c) {
  c.seed = json_int<uint64_t>(j, "seed");
  c.data_seed = json_int<uint64_t>(j, "data_seed");
  c.steps = json_int<int64_t>(j, "steps");
  c.batch = json_int<int>(j, "batch");
  c.eval_every = json_int<int64_t>(j, "eval_every");
  c.eval_examples = json_int<int64_t>(j, "eval_examples");
  c.eval_batch = json_int<int>(j, "eval_batch");
  c.checkpoint_every = json_int<int64_t>(j, "checkpoint_every");
  c.device = j.at("device");
  c.gpu_matmul = j.value("gpu_matmul", "tf32");  // absent before 0.1.0's CUDA backend
  c.gpu_attention = j.value("gpu_attention", "fp32");  // absent before the tf32 attention kernels
  c.sampling = option_spelling(j, "batch_sampling", kSampling);
  c.grad_accum = j.contains("grad_accum") ? json_int<int>(j, "grad_accum") : 1;
  c.loss = option_spelling(j, "loss", kLoss);
  c.loss_fields.clear();  // absent before the option existed, and whenever it is not set
  if (j.contains("loss_fields")) {
    const auto& fields = j.at("loss_fields");
    if (!fields.is_array()) throw nlohmann::json::type_error::create(302, "loss_fields must be a list of integers", nullptr);
    for (const auto& f : fields) c.loss_fields.push_back(json_int<int>(f, std::string("loss_fields")));
  }
  c.curriculum_steps = j.contains("curriculum_steps") ? json_int<int64_t>(j, "curriculum_steps") : 0;
  c.init_from = j.value("init_from", "");
}
void to_json(nlohmann::json& j, const InputConfig& c) {
  j = {{"context", c.context}, {"pad", c.pad}, {"pad_attention", c.pad_attention}};
}
void from_json(const nlohmann::json& j, InputConfig& c) {
  c.context = json_int<int>(j, "context");
  c.pad = j.at("pad");
  c.pad_attention = j.value("pad_attention", "visible");
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
