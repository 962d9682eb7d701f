// More options of the Indirect Indexing screen (results/indirect_indexing/screen/PLAN.md), each
// checked for doing what its help says: tied embeddings, the scaled-embedding init, a learned
// absolute position embedding on top of the PE, PoPE's delta projected instead of clamped,
// gradient accumulation over micro-batches and shuffled epochs. The GPU twins are in
// test_cuda_model.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "generators/task.hpp"
#include "generators/vocab.hpp"
#include "kernels/cpu/pope.hpp"
#include "backend/backend.hpp"
#include "model/batch.hpp"
#include "train/batch_sampler.hpp"
#include "model/transformer.hpp"
#include "tests/gradcheck.hpp"
#include "tests/test_configs.hpp"

using namespace popebench;
using namespace popebench::test;

namespace {
RunConfig tiny_run(const std::string& pe) {
  RunConfig c = small_run_config(pe, {5, 9, 3, 12}, /*d_model=*/16, /*n_head=*/2, /*n_train=*/64);
  c.model.init_std = 0.3;
  return c;
}
struct Grad {
  double loss;
  std::vector<double> g;
};
Grad loss_grad(Transformer<double>& m, std::vector<double>& p, const Batch& b) {
  Grad r{m.forward(p.data(), b), std::vector<double>(p.size(), 0.0)};
  m.backward(p.data(), r.g.data());
  return r;
}
// The parameters of `from` copied view by view (by name) into a model of layout `to`.
std::vector<double> copy_by_name(const ParamLayout& from, const std::vector<double>& p, const ParamLayout& to) {
  std::vector<double> q(to.total, 0.0);
  for (const auto& v : to.views)
    for (const auto& u : from.views)
      if (u.name == v.name) std::copy(p.begin() + u.offset, p.begin() + u.offset + u.size(), q.begin() + v.offset);
  return q;
}
}  // namespace

TEST_CASE("tie-embeddings: the head is the token embedding and gets both gradients", "[screen][model]") {
  RunConfig untied = tiny_run("pope"), tied = untied;
  tied.model.tied_embeddings = true;
  Transformer<double> mu(untied.model, untied.pe), mt(tied.model, tied.pe);
  const auto &lu = mu.layout(), &lt = mt.layout();
  const size_t VC = size_t(untied.model.vocab_size) * untied.model.d_model;
  CHECK(lt.n_params == lu.n_params - VC);
  CHECK(lt.w_head == lt.wte);
  CHECK_THROWS(lt.find("w_head"));
  // Tied, the one matrix is a matrix for the decay rule (the head decays under "matrices").
  CHECK(lt.find("wte").decays(tied.optim));
  CHECK_FALSE(lu.find("wte").decays(untied.optim));
  Dataset d = generate_split(untied.task, 1, Split::kTrain);
  Batch b = make_batch(d, {0, 1, 2, 5, 7});
  std::vector<double> pt(lt.total);
  mt.init_params(pt.data(), 3);
  // The untied model with its head set to the same matrix computes the same loss, and the tied
  // gradient is the sum of the untied model's embedding and head gradients.
  std::vector<double> pu = copy_by_name(lt, pt, lu);
  std::copy(pu.begin() + lu.wte, pu.begin() + lu.wte + VC, pu.begin() + lu.w_head);
  Grad gt = loss_grad(mt, pt, b), gu = loss_grad(mu, pu, b);
  CHECK(gt.loss == Approx(gu.loss).epsilon(1e-12));
  for (size_t i = 0; i < VC; ++i) {
    INFO("wte[" << i << "]");
    REQUIRE(gt.g[lt.wte + i] == Approx(gu.g[lu.wte + i] + gu.g[lu.w_head + i]).margin(1e-12));
  }
  CHECK(gradcheck([&] { return mt.forward(pt.data(), b); }, pt, gt.g) < 1e-6);
}

