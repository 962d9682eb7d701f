#include "config/option_table.hpp"

#include <climits>
#include <cmath>
#include <type_traits>

#include "common/error.hpp"
#include "common/json_int.hpp"

namespace popebench {

namespace {
constexpr long long kMaxSteps = 1000000000000LL;  // counts of steps and examples
const Spellings kSamplingJson = {{"replacement", "uniform_with_replacement"}, {"epochs", "shuffled_epochs"}};
const Spellings kLossJson = {{"answer", "answer_position_only"}, {"all", "every_next_token"}};

std::string json_spelling(const std::string& value, const Spellings& s) {
  for (const auto& [flag, json] : s)
    if (value == flag) return json;
  throw UserError("no JSON spelling for '" + value + "'");
}
std::string flag_spelling(const std::string& json, const char* key, const Spellings& s) {
  for (const auto& [flag, js] : s)
    if (json == js) return flag;
  throw UserError("unknown " + std::string(key) + " '" + json + "' in the config");
}
}  // namespace

// Each table in the order --help lists its group.
const std::vector<OptionDecl<ModelConfig>>& model_options() {
  using M = ModelConfig;
  static const std::vector<OptionDecl<M>> t = {
      {.flag = "--layers", .key = "n_layer", .field = &M::n_layer, .help = "Transformer blocks", .range = IntegerRange{1, 1024}},
      {.flag = "--d-model", .key = "d_model", .field = &M::d_model, .help = "Model width", .range = IntegerRange{1, 1 << 16}},
      {.flag = "--heads", .key = "n_head", .field = &M::n_head, .help = "Attention heads (must divide d-model)",
       .range = IntegerRange{1, 1 << 12}},
      {.flag = "--mlp-ratio", .key = "mlp_ratio", .field = &M::mlp_ratio, .help = "MLP hidden width / d-model",
       .range = IntegerRange{1, 64}},
      {.flag = nullptr, .key = "vocab_size", .field = &M::vocab_size, .help = "set from the task"},
      {.flag = nullptr, .key = "max_len", .field = &M::max_len, .help = "set from the task"},
      {.flag = "--init-std", .key = "init_std", .field = &M::init_std, .help = "Std of the normal init"},
      {.flag = "--attn-scale", .key = "attn_scale", .field = &M::attn_scale,
       .help = "Attention temperature: head_dim (1/sqrt(head dim)), qk_dim (1/sqrt(width of q.k: 2 head dim for PoPE)) or a number",
       .absent = "head_dim"},  // absent before the screen's options, as every field below
      {.flag = "--tie-embeddings", .key = "tied_embeddings", .field = &M::tied_embeddings,
       .help = "Output head = token embedding (nanoGPT, GPT-2)", .absent = false},
      {.flag = "--bias", .key = "bias", .field = &M::bias,
       .help = "Biases in the blocks' linear layers (nanoGPT's bias=True), zero-initialised, not decayed", .absent = false},
      {.flag = "--init", .key = "init", .field = word_field<&M::init>(), .help = "Initialisation: ", .absent = "gpt2"},
      {.flag = "--abs-pos", .key = "abs_pos", .field = word_field<&M::abs_pos>(), .help = "Absolute position embedding: ",
       .absent = "none"},
      {.flag = "--attn-temp", .key = "attn_temp", .field = word_field<&M::attn_temp>(), .help = "Attention temperature: ",
       .absent = "fixed"},
  };
  return t;
}

const std::vector<OptionDecl<PEConfig>>& pe_options() {
  using P = PEConfig;
  static const std::vector<OptionDecl<P>> t = {
      {.flag = "--pe", .key = "kind", .field = &P::kind, .help = " (popebench list says what each is)", .per_run = true,
       .pe_kinds = true},
      {.flag = "--pe-base", .key = "base", .field = &P::base, .help = "Frequency base"},
      // RoPE's frequency scaling in training itself: fine-tuning at a longer length with YaRN, as
      // the paper's YaRN baseline (extrapolate's --rope-variants applies them at test time only).
      {.flag = "--rope-scaling", .key = "rope_scaling", .field = word_field<&P::rope_scaling>(),
       .help = "RoPE frequency scaling while training: ",
       .absent = "none",  // absent before length extrapolation
       .help_after = " (with --rope-factor; yarn also --rope-train-len), e.g. fine-tuning at 4x the length with YaRN"},
      {.flag = "--rope-factor", .key = "rope_factor", .field = &P::rope_factor,
       .help = "RoPE scaling factor: the length scaled to / the length trained at", .absent = 1.0},
      {.flag = "--rope-train-len", .key = "rope_train_len", .field = &P::rope_train_len,
       .help = "RoPE scaling: the input length the model was first trained at (YaRN's original context)",
       .range = IntegerRange{0, 1 << 24}, .absent = 0, .only_when_set = true},  // absent before YaRN
      {.flag = "--delta-init", .key = "delta_init", .field = word_field<&P::delta_init>(), .help = "PoPE phase bias init: ",
       },
      {.flag = "--pe-freqs", .key = "freqs", .field = word_field<&P::freqs>(), .help = "rope/pope frequencies: ",
       .absent = "decreasing"},  // absent before the screen's options, as below
      {.flag = "--delta-bound", .key = "delta_bound", .field = word_field<&P::delta_bound>(), .help = "PoPE delta kept in [-2pi,0] by ",
       .absent = "clamp"},
      {.flag = "--delta-shared", .key = "delta_shared", .field = &P::delta_shared,
       .help = "One PoPE delta shared by every layer (x-transformers' style)", .absent = false},
  };
  return t;
}

const std::vector<OptionDecl<OptimConfig>>& optim_options() {
  using O = OptimConfig;
  static const std::vector<OptionDecl<O>> t = {
      {.flag = "--lr", .key = "lr", .field = &O::lr, .help = "Peak learning rate"},
      {.flag = "--lr-min", .key = "lr_min", .field = &O::lr_min, .help = "Learning rate at the end of the cosine"},
      {.flag = "--warmup", .key = "warmup_steps", .field = &O::warmup_steps, .help = "Linear warmup steps",
       .range = IntegerRange{0, INT_MAX}},
      {.flag = "--beta1", .key = "beta1", .field = &O::beta1, .help = "Adam beta1"},
      {.flag = "--beta2", .key = "beta2", .field = &O::beta2, .help = "Adam beta2"},
      {.flag = "--adam-eps", .key = "eps", .field = &O::eps, .help = "Adam epsilon"},
      {.flag = "--weight-decay", .key = "weight_decay", .field = &O::weight_decay, .help = "Decoupled weight decay on matrices"},
      {.flag = "--grad-clip", .key = "grad_clip", .field = &O::grad_clip, .help = "Global gradient-norm clip (0: off)"},
      {.flag = "--weight-decay-on", .key = "weight_decay_on", .field = word_field<&O::weight_decay_on>(), .help = "Weight decay on ",
       .absent = "matrices"},
      {.flag = "--pe-lr-mult", .key = "pe_lr_mult", .field = &O::pe_lr_mult,
       .help = "Learning-rate multiplier of the PE's parameters (PoPE's delta)", .absent = 1.0},
  };
  return t;
}

const std::vector<OptionDecl<InputConfig>>& input_options() {
  using I = InputConfig;
  static const std::vector<OptionDecl<I>> t = {
      {.flag = "--context", .key = "context", .field = &I::context,
       .help = "Keep only the last N input tokens of each example (0: all)", .range = IntegerRange{0, 1 << 20}},
      {.flag = "--pad", .key = "pad", .field = word_field<&I::pad>(), .help = "Padding side: "},
      {.flag = "--pad-attention", .key = "pad_attention", .field = word_field<&I::pad_attention>(), .help = "Left pads in attention: ",
       .absent = "visible"},
  };
  return t;
}

const std::vector<OptionDecl<TrainConfig>>& train_options() {
  using T = TrainConfig;
  static const std::vector<OptionDecl<T>> t = {
      {.flag = "--seed", .key = "seed", .field = &T::seed, .help = "Seed of init and batch sampling",
       .range = IntegerRange{0, LLONG_MAX}, .per_run = true},
      {.flag = "--data-seed", .key = "data_seed", .field = &T::data_seed,
       .help = "Seed of the generated dataset (without --data)", .range = IntegerRange{0, LLONG_MAX}},
      {.flag = "--steps", .key = "steps", .field = &T::steps, .help = "Optimizer steps", .range = IntegerRange{1, kMaxSteps}},
      {.flag = "--batch", .key = "batch", .field = &T::batch, .help = "Batch size (of each micro-batch with --grad-accum)",
       .range = IntegerRange{1, 1 << 20}},
      {.flag = "--grad-accum", .key = "grad_accum", .field = &T::grad_accum,
       .help = "Micro-batches per optimizer step, gradients averaged (one step sees batch x K examples)",
       .range = IntegerRange{1, 4096}, .absent = 1},
      {.flag = "--loss", .key = "loss", .field = word_field<&T::loss>(), .help = "Training loss: ",
       .absent = "answer_position_only", .spellings = &kLossJson},
      {.flag = "--loss-fields", .key = "loss_fields", .field = &T::loss_fields,
       .help = "With --loss all: only the next-token targets in these ','-separated fields of the input count, numbered "
               "from 0 (Indirect Indexing: 0 the string, 1 the source letter, 2 the shift; a ',' belongs to the field it "
               "ends); the answer always counts. Default: every field",
       .absent = nlohmann::json::array(), .only_when_set = true},
      {.flag = "--sampling", .key = "batch_sampling", .field = word_field<&T::sampling>(), .help = "Batch sampling: ",
       .absent = "uniform_with_replacement", .spellings = &kSamplingJson},
      {.flag = "--curriculum-steps", .key = "curriculum_steps", .field = &T::curriculum_steps,
       .help = "A curriculum over length: for the first N steps draw only inputs no longer than a limit growing "
               "linearly from the split's shortest to its longest (0: none; with --sampling replacement)",
       .range = IntegerRange{0, kMaxSteps}, .absent = 0, .only_when_set = true},
      {.flag = "--init-from", .key = "init_from", .field = &T::init_from,
       .help = "Fine-tune: start from this checkpoint's parameters (fresh AdamW moments, this run's schedule); its "
               "model must be this run's but for the maximum length and RoPE's scaling",
       .absent = "", .only_when_set = true},
      {.flag = "--eval-every", .key = "eval_every", .field = &T::eval_every, .help = "Steps between validation points (0: end only)",
       .range = IntegerRange{0, kMaxSteps}},
      {.flag = "--eval-examples", .key = "eval_examples", .field = &T::eval_examples,
       .help = "Validation examples per point (0: all)", .range = IntegerRange{0, kMaxSteps}},
      {.flag = "--eval-batch", .key = "eval_batch", .field = &T::eval_batch, .help = "Evaluation batch size",
       .range = IntegerRange{1, 1 << 20}},
      {.flag = "--checkpoint-every", .key = "checkpoint_every", .field = &T::checkpoint_every,
       .help = "Steps between checkpoints (0: end only)", .range = IntegerRange{0, kMaxSteps}},
      {.flag = "--device", .key = "device", .field = word_field<&T::device>(), .help = ""},
      {.flag = "--gpu-matmul", .key = "gpu_matmul", .field = word_field<&T::gpu_matmul>(), .help = "GPU matrix products: ",
       .absent = "tf32"},  // absent before 0.1.0's CUDA backend
      {.flag = "--gpu-attention", .key = "gpu_attention", .field = word_field<&T::gpu_attention>(), .help = "GPU attention's products: ",
       .absent = "fp32"},  // absent before the tf32 attention kernels
  };
  return t;
}

namespace {
// Each section's table, by the section's type.
const std::vector<OptionDecl<ModelConfig>>& table_of(const ModelConfig&) { return model_options(); }
const std::vector<OptionDecl<PEConfig>>& table_of(const PEConfig&) { return pe_options(); }
const std::vector<OptionDecl<OptimConfig>>& table_of(const OptimConfig&) { return optim_options(); }
const std::vector<OptionDecl<InputConfig>>& table_of(const InputConfig&) { return input_options(); }
const std::vector<OptionDecl<TrainConfig>>& table_of(const TrainConfig&) { return train_options(); }

// The section's options as JSON, into j (which holds the section's constants already).
template <class S>
void options_to_json(nlohmann::json& j, const S& s) {
  for (const auto& d : table_of(s))
    std::visit(
        [&](auto member) {
          nlohmann::json v;
          if constexpr (std::is_same_v<decltype(member), WordField<S>>)
            v = member.get(s);
          else
            v = s.*member;
          if (d.spellings) v = json_spelling(v.template get<std::string>(), *d.spellings);
          if (d.only_when_set && v == d.absent) return;
          j[d.key] = std::move(v);
        },
        d.field);
}

// One option's value x (from a section's JSON) into s.
template <class S, class V>
void read_option(const OptionDecl<S>& d, const nlohmann::json& x, S& s, V S::*member) {
  V& v = s.*member;
  if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>) {
    v = json_int<V>(x, std::string(d.key));
  } else if constexpr (std::is_same_v<V, std::vector<int>>) {
    if (!x.is_array()) throw nlohmann::json::type_error::create(302, std::string(d.key) + " must be a list of integers", nullptr);
    v.clear();
    for (const auto& f : x) v.push_back(json_int<int>(f, std::string(d.key)));
  } else {
    v = x.template get<V>();
  }
}
template <class S>
void read_option(const OptionDecl<S>& d, const nlohmann::json& x, S& s, const WordField<S>& field) {
  const std::string w = x.template get<std::string>();
  field.set(s, d.spellings ? flag_spelling(w, d.key, *d.spellings) : w);  // an unknown word: UserError
}

// The section's options from j; a missing key that has no `absent` value throws json out_of_range.
template <class S>
void options_from_json(const nlohmann::json& j, S& s) {
  for (const auto& d : table_of(s)) {
    // A key the option's JSON has always had is required: j.at names it when it is missing.
    const nlohmann::json& x = j.contains(d.key) || d.absent.is_null() ? j.at(d.key) : d.absent;
    std::visit([&](const auto& member) { read_option(d, x, s, member); }, d.field);
  }
}

}  // namespace

