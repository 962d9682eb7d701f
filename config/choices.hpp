// The options of a run that take one of a few words, each declared once with its words and what
// each does: the config's validation (require: "unknown <what> 'x' (known: a, b)"), the CLI's help
// (help(): "a (...), b (...) or c (...)") and the other commands that take the same option read
// these declarations.
#pragma once
#include <string>
#include <vector>

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

namespace choices {
// ModelConfig
extern const Choices kInit, kAbsPos, kAttnTemp;
// PEConfig
extern const Choices kDeltaInit, kRopeScaling, kFreqs, kDeltaBound;
// OptimConfig, InputConfig
extern const Choices kWeightDecayOn, kPad, kPadAttention;
// TrainConfig
extern const Choices kDevice, kGpuMatmul, kGpuAttention, kSampling, kLoss;
}  // namespace choices

}  // namespace popebench