TEST_CASE("init scaled-embedding: Kaiming-normal table, times sqrt(d_model) in the forward pass", "[screen][model]") {
  RunConfig c = small_run_config("rope", {5, 9, 3, 200}, /*d_model=*/32, /*n_head=*/2, /*n_train=*/64), s = c;
  s.model.init = ModelInit::kScaledEmbedding;
  Transformer<double> mc(c.model, c.pe), ms(s.model, s.pe);
  REQUIRE(ms.layout().total == mc.layout().total);  // the head stays untied
  std::vector<double> ps(ms.layout().total);
  ms.init_params(ps.data(), 4);
  // The table's sample std against sqrt(2 / C) = 0.25: V C = 6,528 draws, so a relative standard
  // error of 1/sqrt(2 * 6528) = 0.9 %; 5 % is over five of them.
  const auto& wte = ms.layout().find("wte");
  double ss = 0;
  for (size_t i = wte.offset; i < wte.offset + wte.size(); ++i) ss += ps[i] * ps[i];
  CHECK(std::sqrt(ss / wte.size()) == Approx(std::sqrt(2.0 / 32)).epsilon(0.05));
  // Everything else is gpt2's init, draw for draw after the table.
  std::vector<double> pc(mc.layout().total);
  mc.init_params(pc.data(), 4);
  const auto& qkv = ms.layout().find("layer1.w_qkv");
  CHECK(std::equal(ps.begin() + qkv.offset, ps.begin() + qkv.offset + qkv.size(), pc.begin() + qkv.offset));
  // The forward multiplies the looked-up rows by sqrt(C): the gpt2-init model with the table
  // scaled by sqrt(C) computes the same loss. Checked on a 12-symbol alphabet: the gradient check
  // differentiates every parameter, and the 200-symbol table above (needed for the std) made it
  // the slowest test of the suite for no more coverage (on two busy cores: 599-843 s before, 248 s).
  RunConfig c12 = small_run_config("rope", {5, 9, 3, 12}, /*d_model=*/32, /*n_head=*/2, /*n_train=*/64), s12 = c12;
  s12.model.init = ModelInit::kScaledEmbedding;
  Transformer<double> mc12(c12.model, c12.pe), ms12(s12.model, s12.pe);
  std::vector<double> p12(ms12.layout().total);
  ms12.init_params(p12.data(), 4);
  const auto& wte12 = ms12.layout().find("wte");
  Dataset d = generate_split(c12.task, 1, Split::kTrain);
  Batch b = make_batch(d, {0, 3, 4, 9});
  std::vector<double> scaled = p12;
  for (size_t i = wte12.offset; i < wte12.offset + wte12.size(); ++i) scaled[i] *= std::sqrt(32.0);
  Grad gs = loss_grad(ms12, p12, b);
  CHECK(gs.loss == Approx(mc12.forward(scaled.data(), b)).epsilon(1e-12));
  CHECK(gradcheck([&] { return ms12.forward(p12.data(), b); }, p12, gs.g) < 1e-6);
  RunConfig bad = s;
  bad.model.tied_embeddings = true;
  CHECK_THROWS_WITH(bad.model.validate(), Catch::Contains("untied head"));
  bad.model = s.model;
  CHECK_THROWS_WITH(choices::kInit.parse("kaiming"), Catch::Contains("unknown init"));
}

TEST_CASE("abs-pos learned: a learned position table added on top of RoPE or PoPE", "[screen][model]") {
  for (std::string pe : {"rope", "pope"}) {
    RunConfig c = tiny_run(pe), a = c;
    a.model.abs_pos = AbsPos::kLearned;
    Transformer<double> mc(c.model, c.pe), ma(a.model, a.pe);
    const auto& pos = ma.layout().find("pos_emb");
    CHECK(pos.rows == a.model.max_len);
    CHECK(pos.cols == a.model.d_model);
    CHECK(ma.layout().n_params == mc.layout().n_params + pos.size());
    Dataset d = generate_split(c.task, 1, Split::kTrain);
    Batch b = make_batch(d, {0, 1, 2, 3});
    std::vector<double> pa(ma.layout().total);
    ma.init_params(pa.data(), 5);
    std::vector<double> pc = copy_by_name(ma.layout(), pa, mc.layout());
    INFO("pe=" << pe);
    // A zero table is the model without it; a non-zero one changes the loss.
    std::vector<double> zero = pa;
    std::fill(zero.begin() + pos.offset, zero.begin() + pos.offset + pos.size(), 0.0);
    CHECK(ma.forward(zero.data(), b) == Approx(mc.forward(pc.data(), b)).epsilon(1e-13));
    Grad ga = loss_grad(ma, pa, b);
    CHECK(std::abs(ga.loss - mc.forward(pc.data(), b)) > 1e-6);
    CHECK(gradcheck([&] { return ma.forward(pa.data(), b); }, pa, ga.g) < 1e-6);
  }
  RunConfig bad = tiny_run("learned");
  bad.model.abs_pos = AbsPos::kLearned;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("is one already"));
  CHECK_THROWS_WITH(choices::kAbsPos.parse("table"), Catch::Contains("unknown absolute position"));
}

