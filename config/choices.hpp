// The options of a run that take one of a few words, each declared once with its words and what
// each does: the config's validation (require: "unknown <what> 'x' (known: a, b)"), the CLI's help
// (help(): "a (...), b (...) or c (...)") and the other commands that take the same option read
// these declarations.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace popebench {

struct Choice {
  std::string value;
  std::string help;  // what the value does, in a few words ("" when the word says it)
};

struct Choices {
  const char* what;            // what the option sets, for its error message
  std::vector<Choice> values;  // in the order the help lists them
  bool has(const std::string& v) const;
  std::vector<std::string> names() const;
  std::string known() const;  // "a, b, c"
  std::string help() const;   // "a (...), b (...) or c (...)"
  // UserError "unknown <what> 'v' (known: ...)" unless v is one of the values.
  void require(const std::string& v) const;
};

// The choices of an option held as the enum E past parsing: E's enumerators in the order of
// the values (tests/test_option_table.cpp pins each enumerator's word).
template <class E>
struct EnumChoices : Choices {
  // UserError "unknown <what> 'v' (known: ...)" unless v is one of the words.
  E parse(const std::string& v) const {
    for (size_t i = 0; i < values.size(); ++i)
      if (values[i].value == v) return E(i);
    require(v);  // throws
    return E(0);
  }
  const std::string& name(E e) const { return values.at(size_t(e)).value; }
};

// Each word option's values, as the config holds them (config/config.hpp says what each does).
enum class ModelInit { kGpt2, kScaledEmbedding };
enum class AbsPos { kNone, kLearned };
enum class AttnTemp { kFixed, kLearned };
enum class DeltaInit { kUniform, kZero, kUniformPositive };
enum class RopeScaling { kNone, kPi, kNtk, kYarn };
enum class FreqOrder { kDecreasing, kIncreasing };
enum class DeltaBound { kClamp, kProject };
enum class WeightDecayOn { kMatrices, kAll2d };
enum class PadSide { kRight, kLeft };
enum class PadAttention { kVisible, kMasked };
enum class DeviceChoice { kAuto, kCpu, kCuda };
enum class GpuMatmul { kBf16, kTf32, kFp32 };
enum class GpuAttention { kFp32, kTf32, kBf16 };
enum class BatchSampling { kReplacement, kEpochs };
enum class TrainLoss { kAnswer, kAll };

namespace choices {
// ModelConfig
extern const EnumChoices<ModelInit> kInit;
extern const EnumChoices<AbsPos> kAbsPos;
extern const EnumChoices<AttnTemp> kAttnTemp;
// PEConfig
extern const EnumChoices<DeltaInit> kDeltaInit;
extern const EnumChoices<RopeScaling> kRopeScaling;
extern const EnumChoices<FreqOrder> kFreqs;
extern const EnumChoices<DeltaBound> kDeltaBound;
// OptimConfig, InputConfig
extern const EnumChoices<WeightDecayOn> kWeightDecayOn;
extern const EnumChoices<PadSide> kPad;
extern const EnumChoices<PadAttention> kPadAttention;
// TrainConfig
extern const EnumChoices<DeviceChoice> kDevice;
extern const EnumChoices<GpuMatmul> kGpuMatmul;
extern const EnumChoices<GpuAttention> kGpuAttention;
extern const EnumChoices<BatchSampling> kSampling;
extern const EnumChoices<TrainLoss> kLoss;
}  // namespace choices

// An enum's choices, found by its type (generic code: the option table, word()).
inline const EnumChoices<ModelInit>& choices_of(ModelInit) { return choices::kInit; }
inline const EnumChoices<AbsPos>& choices_of(AbsPos) { return choices::kAbsPos; }
inline const EnumChoices<AttnTemp>& choices_of(AttnTemp) { return choices::kAttnTemp; }
inline const EnumChoices<DeltaInit>& choices_of(DeltaInit) { return choices::kDeltaInit; }
inline const EnumChoices<RopeScaling>& choices_of(RopeScaling) { return choices::kRopeScaling; }
inline const EnumChoices<FreqOrder>& choices_of(FreqOrder) { return choices::kFreqs; }
inline const EnumChoices<DeltaBound>& choices_of(DeltaBound) { return choices::kDeltaBound; }
inline const EnumChoices<WeightDecayOn>& choices_of(WeightDecayOn) { return choices::kWeightDecayOn; }
inline const EnumChoices<PadSide>& choices_of(PadSide) { return choices::kPad; }
inline const EnumChoices<PadAttention>& choices_of(PadAttention) { return choices::kPadAttention; }
inline const EnumChoices<DeviceChoice>& choices_of(DeviceChoice) { return choices::kDevice; }
inline const EnumChoices<GpuMatmul>& choices_of(GpuMatmul) { return choices::kGpuMatmul; }
inline const EnumChoices<GpuAttention>& choices_of(GpuAttention) { return choices::kGpuAttention; }
inline const EnumChoices<BatchSampling>& choices_of(BatchSampling) { return choices::kSampling; }
inline const EnumChoices<TrainLoss>& choices_of(TrainLoss) { return choices::kLoss; }

// The word of an option's value ("bf16" for GpuMatmul::kBf16): JSON, labels, messages.
template <class E>
const std::string& word(E e) {
  return choices_of(e).name(e);
}

// JSON holds the words: without these nlohmann would write an enum as its number. (Non-template
// functions beside the enums, which nlohmann prefers to its own for enums.)
#define POPEBENCH_WORD_JSON(E)                                                                        \
  inline void to_json(nlohmann::json& j, E e) { j = word(e); }                                       \
  inline void from_json(const nlohmann::json& j, E& e) { e = choices_of(E{}).parse(j.get<std::string>()); }
POPEBENCH_WORD_JSON(ModelInit)
POPEBENCH_WORD_JSON(AbsPos)
POPEBENCH_WORD_JSON(AttnTemp)
POPEBENCH_WORD_JSON(DeltaInit)
POPEBENCH_WORD_JSON(RopeScaling)
POPEBENCH_WORD_JSON(FreqOrder)
POPEBENCH_WORD_JSON(DeltaBound)
POPEBENCH_WORD_JSON(WeightDecayOn)
POPEBENCH_WORD_JSON(PadSide)
POPEBENCH_WORD_JSON(PadAttention)
POPEBENCH_WORD_JSON(DeviceChoice)
POPEBENCH_WORD_JSON(GpuMatmul)
POPEBENCH_WORD_JSON(GpuAttention)
POPEBENCH_WORD_JSON(BatchSampling)
POPEBENCH_WORD_JSON(TrainLoss)
#undef POPEBENCH_WORD_JSON

}  // namespace popebench
