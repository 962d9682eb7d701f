#include "config/choices.hpp"

#include "common/error.hpp"

namespace popebench {

bool Choices::has(const std::string& v) const {
  for (const Choice& c : values)
    if (c.value == v) return true;
  return false;
}

std::vector<std::string> Choices::names() const {
  std::vector<std::string> n;
  for (const Choice& c : values) n.push_back(c.value);
  return n;
}

std::string Choices::known() const {
  std::string s;
  for (const Choice& c : values) s += (s.empty() ? "" : ", ") + c.value;
  return s;
}

std::string Choices::help() const {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i) {
    s += i == 0 ? "" : i + 1 == values.size() ? " or " : ", ";
    s += values[i].value + (values[i].help.empty() ? "" : " (" + values[i].help + ")");
  }
  return s;
}

void Choices::require(const std::string& v) const {
  if (!has(v)) throw UserError("unknown " + std::string(what) + " '" + v + "' (known: " + known() + ")");
}

namespace choices {
const EnumChoices<ModelInit> kInit{{"init",
                    {{"gpt2", "N(0, init-std)"},
                     {"scaled-embedding", "token embedding Kaiming-normal, times sqrt(d-model) in the forward pass"}}}};
const EnumChoices<AbsPos> kAbsPos{{"absolute position embedding",
                      {{"none", ""}, {"learned", "a learned absolute position embedding on top of the PE, nanoGPT's wpe"}}}};
const EnumChoices<AttnTemp> kAttnTemp{{"attention temperature",
                        {{"fixed", ""}, {"learned", "a learned per-layer, per-head log-temperature on the scores, zero at init"}}}};
const EnumChoices<DeltaInit> kDeltaInit{{"delta init",
                         {{"uniform", "in [-2pi, 0]"},
                          {"zero", ""},
                          {"uniform-positive", "in [0, 2pi], then clamped: a frozen zero phase under --delta-bound clamp"}}}};
const EnumChoices<RopeScaling> kRopeScaling{{"RoPE scaling", {{"none", ""}, {"pi", ""}, {"ntk", ""}, {"yarn", ""}}}};
const EnumChoices<FreqOrder> kFreqs{{"frequency order",
                     {{"decreasing", "base^(-c/d)"}, {"increasing", "the paper's Eq. 4 as printed, base^(c/d)"}}}};
const EnumChoices<DeltaBound> kDeltaBound{{"delta bound", {{"clamp", "in the forward pass"}, {"project", "after every update"}}}};
const EnumChoices<WeightDecayOn> kWeightDecayOn{{"weight decay scope",
                             {{"matrices", "linear layers and head"},
                              {"all-2d", "nanoGPT: also embeddings and PoPE's delta"}}}};
const EnumChoices<PadSide> kPad{{"padding side",
                   {{"right", "after the answer, masked by causality"}, {"left", "visible unless --pad-attention masked"}}}};
const EnumChoices<PadAttention> kPadAttention{{"pad attention",
                            {{"visible", ""}, {"masked", "attention never sees the left pads; needs --pad left"}}}};
const EnumChoices<DeviceChoice> kDevice{{"device", {{"auto", ""}, {"cpu", ""}, {"cuda", ""}}}};
const EnumChoices<GpuMatmul> kGpuMatmul{{"GPU matmul mode",
                         {{"bf16", ""}, {"tf32", "tensor cores, fp32 accumulation"}, {"fp32", "exact"}}}};
const EnumChoices<GpuAttention> kGpuAttention{{"GPU attention products",
                            {{"fp32", "CUDA cores"},
                             {"tf32", "tensor cores at T <= 64, fp32 sums"},
                             {"bf16", "FlashAttention-2 on tensor cores at any T, fp32 softmax: the long-sequence choice"}}}};
const EnumChoices<BatchSampling> kSampling{{"batch sampling",
                        {{"replacement", "independent uniform draws"}, {"epochs", "shuffled passes"}}}};
const EnumChoices<TrainLoss> kLoss{{"loss", {{"answer", "the answer position only"}, {"all", "every next token, as a language model"}}}};
}  // namespace choices

}  // namespace popebench