TEST_CASE("delta-bound project keeps PoPE's delta in [-2 pi, 0] after every update", "[screen][optim]") {
  // A learning rate of 1 on delta moves each entry by ~1 rad per Adam step: with the forward
  // clamp many entries leave the interval; projected, none does, and some sit on its bounds.
  auto deltas_after = [](const std::string& bound) {
    RunConfig c = tiny_run("pope");
    c.pe.delta_bound = choices::kDeltaBound.parse(bound);
    c.optim.pe_lr_mult = 100;  // lr 1e-2 x 100
    auto be = make_backend(c, DeviceChoice::kCpu);
    Dataset d = generate_split(c.task, 1, Split::kTrain);
    for (long s = 1; s <= 5; ++s) be->train_step(make_batch(d, {size_t(s), size_t(s + 7), size_t(s + 20)}), 1e-2, s);
    std::vector<float> p, m, v, out;
    be->get_state(p, m, v);
    for (const auto& view : be->layout().views)
      if (view.kind == ParamKind::kPeParam) out.insert(out.end(), p.begin() + view.offset, p.begin() + view.offset + view.size());
    return out;
  };
  const float lo = cpu::pope_delta_min_float();
  CHECK(double(lo) >= -2 * M_PI);
  CHECK(double(std::nextafter(lo, -10.f)) < -2 * M_PI);  // the float just below is outside
  auto outside = [&](float x) { return double(x) < -2 * M_PI || x > 0.f; };
  auto clamped = deltas_after("clamp"), projected = deltas_after("project");
  CHECK(std::count_if(clamped.begin(), clamped.end(), outside) > 0);
  CHECK(std::count_if(projected.begin(), projected.end(), outside) == 0);
  CHECK(std::count_if(projected.begin(), projected.end(), [&](float x) { return x == 0.f || x == lo; }) > 0);
  PEConfig bad;
  bad.kind = "rope";
  bad.delta_bound = DeltaBound::kProject;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("pope only"));
  bad.kind = "pope";
  CHECK_THROWS_WITH(choices::kDeltaBound.parse("wrap"), Catch::Contains("unknown delta bound"));
}

TEST_CASE("delta-init uniform-positive: delta drawn between 0 and 2 pi is a frozen zero phase under the clamp", "[screen][model]") {
  // The other reading of the paper's "delta init range 2 pi": drawn from [0, 2 pi) and then
  // clamped to [-2 pi, 0] in the forward pass, every delta acts as 0 and, outside the interval,
  // gets no gradient; projected after each update instead, it is moved to 0 and learns from there.
  auto trained = [](const std::string& bound, std::vector<float>* start) {
    RunConfig c = tiny_run("pope");
    c.pe.delta_init = DeltaInit::kUniformPositive;
    c.pe.delta_bound = choices::kDeltaBound.parse(bound);
    c.optim.pe_lr_mult = 100;  // lr 1e-2 x 100: a delta with a gradient moves ~1 rad a step
    auto be = make_backend(c, DeviceChoice::kCpu);
    std::vector<float> p, m, v, out;
    be->get_state(p, m, v);
    if (start)
      for (const auto& view : be->layout().views)
        if (view.kind == ParamKind::kPeParam) start->insert(start->end(), p.begin() + view.offset, p.begin() + view.offset + view.size());
    Dataset d = generate_split(c.task, 1, Split::kTrain);
    for (long s = 1; s <= 5; ++s) be->train_step(make_batch(d, {size_t(s), size_t(s + 7), size_t(s + 20)}), 1e-2, s);
    be->get_state(p, m, v);
    for (const auto& view : be->layout().views)
      if (view.kind == ParamKind::kPeParam) out.insert(out.end(), p.begin() + view.offset, p.begin() + view.offset + view.size());
    return out;
  };
  std::vector<float> start;
  std::vector<float> clamped = trained("clamp", &start), projected = trained("project", nullptr);
  REQUIRE(!start.empty());
  CHECK(std::all_of(start.begin(), start.end(), [](float x) { return x >= 0.f && double(x) < 2 * M_PI; }));
  CHECK(*std::max_element(start.begin(), start.end()) > 3.f);  // spread over the range, not all zero
  CHECK(clamped == start);  // no gradient, and delta is not decayed
  CHECK(std::all_of(projected.begin(), projected.end(), [](float x) { return x <= 0.f && double(x) >= -2 * M_PI; }));
  CHECK(std::count_if(projected.begin(), projected.end(), [](float x) { return x < -0.1f; }) > 0);  // it learns
  // The model computes with a zero phase: the same loss as the model whose delta is all zeros.
  RunConfig c = tiny_run("pope");
  c.pe.delta_init = DeltaInit::kUniformPositive;
  Transformer<double> mc(c.model, c.pe);
  std::vector<double> pc(mc.layout().total);
  mc.init_params(pc.data(), 3);
  std::vector<double> pz = pc;
  for (const auto& view : mc.layout().views)
    if (view.kind == ParamKind::kPeParam) std::fill(pz.begin() + view.offset, pz.begin() + view.offset + view.size(), 0.0);
  REQUIRE(pz != pc);
  Batch b = make_batch(generate_split(c.task, 1, Split::kTrain), {0, 1, 2, 3});
  const double with_delta = mc.forward(pc.data(), b);
  CHECK(with_delta == mc.forward(pz.data(), b));
  PEConfig bad;
  bad.kind = "pope";
  CHECK_THROWS_WITH(choices::kDeltaInit.parse("positive"), Catch::Contains("unknown delta init 'positive'"));
}

