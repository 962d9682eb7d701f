// The word options' declarations (config/choices.hpp): the error names the value and every known
// word, the help lists the words with what each does, every option's field takes each declared
// word and refuses any other, and each enumerator names its word.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/config.hpp"
#include "config/option_table.hpp"

using namespace popebench;

TEST_CASE("a word option's declaration gives its check, its error and its help", "[config]") {
  const Choices c{"colour", {{"red", ""}, {"green", "the default"}, {"blue", "cold"}}};
  CHECK(c.has("green"));
  CHECK_FALSE(c.has("Green"));
  CHECK(c.known() == "red, green, blue");
  CHECK(c.help() == "red, green (the default) or blue (cold)");
  CHECK_NOTHROW(c.require("blue"));
  CHECK_THROWS_WITH(c.require("pink"), "unknown colour 'pink' (known: red, green, blue)");
  CHECK(Choices{"one", {{"only", ""}}}.help() == "only");
}

namespace {
// Each word option of a section: every declared word reads into its enum and back, any other is
// refused with the declaration's error.
template <class S>
void check_words(const std::vector<OptionDecl<S>>& decls) {
  for (const auto& d : decls) {
    const auto* f = std::get_if<WordField<S>>(&d.field);
    if (!f) continue;
    INFO(d.key);
    for (const std::string& v : f->words->names()) {
      S s{};
      f->set(s, v);
      CHECK(f->get(s) == v);
    }
    S s{};
    CHECK_THROWS_WITH(f->set(s, "no-such-word"),
                      "unknown " + std::string(f->words->what) + " 'no-such-word' (known: " + f->words->known() + ")");
  }
}
}  // namespace

TEST_CASE("every declared word of a run's options reads into its field, and no other", "[config]") {
  check_words(model_options());
  check_words(pe_options());
  check_words(optim_options());
  check_words(input_options());
  check_words(train_options());
  // A config's JSON with an unknown word is refused as it is read.
  nlohmann::json j = RunConfig{};
  j["input"]["pad"] = "middle";
  CHECK_THROWS_WITH(j.get<RunConfig>(), Catch::Contains("unknown padding side 'middle'"));
}

// Each enumerator's word: the enums' order is the declarations' (config/choices.hpp).
TEST_CASE("each option enum names its word", "[config]") {
  CHECK(word(ModelInit::kGpt2) == "gpt2");
  CHECK(word(ModelInit::kScaledEmbedding) == "scaled-embedding");
  CHECK(word(AbsPos::kNone) == "none");
  CHECK(word(AbsPos::kLearned) == "learned");
  CHECK(word(AttnTemp::kFixed) == "fixed");
  CHECK(word(AttnTemp::kLearned) == "learned");
  CHECK(word(DeltaInit::kUniform) == "uniform");
  CHECK(word(DeltaInit::kZero) == "zero");
  CHECK(word(DeltaInit::kUniformPositive) == "uniform-positive");
  CHECK(word(RopeScaling::kNone) == "none");
  CHECK(word(RopeScaling::kPi) == "pi");
  CHECK(word(RopeScaling::kNtk) == "ntk");
  CHECK(word(RopeScaling::kYarn) == "yarn");
  CHECK(word(FreqOrder::kDecreasing) == "decreasing");
  CHECK(word(FreqOrder::kIncreasing) == "increasing");
  CHECK(word(DeltaBound::kClamp) == "clamp");
  CHECK(word(DeltaBound::kProject) == "project");
  CHECK(word(WeightDecayOn::kMatrices) == "matrices");
  CHECK(word(WeightDecayOn::kAll2d) == "all-2d");
  CHECK(word(PadSide::kRight) == "right");
  CHECK(word(PadSide::kLeft) == "left");
  CHECK(word(PadAttention::kVisible) == "visible");
  CHECK(word(PadAttention::kMasked) == "masked");
  CHECK(word(DeviceChoice::kAuto) == "auto");
  CHECK(word(DeviceChoice::kCpu) == "cpu");
  CHECK(word(DeviceChoice::kCuda) == "cuda");
  CHECK(word(GpuMatmul::kBf16) == "bf16");
  CHECK(word(GpuMatmul::kTf32) == "tf32");
  CHECK(word(GpuMatmul::kFp32) == "fp32");
  CHECK(word(GpuAttention::kFp32) == "fp32");
  CHECK(word(GpuAttention::kTf32) == "tf32");
  CHECK(word(GpuAttention::kBf16) == "bf16");
  CHECK(word(BatchSampling::kReplacement) == "replacement");
  CHECK(word(BatchSampling::kEpochs) == "epochs");
  CHECK(word(TrainLoss::kAnswer) == "answer");
  CHECK(word(TrainLoss::kAll) == "all");
  // Each declaration has as many words as its enum has enumerators (the last one's index + 1).
  CHECK(choices::kInit.values.size() == 2);
  CHECK(choices::kDeltaInit.values.size() == 3);
  CHECK(choices::kRopeScaling.values.size() == 4);
  CHECK(choices::kDevice.values.size() == 3);
  CHECK(choices::kGpuMatmul.values.size() == 3);
  CHECK(choices::kGpuAttention.values.size() == 3);
  // A value outside the declaration (a cast) is refused by name(), never read past its words.
  CHECK_THROWS(word(static_cast<TrainLoss>(7)));
}
