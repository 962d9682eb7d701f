// The whole model's gradient against finite differences, in double, for each PE, on a tiny
// config and a padded batch of real examples of different lengths.
#include <catch2/catch.hpp>

#include <set>

#include "model/pe/pe_registry.hpp"
#include "model/transformer.hpp"
#include "tests/gradcheck.hpp"

using namespace popebench;
using namespace popebench::test;

namespace {
TaskConfig tiny_task() {
  TaskConfig t;
  t.as<IndirectIndexingConfig>().min_len = 5;
  t.as<IndirectIndexingConfig>().max_len = 9;
  t.as<IndirectIndexingConfig>().max_shift = 3;
  t.as<IndirectIndexingConfig>().alphabet = 12;
  t.n_train = 64;
  return t;
}
ModelConfig tiny_model(const TaskConfig& t) {
  ModelConfig m;
  m.n_layer = 2;
  m.d_model = 16;
  m.n_head = 2;
  m.vocab_size = t.vocab_size();
  m.max_len = t.width();
  m.init_std = 0.3;  // larger than GPT-2's so every path carries a visible gradient
  return m;
}
// model on b from its seed-3 init: its backward's gradient (into g, the parameters into p)
// against finite differences; returns gradcheck's worst relative error.
double model_gradcheck(Transformer<double>& model, const Batch& b, std::vector<double>& p, std::vector<double>& g) {
  p.assign(model.layout().total, 0.0);
  g.assign(p.size(), 0.0);
  model.init_params(p.data(), 3);
  model.forward(p.data(), b);
  model.backward(p.data(), g.data());
  auto f = [&] { return model.forward(p.data(), b); };
  return gradcheck(f, p, g);
}
}  // namespace

TEST_CASE("whole-model gradient matches finite differences for every PE", "[grad][model]") {
  TaskConfig task = tiny_task();
  Dataset d = generate_split(task, 1, Split::kTrain);
  Batch b = make_batch(d, {0, 1, 2, 5});
  std::set<int> lens;
  for (int i : {0, 1, 2, 5}) lens.insert(d.input_length(i));
  REQUIRE(lens.size() > 1);  // the batch really is padded
  REQUIRE(pe_kinds().size() >= 8);  // the registry found the paper's eight PEs at least (model/pe/pe_*.cpp)
  for (const PEKindInfo& kind : pe_kinds()) {  // every registered PE, a new one included
    const std::string& pe = kind.name;
    PEConfig pc;
    pc.kind = pe;
    Transformer<double> model(tiny_model(task), pc);
    std::vector<double> p, g;
    INFO("pe=" << pe);
    CHECK(model_gradcheck(model, b, p, g) < 1e-6);
    if (pe == "pope") {
      const auto& v = model.layout().find("layer1.pe");
      double n = 0;
      for (size_t i = 0; i < v.size(); ++i) n += std::abs(g[v.offset + i]);
      CHECK(n > 1e-6);  // the gradient reaches delta
    }
    if (pe == "learned") {
      const auto& v = model.layout().find("pos_emb");
      REQUIRE(v.rows == task.width());
      double n = 0;
      for (size_t i = 0; i < v.size(); ++i) n += std::abs(g[v.offset + i]);
      CHECK(n > 1e-6);  // the gradient reaches the position table
    }
  }
}

TEST_CASE("whole-model gradient matches finite differences with RoPE's scalings (fine-tuning with YaRN)", "[grad][model]") {
  // --rope-scaling in training: other frequencies, and YaRN's factor on every score.
  TaskConfig task = tiny_task();
  Dataset d = generate_split(task, 1, Split::kTrain);
  Batch b = make_batch(d, {0, 1, 2, 5});
  for (std::string scaling : {"pi", "ntk", "yarn"}) {
    PEConfig pc;
    pc.kind = "rope";
    pc.rope_scaling = choices::kRopeScaling.parse(scaling);
    pc.rope_factor = 3;
    pc.rope_train_len = 4;  // YaRN's ramp then falls inside the tiny head's frequencies
    Transformer<double> model(tiny_model(task), pc);
    std::vector<double> p, g;
    INFO("scaling=" << scaling);
    CHECK(model_gradcheck(model, b, p, g) < 1e-6);
  }
}