TEST_CASE("grad-accum: K micro-batches make the step of one batch of their union", "[screen][optim]") {
  for (std::string pe : {"rope", "pope"}) {
    RunConfig one = tiny_run(pe), acc = one;
    acc.train.grad_accum = 3;
    CHECK(acc.examples_per_step() == 3 * acc.train.batch);
    auto b1 = make_backend(one, DeviceChoice::kCpu), b3 = make_backend(acc, DeviceChoice::kCpu);
    Dataset d = generate_split(one.task, 1, Split::kTrain);
    for (long s = 1; s <= 3; ++s) {
      std::vector<size_t> all;
      std::vector<Batch> micro;
      for (int k = 0; k < 3; ++k) {  // micro-batches of 4, all padded to the same length
        std::vector<size_t> idx;
        for (int i = 0; i < 4; ++i) idx.push_back(size_t(s * 13 + k * 4 + i));
        all.insert(all.end(), idx.begin(), idx.end());
        micro.push_back(make_batch(d, idx, one.task.width() - 1));
      }
      StepResult r1 = b1->train_step(make_batch(d, all, one.task.width() - 1), 1e-2, s), r3 = b3->train_step(micro, 1e-2, s);
      INFO("pe=" << pe << " step " << s);
      // The same mean loss and gradient up to float summation order.
      CHECK(r3.loss == Approx(r1.loss).epsilon(1e-5));
      CHECK(r3.grad_norm == Approx(r1.grad_norm).epsilon(1e-4));
      CHECK(r3.correct == r1.correct);
    }
    std::vector<float> p1, p3, m, v;
    b1->get_state(p1, m, v);
    b3->get_state(p3, m, v);
    double diff = 0, norm = 0;
    for (size_t i = 0; i < p1.size(); ++i) {
      diff = std::max(diff, std::abs(double(p1[i]) - p3[i]));
      norm = std::max(norm, std::abs(double(p1[i])));
    }
    CHECK(diff < 1e-5 * norm);
  }
  TrainConfig bad;
  bad.grad_accum = 0;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("grad accumulation"));
}

