// One config struct per concern; each serialises to the run JSON, so a run records everything
// that made it. Defaults are the paper's (SPEC §2-§4); SPEC's "choices" are fields here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/choices.hpp"
#include "generators/task.hpp"

namespace popebench {

struct ModelConfig {
  int n_layer = 8, d_model = 512, n_head = 8;
  int mlp_ratio = 4;      // MLP hidden = mlp_ratio * d_model (SPEC choice: 4x)
  int vocab_size = 66;    // set from the task
  int max_len = 48;       // longest sequence the model is built for (set from the task)
  double init_std = 0.02; // GPT-2 init; residual projections get init_std / sqrt(2 n_layer)
  // Attention temperature (an ambiguity of the paper: docs/spec.md): "head_dim" multiplies
  // scores by 1/sqrt(head_dim), the head dim before any PoPE expansion (SPEC §2); "qk_dim" by
  // 1/sqrt(width of q and k as the dot product sees them: 2 head_dim for PoPE, head_dim for the
  // others); or a positive number, the factor itself.
  std::string attn_scale = "head_dim";
  // The output head is the token embedding (nanoGPT and GPT-2 tie them): one (V, C) matrix,
  // both uses' gradients summed into it. SPEC: untied.
  bool tied_embeddings = false;
  // Biases in the four linear layers of each block (qkv, attention output, MLP in and out), zero
  // at init and never decayed (nanoGPT's bias=True; its head has none, nor has this one). SPEC:
  // no biases.
  bool bias = false;
  // "gpt2" (SPEC): every matrix and embedding N(0, init_std), residual projections
  // init_std / sqrt(2 n_layer). "scaled-embedding": the token embedding Kaiming-normal
  // (std sqrt(2 / d_model), PyTorch's fan-in of a (V, C) table) and multiplied by sqrt(d_model)
  // in the forward pass, the head untied (the style of another public training framework by
  // one of the paper's authors); the rest as gpt2.
  ModelInit init = ModelInit::kGpt2;
  // "learned": a learned absolute position embedding (max_len, C), N(0, init_std), added to the
  // token embedding on top of the PE (nanoGPT's wpe left in beside RoPE or PoPE). "none" (SPEC).
  AbsPos abs_pos = AbsPos::kNone;
  // "fixed" (SPEC): the scores are (q . k) times attn_scale. "learned": each layer and head also
  // has a learned log-temperature g (zero at init, never decayed), the scores times
  // attn_scale * exp(g), so that a head can sharpen or flatten its attention during training.
  AttnTemp attn_temp = AttnTemp::kFixed;
  int head_dim() const { return d_model / n_head; }
  void validate() const;
};

struct PEConfig {
  std::string kind = "pope";          // a registered PE (model/pe/pe_registry.hpp; `popebench list`)
  double base = 10000;                // frequency base for rope and pope
  DeltaInit delta_init = DeltaInit::kUniform;  // pope: uniform in [-2 pi, 0] (task default), zero, or uniform-positive ([0, 2 pi))
  // Frequencies of rope, rope-half and pope: "decreasing" (SPEC: RoPE base^(-2c/d), PoPE
  // base^(-c/d)) or "increasing", the paper's Eq. 4 as printed (no minus sign: PoPE base^(c/d),
  // from 1 to ~base rad per position, RoPE base^(2c/d) likewise).
  FreqOrder freqs = FreqOrder::kDecreasing;
  // How PoPE's delta is kept in [-2 pi, 0]: "clamp" (SPEC: clamped in the forward pass, no
  // gradient where it lies outside) or "project" (projected onto the interval after every
  // optimizer update, so it never leaves it and always has a gradient).
  DeltaBound delta_bound = DeltaBound::kClamp;
  // One delta shared by every layer (x-transformers' rotary embeddings are shared so), its
  // gradient the sum over layers; false (SPEC): one per layer.
  bool delta_shared = false;
  // Test-time frequency scaling of rope and rope-half, for length extrapolation without
  // fine-tuning: none; pi (position interpolation, Chen et al. 2023: positions times 1/factor);
  // ntk (NTK-aware: base times factor^(d/(d-2)), d the rotated width); yarn (Peng et al. 2023:
  // per channel between the two by a ramp over the channels' wavelengths against the training
  // length, and every score times (0.1 ln(factor) + 1)^2; model/pe/pe_rope.hpp). factor = test
  // length / train length; 1 leaves RoPE unchanged.
  RopeScaling rope_scaling = RopeScaling::kNone;
  double rope_factor = 1.0;
  // The training input length YaRN's ramp is measured against (its "original context"); set with
  // the factor by whatever evaluates at another length, 0 where no scaling needs it.
  int rope_train_len = 0;
  // Throws UserError for an unknown kind or an option that does not apply to it (defined with
  // the PE registry, model/pe/validate.cpp, which knows each kind's options).
  void validate() const;
};

struct OptimConfig {
  double lr = 2e-4, lr_min = 2e-5;  // peak, and the end of the cosine decay
  int warmup_steps = 4000;
  double beta1 = 0.9, beta2 = 0.99, eps = 1e-8;
  double weight_decay = 0.01;       // on weight matrices only (SPEC choice)
  double grad_clip = 1.0;           // global norm; 0 disables
  // Which tensors decay: "matrices" (SPEC choice: the linear layers' weights and the output
  // head) or "all-2d" (nanoGPT's rule, every tensor of two or more dimensions: also the token and
  // learned position embeddings and PoPE's delta, stored as (H, D) per layer; not the norm gains).
  WeightDecayOn weight_decay_on = WeightDecayOn::kMatrices;
  double pe_lr_mult = 1.0;          // learning-rate multiplier of the PE's own parameters (PoPE delta)
  void validate() const;
};

// How an example becomes the model's input row (ambiguities of the paper: docs/spec.md).
struct InputConfig {
  // > 0: keep only the last `context` input tokens of each example (a nanoGPT block size crops
  // from the left); positions then start at 0 at the first token kept. 0: the whole input.
  int context = 0;
  // "right": padding after the answer position, which the causal mask hides from every
  // prediction that counts (SPEC). "left": padding before the example, visible to attention
  // (not masked), the answer at the last position.
  PadSide pad = PadSide::kRight;
  // Whether attention sees the left pads: "visible" (as above) or "masked", every query at a real
  // token attends only to the real tokens (a query on a pad sees itself alone, and predicts
  // nothing). Right pads are always behind the causal mask, so "masked" needs pad "left". For a
  // relative PE (RoPE, PoPE, ALiBi) masked left padding is right padding, shifted: the same
  // scores, up to rounding (tests/test_attention_options.cpp).
  PadAttention pad_attention = PadAttention::kVisible;
  void validate() const;
};

struct TrainConfig {
  uint64_t seed = 0;       // model init and batch sampling
  uint64_t data_seed = 0;  // the dataset (as `popebench generate --seed`)
  int64_t steps = 100000;
  int batch = 64;
  int64_t eval_every = 2000;   // steps between validation evaluations (0: only at the end)
  int64_t eval_examples = 0;   // validation examples per evaluation during training (0: all)
  int eval_batch = 256;
  int64_t checkpoint_every = 5000;  // steps between checkpoints (0: only at the end)
  DeviceChoice device = DeviceChoice::kAuto;
  // GPU matrix products: bf16 or tf32 (tensor cores, fp32 accumulation) or fp32 (exact). bf16, the
  // fastest, is the default: every committed GPU result was made with it (bench/log/004-bf16-matrix-products.md).
  GpuMatmul gpu_matmul = GpuMatmul::kBf16;
  // GPU attention's own products (Q K^T, P V and the backward's): fp32 (CUDA cores, every
  // committed GPU result), tf32 (T <= 64 only: tensor cores, operands rounded to TF32, fp32 sums;
  // kernels/cuda/attention_short_tf32.cu; longer sequences then run the fp32 tiled kernels) or
  // bf16 (any T: FlashAttention-2's kernels on bf16 tensor cores, fp32 softmax and sums;
  // kernels/cuda/attention_flash.cu), the long-sequence choice.
  GpuAttention gpu_attention = GpuAttention::kFp32;
  // Micro-batches of `batch` examples per optimizer step: their gradients are averaged, so one
  // step sees batch * grad_accum examples (nanoGPT's gradient_accumulation_steps). 1: SPEC.
  int grad_accum = 1;
  // "replacement" (SPEC: every example drawn uniformly, independently) or "epochs" (the training
  // split in a fresh random order each epoch, batches taken in turn).
  BatchSampling sampling = BatchSampling::kReplacement;
  // The training loss: "answer" (SPEC: cross-entropy at the answer position only) or "all" (the
  // mean cross-entropy of every next token of the example, the target included: a language
  // model's loss). Evaluation always scores the answer.
  TrainLoss loss = TrainLoss::kAnswer;
  // With the loss on every token: only the predictions whose target lies in these fields of the
  // input count (fields are separated by ',' and numbered from 0, a ',' belonging to the field it
  // ends: Indirect Indexing's string is field 0, its source letter 1, its shift 2); the answer
  // always counts. Empty: every field (the loss "all" as nanoGPT has it). An ablation of which
  // of those targets carry the signal; recorded in the run JSON only when set.
  std::vector<int> loss_fields;
  // A curriculum over length: during the first N optimizer steps only examples whose input is no
  // longer than a limit growing linearly from the split's shortest to its longest are drawn
  // (train/batch_sampler.hpp). 0: none (SPEC). Recorded in the run JSON only when set.
  int64_t curriculum_steps = 0;
  // Fine-tuning: start from the parameters of this checkpoint (another run's, e.g. trained at a
  // shorter length) instead of a random init, with fresh AdamW moments and this config's schedule.
  // Its model must be this run's but for max_len (and RoPE's test-time scaling, e.g. YaRN, which
  // the fine-tuning itself may add). Empty: random init (SPEC). Recorded only when set.
  std::string init_from;
  void validate() const;
};

struct RunConfig {
  TaskConfig task;
  ModelConfig model;
  PEConfig pe;
  OptimConfig optim;
  TrainConfig train;
  InputConfig input;
  void validate() const;  // also ties the model's vocab and length to the task
  // The model's vocabulary and maximum length from the task (the one place that derives them):
  // the task's vocabulary and its width (TaskConfig::width, its longest row).
  void size_model_for_task() {
    model.vocab_size = task.vocab_size();
    model.max_len = task.width();
  }
  // Length of the model's input rows: the task's longest input, or the context when shorter.
  int input_len() const;
  // Examples per optimizer step: batch * grad_accum.
  int64_t examples_per_step() const { return int64_t(train.batch) * train.grad_accum; }
};

void to_json(nlohmann::json& j, const ModelConfig& c);
void from_json(const nlohmann::json& j, ModelConfig& c);
void to_json(nlohmann::json& j, const PEConfig& c);
void from_json(const nlohmann::json& j, PEConfig& c);
void to_json(nlohmann::json& j, const OptimConfig& c);
void from_json(const nlohmann::json& j, OptimConfig& c);
void to_json(nlohmann::json& j, const TrainConfig& c);
void from_json(const nlohmann::json& j, TrainConfig& c);
void to_json(nlohmann::json& j, const InputConfig& c);
void from_json(const nlohmann::json& j, InputConfig& c);
void to_json(nlohmann::json& j, const RunConfig& c);
void from_json(const nlohmann::json& j, RunConfig& c);
// The sections' JSON comes from the options' declarations (config/option_table.cpp).


// The attention scale of ModelConfig::attn_scale, given the width q and k have in the dot
// product (qk_dim: 2 head_dim for PoPE). Shared by the CPU model and the CUDA backend.
double attention_scale(const ModelConfig& m, int qk_dim);

// A config as it was written, re-read and written again: JSON written before an option existed
// gains that option's default, so old and new files of the same run compare equal.
nlohmann::json normalized_config(const nlohmann::json& j);
// The fields of a run config (its JSON) that differ from base, as "model.n_layer=2, pe.kind=rope"
// in the JSON's order; "" when none do.
std::string config_differences(const nlohmann::json& cfg, const RunConfig& base);

}  // namespace popebench