TEST_CASE("padding after the answer changes nothing", "[model]") {
  TaskConfig task = tiny_task();
  Dataset d = generate_split(task, 2, Split::kTrain);
  for (std::string pe : {"rope", "pope"}) {
    PEConfig pc;
    pc.kind = pe;
    Transformer<double> model(tiny_model(task), pc);
    std::vector<double> p(model.layout().total), g1(p.size(), 0.0), g2(p.size(), 0.0);
    model.init_params(p.data(), 4);
    // One example alone (no padding) vs in a batch padded to the task's full width: same loss
    // (x batch size, since the loss is a mean) and same logits.
    Batch alone = make_batch(d, {7});
    Batch padded = make_batch(d, {7}, task.width());
    REQUIRE(padded.T > alone.T);
    double l1 = model.forward(p.data(), alone);
    auto lg1 = model.logits();
    model.backward(p.data(), g1.data());
    double l2 = model.forward(p.data(), padded);
    model.backward(p.data(), g2.data());
    CHECK(l2 == Approx(l1).epsilon(1e-12));
    for (size_t i = 0; i < lg1.size(); ++i) CHECK(model.logits()[i] == Approx(lg1[i]).epsilon(1e-12));
    double diff = 0;
    for (size_t i = 0; i < g1.size(); ++i) diff = std::max(diff, std::abs(g1[i] - g2[i]));
    CHECK(diff < 1e-12);
  }
}

TEST_CASE("parameter layout of the paper model has 25.2M parameters", "[model]") {
  ModelConfig m;
  PEConfig rope;
  rope.kind = "rope";
  Transformer<float> r(m, rope), p(m, PEConfig{});
  // 8 layers x 12 d^2 + 2 x 66 x 512 embeddings/head + norms; PoPE adds 8 x 8 x 64 deltas.
  CHECK(r.layout().total == 8 * (12 * 512 * 512 + 2 * 512) + 2 * 66 * 512 + 512);
  CHECK(p.layout().total == r.layout().total + 8 * 8 * 64);
  CHECK(r.layout().total == Approx(25.2e6).epsilon(0.01));
  // No padding in the paper model (its checkpoints are unchanged by the alignment of views).
  CHECK(r.layout().n_params == r.layout().total);
  CHECK(p.layout().n_params == p.layout().total);
}

TEST_CASE("every parameter view starts on a kViewAlign boundary, and the padding is zero after init", "[model]") {
  ModelConfig m;
  m.n_layer = 3;
  m.d_model = 12;  // views of 12, 36 x 12, ...: not multiples of 64
  m.n_head = 2;
  m.attn_temp = AttnTemp::kLearned;  // 2-long views between the layers' matrices
  m.bias = true;
  PEConfig pe;  // PoPE: its delta views too
  m.validate();
  Transformer<double> t(m, pe);
  const ParamLayout& L = t.layout();
  size_t covered = 0;
  std::vector<char> in_view(L.total, 0);
  for (const auto& v : L.views) {
    INFO(v.name);
    CHECK(v.offset % kViewAlign == 0);
    covered += v.size();
    for (size_t i = v.offset; i < v.offset + v.size(); ++i) in_view[i] = 1;
  }
  CHECK(covered == L.n_params);
  CHECK(L.total > L.n_params);  // this model has padding
  std::vector<double> p(L.total, 0.0);
  t.init_params(p.data(), 7);
  for (size_t i = 0; i < L.total; ++i)
    if (!in_view[i]) REQUIRE(p[i] == 0.0);
}
