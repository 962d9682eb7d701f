// The options' declarations (config/option_table.hpp): each flag and JSON key declared once,
// a JSON spelling only for a word option, every option's value through the run JSON and back, and a JSON
// written before an option existed read as its declaration says.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "config/config.hpp"
#include "config/option_table.hpp"

using namespace popebench;

namespace {
template <class S>
void collect(const std::vector<OptionDecl<S>>& decls, std::set<std::string>& flags) {
  std::set<std::string> keys;
  for (const auto& d : decls) {
    INFO(d.key);
    CHECK(keys.insert(d.key).second);  // a key once in its section
    if (d.flag) CHECK(flags.insert(d.flag).second);  // a flag once over every section
    if (d.spellings) CHECK(std::holds_alternative<WordField<S>>(d.field));
    if (d.range) CHECK_FALSE(std::holds_alternative<double S::*>(d.field));
    if (d.only_when_set) CHECK_FALSE(d.absent.is_null());
  }
}

RunConfig every_option_set() {
  RunConfig c;
  c.model.n_layer = 3;
  c.model.d_model = 96;
  c.model.n_head = 6;
  c.model.mlp_ratio = 2;
  c.model.init_std = 0.03;
  c.model.attn_scale = "qk_dim";
  c.model.tied_embeddings = true;
  c.model.bias = true;
  c.model.abs_pos = AbsPos::kLearned;
  c.model.attn_temp = AttnTemp::kLearned;
  c.pe.kind = "rope";
  c.pe.base = 500;
  c.pe.rope_scaling = RopeScaling::kYarn;
  c.pe.rope_factor = 4;
  c.pe.rope_train_len = 48;
  c.optim.lr = 3e-4;
  c.optim.lr_min = 1e-5;
  c.optim.warmup_steps = 7;
  c.optim.beta1 = 0.8;
  c.optim.beta2 = 0.95;
  c.optim.eps = 1e-6;
  c.optim.weight_decay = 0.1;
  c.optim.grad_clip = 0.5;
  c.optim.weight_decay_on = WeightDecayOn::kAll2d;
  c.optim.pe_lr_mult = 2;
  c.input.pad = PadSide::kLeft;
  c.input.pad_attention = PadAttention::kMasked;
  c.train.seed = 11;
  c.train.data_seed = 12;
  c.train.steps = 500;
  c.train.batch = 5;
  c.train.grad_accum = 2;
  c.train.loss = TrainLoss::kAll;
  c.train.loss_fields = {0, 2};
  c.train.curriculum_steps = 100;
  c.train.init_from = "a.ckpt";
  c.train.eval_every = 9;
  c.train.eval_examples = 10;
  c.train.eval_batch = 13;
  c.train.checkpoint_every = 14;
  c.train.device = DeviceChoice::kCpu;
  c.train.gpu_matmul = GpuMatmul::kFp32;
  c.train.gpu_attention = GpuAttention::kTf32;
  c.size_model_for_task();
  return c;
}
}  // namespace

TEST_CASE("each flag and each JSON key of a run's options is declared once", "[config]") {
  std::set<std::string> flags;
  collect(model_options(), flags);
  collect(pe_options(), flags);
  collect(optim_options(), flags);
  collect(input_options(), flags);
  collect(train_options(), flags);
  CHECK(flags.count("--layers") == 1);
  CHECK(flags.count("--gpu-attention") == 1);
}

TEST_CASE("every option's value goes through the run JSON and back", "[config]") {
  const RunConfig c = every_option_set();
  REQUIRE_NOTHROW(c.validate());
  const nlohmann::json j = c;
  // The spellings the JSON has had since before the flags: what committed runs hold.
  CHECK(j["train"]["loss"] == "every_next_token");
  CHECK(j["train"]["batch_sampling"] == "uniform_with_replacement");
  CHECK(j["model"]["norm"] == "rmsnorm_prenorm");
  CHECK(j["pe"]["rope_pairing"] == "half_split");
  CHECK(j["optim"]["schedule"] == "linear_warmup_cosine");
  const RunConfig back = j;
  CHECK(nlohmann::json(back) == j);
  CHECK(back.train.loss_fields == std::vector<int>{0, 2});
  CHECK(back.pe.rope_train_len == 48);
  CHECK(back.train.sampling == BatchSampling::kReplacement);
  RunConfig epochs = c;
  epochs.train.sampling = BatchSampling::kEpochs;
  epochs.train.curriculum_steps = 0;  // a curriculum draws with replacement
  CHECK(nlohmann::json(epochs)["train"]["batch_sampling"] == "shuffled_epochs");
  CHECK(nlohmann::json(epochs).get<RunConfig>().train.sampling == BatchSampling::kEpochs);
}

TEST_CASE("options recorded only when set leave a default run's JSON as it was", "[config]") {
  RunConfig c;
  c.size_model_for_task();
  const nlohmann::json j = c;
  for (const char* key : {"loss_fields", "curriculum_steps", "init_from"}) CHECK_FALSE(j["train"].contains(key));
  CHECK_FALSE(j["pe"].contains("rope_train_len"));
}

TEST_CASE("a run JSON written before an option existed reads as its declaration says", "[config]") {
  RunConfig c;
  c.size_model_for_task();
  nlohmann::json j = c;
  j["train"].erase("gpu_matmul");  // before the CUDA backend: tf32, not today's default bf16
  j["train"].erase("batch_sampling");
  j["train"].erase("grad_accum");
  j["model"].erase("attn_scale");
  j["pe"].erase("freqs");
  j["input"].erase("pad_attention");
  const RunConfig back = j;
  CHECK(back.train.gpu_matmul == GpuMatmul::kTf32);
  CHECK(back.train.sampling == BatchSampling::kReplacement);
  CHECK(back.train.grad_accum == 1);
  CHECK(back.model.attn_scale == "head_dim");
  CHECK(back.pe.freqs == FreqOrder::kDecreasing);
  CHECK(back.input.pad_attention == PadAttention::kVisible);
  // A key every run has always written is required; an integer must be one.
  nlohmann::json no_layers = c;
  no_layers["model"].erase("n_layer");
  CHECK_THROWS_AS(no_layers.get<RunConfig>(), nlohmann::json::out_of_range);
  nlohmann::json float_steps = c;
  float_steps["train"]["steps"] = 1.5;
  CHECK_THROWS_AS(float_steps.get<RunConfig>(), nlohmann::json::type_error);
  nlohmann::json bad_loss = c;
  bad_loss["train"]["loss"] = "answer";  // the flag's word, not the JSON's spelling
  CHECK_THROWS_WITH(bad_loss.get<RunConfig>(), Catch::Contains("unknown loss 'answer' in the config"));
}