TEST_CASE("sampling epochs: each epoch is a permutation of the split, and replacement is the old stream", "[screen][data]") {
  const size_t n = 10;
  BatchSampler s(BatchSampling::kEpochs, 7, n);
  std::vector<size_t> idx(4), drawn;
  for (int i = 0; i < 10; ++i) {  // 40 examples: four epochs, batches crossing their ends
    s.next(idx);
    drawn.insert(drawn.end(), idx.begin(), idx.end());
  }
  for (int e = 0; e < 4; ++e) {
    std::vector<size_t> epoch(drawn.begin() + e * n, drawn.begin() + (e + 1) * n), sorted = epoch;
    std::sort(sorted.begin(), sorted.end());
    std::vector<size_t> want(n);
    std::iota(want.begin(), want.end(), 0);
    INFO("epoch " << e);
    CHECK(sorted == want);
  }
  CHECK(!std::equal(drawn.begin(), drawn.begin() + n, drawn.begin() + n));  // a fresh order per epoch
  // Restored from its state mid-epoch, a sampler continues exactly.
  BatchSampler a(BatchSampling::kEpochs, 7, n), b(BatchSampling::kEpochs, 7, n);
  a.next(idx);
  a.next(idx);
  b.set_state(a.state());
  std::vector<size_t> ia(4), ib(4);
  for (int i = 0; i < 5; ++i) {
    a.next(ia);
    b.next(ib);
    CHECK(ia == ib);
  }
  // With replacement: the run's batch stream drawn as before this class existed.
  BatchSampler r(BatchSampling::kReplacement, 7, n);
  Pcg32 old = make_stream(7, Stream::kBatches);
  r.next(idx);
  for (size_t i : idx) CHECK(i == old.bounded(n));
  // An unknown word is refused where it is read: the flag and a config's JSON.
  CHECK_THROWS_WITH(choices::kSampling.parse("bootstrap"), Catch::Contains("unknown batch sampling"));
  nlohmann::json bad = TrainConfig{};
  bad["batch_sampling"] = "bootstrap";
  CHECK_THROWS_WITH(bad.get<TrainConfig>(), Catch::Contains("unknown batch_sampling 'bootstrap' in the config"));
}

TEST_CASE("loss all: the mean cross-entropy of every next token, pads and what follows the answer left out", "[screen][model]") {
  for (std::string pad : {"right", "left"}) {
    RunConfig c = tiny_run("pope");
    c.input.pad = choices::kPad.parse(pad);
    Dataset d = generate_split(c.task, 1, Split::kTrain);
    Batch b = make_batch(d, {0, 1, 2, 3, 4}, c.input_len(), c.input);
    TokenTargets tt = every_token_targets(b);
    // Which positions count: the example's own tokens up to its answer position.
    size_t counted = 0;
    double wsum = 0;
    for (int r = 0; r < b.B; ++r)
      for (int t = 0; t < b.T; ++t) {
        const size_t i = size_t(r) * b.T + t;
        const bool counts = b.tokens[i] != vocab::kPad && t <= b.answer_pos[r];
        INFO("pad " << pad << " row " << r << " t " << t);
        REQUIRE((tt.weights[i] > 0) == counts);
        if (!counts) continue;
        ++counted;
        wsum += tt.weights[i];
        CHECK(tt.targets[i] == (t < b.answer_pos[r] ? b.tokens[i + 1] : b.targets[r]));
      }
    size_t tokens = 0;
    for (int r = 0; r < b.B; ++r) tokens += d.input_length(r);
    CHECK(counted == tokens);  // one prediction per input token: the next one, the target last
    CHECK(wsum == Approx(1.0).epsilon(1e-6));
    // The loss is the mean of the per-position cross-entropies, computed from the logits.
    Transformer<double> m(c.model, c.pe);
    std::vector<double> p(m.layout().total);
    m.init_params(p.data(), 3);
    const double answer_loss = m.forward(p.data(), b);
    const std::vector<int32_t> answer_correct = m.correct();
    const double all = m.forward(p.data(), b, true);
    const auto& lg = m.logits();
    const int V = c.model.vocab_size;
    REQUIRE(lg.size() == size_t(b.B) * b.T * V);
    double want = 0;
    for (size_t i = 0; i < size_t(b.B) * b.T; ++i) {
      if (tt.weights[i] == 0) continue;
      double mx = lg[i * V], s = 0;
      for (int v = 1; v < V; ++v) mx = std::max(mx, lg[i * V + v]);
      for (int v = 0; v < V; ++v) s += std::exp(lg[i * V + v] - mx);
      want += (mx + std::log(s) - lg[i * V + tt.targets[i]]) / double(counted);
    }
    // The weights are floats (the GPU's): 1/count rounded to 2^-24 relative, so 1e-7.
    CHECK(all == Approx(want).epsilon(1e-7));
    CHECK(std::abs(all - answer_loss) > 1e-6);
    CHECK(m.correct() == answer_correct);  // accuracy is the answer's in both modes
    std::vector<double> g(p.size(), 0.0);
    m.backward(p.data(), g.data());
    CHECK(gradcheck([&] { return m.forward(p.data(), b, true); }, p, g) < 1e-6);
  }
  TrainConfig bad;
  CHECK_THROWS_WITH(choices::kLoss.parse("tokens"), Catch::Contains("unknown loss"));
}

