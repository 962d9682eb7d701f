// The word options' declarations (config/choices.hpp): the error names the value and every known
// word, the help lists the words with what each does, and every config's validation takes each
// declared word of its options and refuses any other.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/config.hpp"

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

TEST_CASE("every declared word of a run's options validates, and no other", "[config]") {
  // Each option with its declaration and a setter of its field (pad attention, RoPE scaling and
  // the frequency order have conditions of their own, tested with those options).
  struct Field {
    const Choices* choices;
    std::function<void(RunConfig&, const std::string&)> set;
  };
  const std::vector<Field> fields = {
      {&choices::kInit, [](RunConfig& c, const std::string& v) { c.model.init = v; }},
      {&choices::kAbsPos, [](RunConfig& c, const std::string& v) { c.model.abs_pos = v; }},
      {&choices::kAttnTemp, [](RunConfig& c, const std::string& v) { c.model.attn_temp = v; }},
      {&choices::kWeightDecayOn, [](RunConfig& c, const std::string& v) { c.optim.weight_decay_on = v; }},
      {&choices::kPad, [](RunConfig& c, const std::string& v) { c.input.pad = v; }},
      {&choices::kDevice, [](RunConfig& c, const std::string& v) { c.train.device = v; }},
      {&choices::kGpuMatmul, [](RunConfig& c, const std::string& v) { c.train.gpu_matmul = v; }},
      {&choices::kGpuAttention, [](RunConfig& c, const std::string& v) { c.train.gpu_attention = v; }},
      {&choices::kSampling, [](RunConfig& c, const std::string& v) { c.train.sampling = v; }},
      {&choices::kLoss, [](RunConfig& c, const std::string& v) { c.train.loss = v; }},
      {&choices::kDeltaInit, [](RunConfig& c, const std::string& v) { c.pe.delta_init = v; }},
      {&choices::kDeltaBound, [](RunConfig& c, const std::string& v) { c.pe.delta_bound = v; }},
  };
  for (const Field& f : fields) {
    for (const std::string& v : f.choices->names()) {
      RunConfig c;
      c.pe.kind = "pope";  // delta's options apply to PoPE
      c.size_model_for_task();
      f.set(c, v);
      INFO(f.choices->what << " " << v);
      CHECK_NOTHROW(c.validate());
    }
    RunConfig c;
    c.pe.kind = "pope";
    c.size_model_for_task();
    f.set(c, "no-such-word");
    CHECK_THROWS_WITH(c.validate(), Catch::Contains("unknown " + std::string(f.choices->what) + " 'no-such-word'"));
  }
}
