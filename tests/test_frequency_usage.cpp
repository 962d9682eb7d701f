// The frequency-usage analysis (report/frequency_usage.hpp): which channels carry which frequency
// for every PE, magnitudes averaged over the real tokens only, PoPE's delta per frequency, and
// the section in inspect's JSON.
#include <catch2/catch.hpp>

#include <cmath>

#include "generators/task.hpp"
#include "generators/vocab.hpp"
#include "kernels/cpu/pope.hpp"
#include "report/frequency_usage.hpp"
#include "report/inspect.hpp"
#include "model/pe/pe_pope.hpp"
#include "model/pe/pe_rope.hpp"
#include "model/pe/pe_registry.hpp"
#include "tests/test_configs.hpp"

using namespace popebench;

TEST_CASE("every rotary PE names the channels that carry each of its frequencies", "[frequency_usage]") {
  ModelConfig m;
  m.d_model = 64;
  m.n_head = 4;  // head dim 16
  auto channels = [&](const std::string& kind) {
    PEConfig pe;
    pe.kind = kind;
    return Transformer<float>(m, pe).frequency_channels();
  };
  const auto rope = channels("rope"), half = channels("rope-half"), inter = channels("rope-interleaved"),
             pope = channels("pope");
  const auto th16 = rope_thetas(16, 10000.0), th8 = rope_thetas(8, 10000.0), pth = pope_thetas(16, 10000.0);
  REQUIRE(rope.size() == 8);
  REQUIRE(half.size() == 4);
  REQUIRE(inter.size() == 8);
  REQUIRE(pope.size() == 16);
  for (int c = 0; c < 8; ++c) {
    CHECK(rope[c].theta == th16[c]);
    CHECK((rope[c].a == c && rope[c].b == c + 8));  // half-split pairing
    CHECK(inter[c].theta == th16[c]);
    CHECK((inter[c].a == 2 * c && inter[c].b == 2 * c + 1));
  }
  for (int c = 0; c < 4; ++c) CHECK((half[c].theta == th8[c] && half[c].a == c && half[c].b == c + 4));
  for (int c = 0; c < 16; ++c) CHECK((pope[c].theta == pth[c] && pope[c].a == c && pope[c].b < 0));
  for (std::string kind : {"none", "alibi", "learned", "sinusoidal"}) {
    INFO(kind);
    CHECK(channels(kind).empty());
    CHECK(FrequencyUsage(2, 4, channels(kind)).json().is_null());
  }
}

TEST_CASE("frequency usage is the mean magnitude over the real tokens of a batch", "[frequency_usage]") {
  for (std::string kind : {"rope", "pope"}) {
    INFO(kind);
    RunConfig c = test::small_run_config(kind, {5, 9, 3, 12}, 16, 2, 64);
    c.model.init_std = 0.3;
    c.task.n_test = 40;
    Transformer<float> model(c.model, c.pe);
    std::vector<float> p(model.layout().total);
    model.init_params(p.data(), 5);
    Dataset d = generate_split(c.task, 0, Split::kTest);
    std::vector<size_t> idx;
    for (size_t i = 0; i < d.size(); ++i) idx.push_back(i);
    Batch b = make_batch(d, idx, c.input_len(), c.input);  // right-padded to the longest input
    model.forward(p.data(), b);
    FrequencyUsage usage(c.model.n_layer, c.model.n_head, model.frequency_channels());
    usage.add(model, b);
    nlohmann::json j = usage.json();
    // Pads left out: one position per input token of each example.
    size_t real = 0;
    for (size_t i = 0; i < d.size(); ++i) real += d.input_length(i);
    CHECK(j["positions"].get<size_t>() == real);
    // Layer 1, head 1, each frequency: the magnitude recomputed here from the (B, H, T, D) queries
    // and keys, one example at a time.
    const int D = c.model.head_dim(), H = c.model.n_head, F = int(model.frequency_channels().size());
    REQUIRE(j["layers"].size() == size_t(c.model.n_layer));
    REQUIRE(j["layers"][1]["q"][1].size() == size_t(F));
    for (int f = 0; f < F; ++f) {
      double sq = 0, sk = 0;
      for (int r = 0; r < b.B; ++r)
        for (int t = 0; t < d.input_length(idx[r]); ++t) {
          const float* q = model.queries(1).data() + ((size_t(r) * H + 1) * b.T + t) * D;
          const float* k = model.keys(1).data() + ((size_t(r) * H + 1) * b.T + t) * D;
          if (kind == "pope") {
            sq += std::log1p(std::exp(double(q[f])));
            sk += std::log1p(std::exp(double(k[f])));
          } else {
            sq += std::sqrt(double(q[f]) * q[f] + double(q[f + F]) * q[f + F]);
            sk += std::sqrt(double(k[f]) * k[f] + double(k[f + F]) * k[f + F]);
          }
        }
      INFO("frequency " << f);
      CHECK(j["layers"][1]["q"][1][f].get<double>() == Approx(sq / real).epsilon(1e-9));
      CHECK(j["layers"][1]["k"][1][f].get<double>() == Approx(sk / real).epsilon(1e-9));
    }
  }
}

TEST_CASE("inspect reports frequency usage, and PoPE's delta per frequency as the forward sees it", "[frequency_usage][inspect]") {
  RunConfig c = test::small_run_config("pope", {5, 9, 3, 12}, 16, 2, 64);
  c.task.n_test = 30;
  Transformer<float> model(c.model, c.pe);
  std::vector<float> p(model.layout().total);
  model.init_params(p.data(), 2);
  p[model.layout().layers[1].pe + 3] = 1.5f;  // outside [-2 pi, 0]: clamped to 0
  InspectOptions o;
  o.show = 0;
  nlohmann::json r = inspect_model(c, p, generate_split(c.task, 0, Split::kTest), o);
  const auto& fu = r["frequency_usage"];
  REQUIRE(fu.is_object());
  const int H = c.model.n_head, D = c.model.head_dim();
  CHECK(fu["theta"].size() == size_t(D));
  REQUIRE(fu["layers"][1]["delta"].size() == size_t(H));
  CHECK(fu["layers"][1]["delta"][0][3].get<double>() == 0.0);
  CHECK(fu["layers"][1]["delta"][0][2].get<double>() == Approx(cpu::clamp_delta(double(p[model.layout().layers[1].pe + 2]))));
  c.pe.kind = "alibi";
  Transformer<float> alibi(c.model, c.pe);
  std::vector<float> pa(alibi.layout().total);
  alibi.init_params(pa.data(), 2);
  CHECK(inspect_model(c, pa, generate_split(c.task, 0, Split::kTest), o)["frequency_usage"].is_null());
}