// Each section: its constants (what every run of this suite does, recorded so that a run JSON
// says it) and its options (config/option_table.cpp).
void to_json(nlohmann::json& j, const ModelConfig& c) {
  j = {{"norm", "rmsnorm_prenorm"}, {"activation", "gelu_erf"}};
  options_to_json(j, c);
}
void from_json(const nlohmann::json& j, ModelConfig& c) { options_from_json(j, c); }
void to_json(nlohmann::json& j, const PEConfig& c) {
  j = {{"rope_pairing", "half_split"}, {"delta_clamp", {-2 * M_PI, 0.0}}};
  options_to_json(j, c);
}
void from_json(const nlohmann::json& j, PEConfig& c) { options_from_json(j, c); }
void to_json(nlohmann::json& j, const OptimConfig& c) {
  j = {{"name", "adamw"}, {"schedule", "linear_warmup_cosine"}};
  options_to_json(j, c);
}
void from_json(const nlohmann::json& j, OptimConfig& c) { options_from_json(j, c); }
void to_json(nlohmann::json& j, const TrainConfig& c) {
  j = nlohmann::json::object();
  options_to_json(j, c);
}
void from_json(const nlohmann::json& j, TrainConfig& c) { options_from_json(j, c); }
void to_json(nlohmann::json& j, const InputConfig& c) {
  j = nlohmann::json::object();
  options_to_json(j, c);
}
void from_json(const nlohmann::json& j, InputConfig& c) { options_from_json(j, c); }

}  // namespace popebench
