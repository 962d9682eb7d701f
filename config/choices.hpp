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
// the values (tests/test_choices.cpp pins each enumerator's word).
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

// The word of an option's value ("bf16" for GpuMatmul::kBf16): JSON, labels, messages.
// (choices_of(E) is declared by POPEBENCH_WORD_OPTION below and found by argument lookup.)
template <class E>
const std::string& word(E e) {
  return choices_of(e).name(e);
}

// A word option, declared in one line: the enum the config holds past parsing (its enumerators
// in the order of the words, which choices.cpp gives with the choices object's definition), the
// choices object `choices::NAME`, choices_of(E) for generic code (the option table, word()), and
// JSON as the words (without these nlohmann would write an enum as its number; non-template
// functions beside the enum, which nlohmann prefers to its own for enums).
#define POPEBENCH_WORD_OPTION(E, NAME, ...)                                                   \
  enum class E { __VA_ARGS__ };                                                              \
  namespace choices {                                                                        \
  extern const EnumChoices<E> NAME;                                                          \
  }                                                                                          \
  inline const EnumChoices<E>& choices_of(E) { return choices::NAME; }                       \
  inline void to_json(nlohmann::json& j, E e) { j = choices::NAME.name(e); }                 \
  inline void from_json(const nlohmann::json& j, E& e) { e = choices::NAME.parse(j.get<std::string>()); }

// Each word option's values, as the config holds them (config/config.hpp says what each does).
// ModelConfig
POPEBENCH_WORD_OPTION(ModelInit, kInit, kGpt2, kScaledEmbedding)
POPEBENCH_WORD_OPTION(AbsPos, kAbsPos, kNone, kLearned)
POPEBENCH_WORD_OPTION(AttnTemp, kAttnTemp, kFixed, kLearned)
// PEConfig
POPEBENCH_WORD_OPTION(DeltaInit, kDeltaInit, kUniform, kZero, kUniformPositive)
POPEBENCH_WORD_OPTION(RopeScaling, kRopeScaling, kNone, kPi, kNtk, kYarn)
POPEBENCH_WORD_OPTION(FreqOrder, kFreqs, kDecreasing, kIncreasing)
POPEBENCH_WORD_OPTION(DeltaBound, kDeltaBound, kClamp, kProject)
// OptimConfig, InputConfig
POPEBENCH_WORD_OPTION(WeightDecayOn, kWeightDecayOn, kMatrices, kAll2d)
POPEBENCH_WORD_OPTION(PadSide, kPad, kRight, kLeft)
POPEBENCH_WORD_OPTION(PadAttention, kPadAttention, kVisible, kMasked)
// TrainConfig
POPEBENCH_WORD_OPTION(DeviceChoice, kDevice, kAuto, kCpu, kCuda)
POPEBENCH_WORD_OPTION(GpuMatmul, kGpuMatmul, kBf16, kTf32, kFp32)
POPEBENCH_WORD_OPTION(GpuAttention, kGpuAttention, kFp32, kTf32, kBf16)
POPEBENCH_WORD_OPTION(BatchSampling, kSampling, kReplacement, kEpochs)
POPEBENCH_WORD_OPTION(TrainLoss, kLoss, kAnswer, kAll)
#undef POPEBENCH_WORD_OPTION

}  // namespace popebench
