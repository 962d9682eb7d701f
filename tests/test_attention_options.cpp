// Two options of the Indirect Indexing screen that live in the attention op itself
// (results/indirect_indexing/screen/PLAN.md): masked left pads (--pad-attention masked) and a
// learned per-head temperature (--attn-temp learned). The op's backward by finite differences,
// then the model: masked left padding is right padding for a relative PE, and a learned
// temperature starts as the fixed one and gets its gradient. The GPU twins are in
// test_cuda_attention.cpp and test_cuda_model.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

#include "generators/task.hpp"
#include "kernels/cpu/attention.hpp"
#include "model/batch.hpp"
#include "config/config.hpp"
#include "model/transformer.hpp"
#include "tests/gradcheck.hpp"
#include "tests/test_configs.hpp"

using namespace popebench;
using namespace popebench::test;

TEST_CASE("attention with masked keys and learned temperatures: backward matches finite differences", "[grad][screen]") {
  for (bool alibi : {false, true})
    for (int Tn : {1, 6, 9}) {
      cpu::AttentionShape s{3, 2, Tn, 6, 4};
      const size_t nq = size_t(s.B) * s.H * s.T * s.Dqk, nv = size_t(s.B) * s.H * s.T * s.Dv;
      auto q = randn(nq, 21), k = randn(nq, 22), v = randn(nv, 23), R = randn(nv, 24);
      std::vector<double> g = {0.4, -0.7};  // (H) log-temperatures
      // Row 0 unmasked, row 1 two pads, row 2 all but its last position pads (key_start T-1).
      std::vector<int32_t> ks = {0, std::min(2, Tn - 1), Tn - 1};
      std::vector<double> slopes = {0.5, 0.25};
      std::vector<double> o(nv), P(size_t(s.B) * s.H * s.T * s.T), dq(nq), dk(nq), dv(nv), dg(2, 0.0);
      const double scale = 0.37;
      auto f = [&] {
        cpu::attention_fwd(q.data(), k.data(), v.data(), o.data(), P.data(), s, scale, alibi ? slopes.data() : nullptr,
                           ks.data(), g.data());
        return dot(o, R);
      };
      f();
      cpu::attention_bwd(R.data(), q.data(), k.data(), v.data(), P.data(), dq.data(), dk.data(), dv.data(), s, scale,
                         g.data(), dg.data());
      INFO("T=" << Tn << " alibi=" << alibi);
      CHECK(gradcheck(f, q, dq) < 1e-6);
      CHECK(gradcheck(f, k, dk) < 1e-6);
      CHECK(gradcheck(f, v, dv) < 1e-6);
      CHECK(gradcheck(f, g, dg) < 1e-6);
      // Every query row's probabilities sum to 1 and vanish outside its keys.
      for (int b = 0; b < s.B; ++b)
        for (int h = 0; h < s.H; ++h)
          for (int t = 0; t < Tn; ++t) {
            const double* row = P.data() + ((size_t(b) * s.H + h) * Tn + t) * Tn;
            const int lo = t < ks[b] ? t : ks[b];
            double sum = 0;
            for (int j = 0; j < Tn; ++j) {
              if (j < lo || j > t) REQUIRE(row[j] == 0.0);
              sum += row[j];
            }
            REQUIRE(sum == Approx(1.0).epsilon(1e-12));
          }
    }
}