TEST_CASE("delta-shared: one PoPE delta for every layer, its gradient summed over them", "[screen][model]") {
  RunConfig per = tiny_run("pope"), sh = per;
  sh.pe.delta_shared = true;
  Transformer<double> mp(per.model, per.pe), ms(sh.model, sh.pe);
  const auto &lp = mp.layout(), &ls = ms.layout();
  const size_t HD = size_t(per.model.n_head) * per.model.head_dim();
  CHECK(ls.n_params == lp.n_params - HD);  // two layers, one delta
  CHECK(ls.layers[0].pe == ls.layers[1].pe);
  CHECK(ls.find("pe_shared").size() == HD);
  // The per-layer model with both deltas set to the shared one computes the same loss, and the
  // shared gradient is the sum of the per-layer ones.
  Dataset d = generate_split(per.task, 1, Split::kTrain);
  Batch b = make_batch(d, {0, 2, 4, 6});
  std::vector<double> ps(ls.total);
  ms.init_params(ps.data(), 7);
  std::vector<double> pp = copy_by_name(ls, ps, lp);
  for (const auto& layer : lp.layers) std::copy(ps.begin() + ls.layers[0].pe, ps.begin() + ls.layers[0].pe + HD, pp.begin() + layer.pe);
  Grad gs = loss_grad(ms, ps, b), gp = loss_grad(mp, pp, b);
  CHECK(gs.loss == Approx(gp.loss).epsilon(1e-13));
  for (size_t i = 0; i < HD; ++i)
    REQUIRE(gs.g[ls.layers[0].pe + i] == Approx(gp.g[lp.layers[0].pe + i] + gp.g[lp.layers[1].pe + i]).margin(1e-13));
  CHECK(gradcheck([&] { return ms.forward(ps.data(), b); }, ps, gs.g) < 1e-6);
  PEConfig bad;
  bad.kind = "rope";
  bad.delta_shared = true;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("pope only"));
}

TEST_CASE("bias: the blocks' linear layers get biases, zero at init, never decayed", "[screen][model]") {
  RunConfig c = tiny_run("pope"), b = c;
  b.model.bias = true;
  Transformer<double> mc(c.model, c.pe), mb(b.model, b.pe);
  const int C = c.model.d_model, F = c.model.mlp_ratio * C;
  CHECK(mb.layout().n_params == mc.layout().n_params + size_t(c.model.n_layer) * (3 * C + C + F + C));
  std::vector<double> pb(mb.layout().total);
  mb.init_params(pb.data(), 2);
  for (const auto& v : mb.layout().views)
    if (v.kind == ParamKind::kBias) {
      CHECK(std::all_of(pb.begin() + v.offset, pb.begin() + v.offset + v.size(), [](double x) { return x == 0.0; }));
      OptimConfig all2d;
      all2d.weight_decay_on = WeightDecayOn::kAll2d;
      CHECK_FALSE(v.decays(OptimConfig{}));
      CHECK_FALSE(v.decays(all2d));
    }
  Dataset d = generate_split(c.task, 1, Split::kTrain);
  Batch batch = make_batch(d, {0, 1, 2, 3});
  // Zero biases: the model without them. Non-zero ones change the loss, and every gradient,
  // the biases' included, matches finite differences.
  std::vector<double> pc = copy_by_name(mb.layout(), pb, mc.layout());
  CHECK(mb.forward(pb.data(), batch) == Approx(mc.forward(pc.data(), batch)).epsilon(1e-13));
  Pcg32 rng(5, 5);
  for (const auto& v : mb.layout().views)
    if (v.kind == ParamKind::kBias)
      for (size_t i = v.offset; i < v.offset + v.size(); ++i) pb[i] = 0.2 * rng.normal();
  Grad g = loss_grad(mb, pb, batch);
  CHECK(std::abs(g.loss - mc.forward(pc.data(), batch)) > 1e-6);
  CHECK(gradcheck([&] { return mb.forward(pb.data(), batch); }, pb, g.g) < 1e-6);
}