TEST_CASE("attention: a masked key changes nothing a real query reads, and temperature 0 is the fixed scale", "[screen]") {
  cpu::AttentionShape s{1, 2, 7, 4, 4};
  const size_t n = size_t(s.B) * s.H * s.T * s.Dqk;
  auto q = randn(n, 31), k = randn(n, 32), v = randn(n, 33);
  std::vector<int32_t> ks = {3};
  std::vector<double> o1(n), o2(n), P(size_t(s.H) * s.T * s.T), zero(2, 0.0), o3(n);
  cpu::attention_fwd(q.data(), k.data(), v.data(), o1.data(), P.data(), s, 0.5, nullptr, ks.data());
  for (int h = 0; h < s.H; ++h)  // a pad's key and value, changed wholesale
    for (int c = 0; c < s.Dqk; ++c) k[(size_t(h) * s.T + 1) * s.Dqk + c] += 5.0, v[(size_t(h) * s.T + 1) * s.Dv + c] -= 3.0;
  cpu::attention_fwd(q.data(), k.data(), v.data(), o2.data(), P.data(), s, 0.5, nullptr, ks.data());
  for (int h = 0; h < s.H; ++h)
    for (int t = 3; t < s.T; ++t)
      for (int c = 0; c < s.Dv; ++c) REQUIRE(o1[(size_t(h) * s.T + t) * s.Dv + c] == o2[(size_t(h) * s.T + t) * s.Dv + c]);
  // A pad query (t < key_start) attends to itself alone: its output is its own value.
  for (int c = 0; c < s.Dv; ++c) CHECK(o2[1 * s.Dv + c] == v[1 * s.Dv + c]);
  cpu::attention_fwd(q.data(), k.data(), v.data(), o3.data(), P.data(), s, 0.5, nullptr, ks.data(), zero.data());
  CHECK(o3 == o2);
}

namespace {
// gradcheck on one view's entries of the parameters only (a whole model's costs two forwards per parameter).
double view_gradcheck(const std::function<double()>& f, std::vector<double>& p, const std::vector<double>& g,
                      const ParamView& v) {
  std::vector<double> x(p.begin() + v.offset, p.begin() + v.offset + v.size()), gv(g.begin() + v.offset, g.begin() + v.offset + v.size());
  auto fx = [&] {
    std::copy(x.begin(), x.end(), p.begin() + v.offset);
    return f();
  };
  const double err = gradcheck(fx, x, gv);
  std::copy(x.begin(), x.end(), p.begin() + v.offset);
  return err;
}
RunConfig tiny(const std::string& pe) {
  RunConfig c = small_run_config(pe, {5, 9, 3, 12}, /*d_model=*/16, /*n_head=*/2, /*n_train=*/64);
  c.model.init_std = 0.3;
  return c;
}
}  // namespace

TEST_CASE("pad-attention masked: left padding computes what right padding does, for a relative PE", "[screen][model]") {
  for (const std::string pe : {"rope", "pope", "alibi", "none"}) {
    RunConfig c = tiny(pe);
    Transformer<double> m(c.model, c.pe);
    std::vector<double> p(m.layout().total);
    m.init_params(p.data(), 3);
    Dataset d = generate_split(c.task, 1, Split::kTrain);
    const std::vector<size_t> idx = {0, 1, 2, 3, 4, 5};
    const int T = c.task.width();
    InputConfig right, left_visible, left_masked;
    left_visible.pad = left_masked.pad = PadSide::kLeft;
    left_masked.pad_attention = PadAttention::kMasked;
    left_masked.validate();
    Batch br = make_batch(d, idx, T, right), bv = make_batch(d, idx, T, left_visible), bm = make_batch(d, idx, T, left_masked);
    REQUIRE(bm.key_start.size() == idx.size());
    for (size_t r = 0; r < idx.size(); ++r) CHECK(bm.key_start[r] == T - d.input_length(idx[r]));
    CHECK(br.key_start.empty());
    const double lr = m.forward(p.data(), br);
    const std::vector<double> logits_r = m.logits();
    const double lm = m.forward(p.data(), bm);
    const std::vector<double> logits_m = m.logits();
    const double lv = m.forward(p.data(), bv);
    INFO(pe);
    CHECK(lm == Approx(lr).epsilon(1e-12));
    for (size_t i = 0; i < logits_r.size(); ++i) REQUIRE(logits_m[i] == Approx(logits_r[i]).margin(1e-11));
    // Visible pads are read: the loss moves.
    CHECK(std::abs(lv - lr) > 1e-6);
    // The gradient of the masked model matches finite differences (pads masked in the backward
    // too): every parameter for PoPE, the attention's inputs' producers (w_qkv) for the rest.
    std::vector<double> g(p.size(), 0.0);
    m.forward(p.data(), bm);
    m.backward(p.data(), g.data());
    auto f = [&] { return m.forward(p.data(), bm); };
    if (pe == "pope")
      CHECK(gradcheck(f, p, g) < 1e-6);
    else
      CHECK(view_gradcheck(f, p, g, m.layout().find("layer0.w_qkv")) < 1e-6);
  }
  InputConfig bad;
  bad.pad_attention = PadAttention::kMasked;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("needs --pad left"));
  CHECK_THROWS_WITH(choices::kPadAttention.parse("hidden"), Catch::Contains("unknown pad attention 'hidden'"));
}

TEST_CASE("attn-temp learned: one log-temperature per layer and head, zero at init, with its gradient", "[screen][model]") {
  for (const std::string pe : {"pope", "rope"}) {
    RunConfig c = tiny(pe), t = c;
    t.model.attn_temp = AttnTemp::kLearned;
    t.model.validate();
    Transformer<double> mc(c.model, c.pe), mt(t.model, t.pe);
    const auto& lt = mt.layout();
    CHECK(lt.n_params == mc.layout().n_params + size_t(c.model.n_layer) * c.model.n_head);
    REQUIRE(lt.has_attn_temp);
    OptimConfig all2d;
    all2d.weight_decay_on = WeightDecayOn::kAll2d;
    const ParamView& v0 = lt.find("layer0.attn_temp");
    CHECK(v0.size() == size_t(c.model.n_head));
    CHECK_FALSE(v0.decays(OptimConfig{}));
    CHECK_FALSE(v0.decays(all2d));
    CHECK(v0.lr_mult(OptimConfig{}) == 1.0);
    std::vector<double> pt(lt.total), pc(mc.layout().total);
    mt.init_params(pt.data(), 4);
    mc.init_params(pc.data(), 4);  // the temperatures draw nothing: every other view is the same
    for (const auto& v : lt.views)
      if (v.kind == ParamKind::kAttnTemp)
        CHECK(std::all_of(pt.begin() + v.offset, pt.begin() + v.offset + v.size(), [](double x) { return x == 0.0; }));
      else
        CHECK(std::equal(pt.begin() + v.offset, pt.begin() + v.offset + v.size(),
                         pc.begin() + mc.layout().find(v.name).offset));
    Dataset d = generate_split(c.task, 1, Split::kTrain);
    Batch b = make_batch(d, {0, 1, 2, 3});
    INFO(pe);
    CHECK(mt.forward(pt.data(), b) == Approx(mc.forward(pc.data(), b)).epsilon(1e-13));
    // Other temperatures move the loss, and the whole gradient, the temperatures' included,
    // matches finite differences.
    Pcg32 rng(9, 9);
    for (const auto& v : lt.views)
      if (v.kind == ParamKind::kAttnTemp)
        for (size_t i = v.offset; i < v.offset + v.size(); ++i) pt[i] = 0.5 * rng.normal();
    std::vector<double> g(pt.size(), 0.0);
    const double loss = mt.forward(pt.data(), b);
    mt.backward(pt.data(), g.data());
    CHECK(std::abs(loss - mc.forward(pc.data(), b)) > 1e-6);
    CHECK(std::abs(g[v0.offset]) > 1e-8);
    auto f = [&] { return mt.forward(pt.data(), b); };
    if (pe == "pope")
      CHECK(gradcheck(f, pt, g) < 1e-6);
    for (const auto& v : lt.views)
      if (v.kind == ParamKind::kAttnTemp) CHECK(view_gradcheck(f, pt, g, v) < 1e-6);
  }
  ModelConfig bad;
  CHECK_THROWS_WITH(choices::kAttnTemp.parse("per-layer"), Catch::Contains("unknown attention temperature 'per-layer'"));
}

TEST_CASE("the two options round-trip through the run JSON, and old JSON gets their defaults", "[screen][config]") {
  RunConfig c = tiny("pope");
  c.model.attn_temp = AttnTemp::kLearned;
  c.input.pad = PadSide::kLeft;
  c.input.pad_attention = PadAttention::kMasked;
  nlohmann::json j = c;
  RunConfig back = j.get<RunConfig>();
  CHECK(back.model.attn_temp == AttnTemp::kLearned);
  CHECK(back.input.pad_attention == PadAttention::kMasked);
  j["model"].erase("attn_temp");
  j["input"].erase("pad_attention");
  back = j.get<RunConfig>();
  CHECK(back.model.attn_temp == AttnTemp::kFixed);
  CHECK(back.input.pad_attention == PadAttention::kVisible);
}
