// The options of the Indirect Indexing screen (results/indirect_indexing/screen/PLAN.md), each
// checked for doing what its help says: frequency order, attention temperature, context crop,
// padding side, weight decay scope, the PE's learning-rate multiplier and the (source, shift)
// draw. The GPU twins of the model-level options are in test_cuda_model.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "generators/task.hpp"
#include "backend/backend.hpp"
#include "model/batch.hpp"
#include "model/pe/pe_pope.hpp"
#include "model/pe/pe_rope.hpp"
#include "model/transformer.hpp"
#include "tests/gradcheck.hpp"
#include "tests/test_configs.hpp"

using namespace popebench;
using namespace popebench::test;

TEST_CASE("pe-freqs increasing is the paper's Eq. 4 as printed", "[screen][pe]") {
  PEConfig pe;
  pe.freqs = FreqOrder::kIncreasing;
  const int d = 64;
  auto p = pope_thetas(d, pe), r = rope_thetas(d, pe);
  auto pd = pope_thetas(d, PEConfig{}), rd = rope_thetas(d, PEConfig{});
  REQUIRE(p.size() == 64);
  REQUIRE(r.size() == 32);
  // Eq. 4 as printed: theta_c = base^((c-1)/d), c = 1..d: 1, then up to 10000^(63/64) = 8659.6.
  CHECK(p[0] == 1.0);
  CHECK(p[63] == Approx(8659.6).epsilon(1e-4));
  for (int c = 0; c < d; ++c) {
    CHECK(p[c] == Approx(std::pow(10000.0, double(c) / d)).epsilon(1e-14));
    CHECK(p[c] * pd[c] == Approx(1.0).epsilon(1e-13));  // the decreasing ones, inverted
  }
  for (int c = 0; c < d / 2; ++c) CHECK(r[c] * rd[c] == Approx(1.0).epsilon(1e-13));
  PEConfig bad;
  bad.kind = "alibi";
  bad.freqs = FreqOrder::kIncreasing;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("--pe-freqs applies to rope"));
  bad.kind = "pope";
  CHECK_THROWS_WITH(choices::kFreqs.parse("upward"), Catch::Contains("unknown frequency order"));
}

namespace {
RunConfig tiny_run(const std::string& pe) {
  RunConfig c = small_run_config(pe, {5, 9, 3, 12}, /*d_model=*/16, /*n_head=*/2, /*n_train=*/64);
  c.model.init_std = 0.3;
  return c;
}
double loss_of(const RunConfig& c, const Batch& b) {
  Transformer<double> m(c.model, c.pe);
  std::vector<double> p(m.layout().total);
  m.init_params(p.data(), 3);
  return m.forward(p.data(), b);
}
}  // namespace

TEST_CASE("attn-scale: head_dim, qk_dim and a number are the factors they name", "[screen][model]") {
  for (std::string pe : {"pope", "rope"}) {
    RunConfig c = tiny_run(pe);
    Dataset d = generate_split(c.task, 1, Split::kTrain);
    Batch b = make_batch(d, {0, 1, 2, 5});
    const int D = c.model.head_dim(), Dqk = pe == "pope" ? 2 * D : D;  // 8, 16
    const double base = loss_of(c, b);
    RunConfig num = c;
    num.model.attn_scale = std::to_string(1.0 / std::sqrt(double(D)));
    INFO("pe=" << pe);
    CHECK(loss_of(num, b) == Approx(base).epsilon(1e-6));  // the default is 1/sqrt(head dim)
    RunConfig qk = c, qk_num = c;
    qk.model.attn_scale = "qk_dim";
    qk_num.model.attn_scale = std::to_string(1.0 / std::sqrt(double(Dqk)));
    CHECK(loss_of(qk, b) == Approx(loss_of(qk_num, b)).epsilon(1e-6));
    if (pe == "pope")
      CHECK(std::abs(loss_of(qk, b) - base) > 1e-4);  // PoPE: 1/sqrt(16) is not 1/sqrt(8)
    else
      CHECK(loss_of(qk, b) == base);  // RoPE's q.k width is the head dim
    RunConfig big = c;
    big.model.attn_scale = "3";
    CHECK(std::abs(loss_of(big, b) - base) > 1e-4);
    // The backward uses the same factor: the whole model against finite differences.
    Transformer<double> m(big.model, big.pe);
    std::vector<double> p(m.layout().total), g(p.size(), 0.0);
    m.init_params(p.data(), 3);
    m.forward(p.data(), b);
    m.backward(p.data(), g.data());
    CHECK(gradcheck([&] { return m.forward(p.data(), b); }, p, g) < 1e-6);
  }
  ModelConfig bad;
  for (std::string v : {"0", "-1", "nan", "inf", "1/8", "qk"}) {
    bad.attn_scale = v;
    INFO(v);
    CHECK_THROWS_WITH(bad.validate(), Catch::Contains("attention scale"));
  }
}

TEST_CASE("context keeps the last N input tokens, and pad left puts the pads before them", "[screen][batch]") {
  RunConfig c = tiny_run("rope");
  Dataset d = generate_split(c.task, 1, Split::kTrain);
  std::vector<size_t> idx;
  for (size_t i = 0; i < 40; ++i) idx.push_back(i);
  for (int context : {0, 6, 10, 100})
    for (std::string pad : {"right", "left"}) {
      InputConfig in;
      in.context = context;
      in.pad = choices::kPad.parse(pad);
      RunConfig rc = c;
      rc.input = in;
      const int row = rc.input_len();
      CHECK(row == (context > 0 ? std::min(context, c.task.width() - 1) : c.task.width() - 1));
      Batch b = make_batch(d, idx, row, in);
      INFO("context " << context << " pad " << pad);
      REQUIRE(b.T == row);
      for (int r = 0; r < b.B; ++r) {
        const int len = d.input_length(idx[r]), kept = context > 0 ? std::min(len, context) : len;
        const int start = pad == "left" ? row - kept : 0;
        CHECK(b.answer_pos[r] == start + kept - 1);
        CHECK(b.targets[r] == d.target(idx[r]));
        for (int t = 0; t < row; ++t) {
          const int32_t tok = b.tokens[size_t(r) * row + t];
          if (t < start || t >= start + kept)
            CHECK(tok == vocab::kPad);
          else  // the input's last `kept` tokens, in order
            CHECK(tok == d.seq(idx[r])[len - kept + (t - start)]);
        }
        // The answer position holds the input's last token, the ',' before the target.
        CHECK(b.tokens[size_t(r) * row + b.answer_pos[r]] == vocab::kComma);
      }
    }
  InputConfig bad;
  CHECK_THROWS_WITH(choices::kPad.parse("middle"), Catch::Contains("padding side"));
  bad.pad = PadSide::kRight;
  bad.context = -1;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("context"));
}

TEST_CASE("a cropped or left-padded run trains and evaluates on the CPU backend", "[screen][model]") {
  for (std::string pad : {"right", "left"}) {
    RunConfig c = tiny_run("pope");
    c.input.context = 8;
    c.input.pad = choices::kPad.parse(pad);
    c.train.device = DeviceChoice::kCpu;
    auto be = make_backend(c, DeviceChoice::kCpu);
    Dataset d = generate_split(c.task, 1, Split::kTrain);
    Batch b = make_batch(d, {0, 1, 2, 3}, c.input_len(), c.input);
    StepResult r = be->train_step(b, 1e-3, 1);
    CHECK(std::isfinite(r.loss));
    // The model sees only what the crop left: examples equal in their last 8 tokens and target
    // give the same loss, so the loss of a cropped batch is that of the pre-cropped inputs.
    Transformer<double> m(c.model, c.pe);
    std::vector<double> p(m.layout().total);
    m.init_params(p.data(), 3);
    const double cropped = m.forward(p.data(), b);
    Batch manual = b;  // built by hand from the last 8 tokens
    for (int r2 = 0; r2 < b.B; ++r2) {
      const int len = d.input_length(r2), kept = std::min(len, 8), start = pad == "left" ? b.T - kept : 0;
      for (int t = 0; t < b.T; ++t) manual.tokens[size_t(r2) * b.T + t] = vocab::kPad;
      for (int t = 0; t < kept; ++t) manual.tokens[size_t(r2) * b.T + start + t] = d.seq(r2)[len - kept + t];
      manual.answer_pos[r2] = start + kept - 1;
    }
    CHECK(m.forward(p.data(), manual) == cropped);
  }
}

namespace {
// One CPU step of `c` from its seed's init; returns the parameters before and after.
std::pair<std::vector<float>, std::vector<float>> one_step(const RunConfig& c) {
  auto be = make_backend(c, DeviceChoice::kCpu);
  Dataset d = generate_split(c.task, 1, Split::kTrain);
  std::vector<float> p0, p1, m, v;
  be->get_state(p0, m, v);
  be->train_step(make_batch(d, {0, 1, 2, 3, 4, 5}), 1e-2, 1);
  be->get_state(p1, m, v);
  return {p0, p1};
}
}  // namespace

TEST_CASE("weight-decay-on all-2d decays embeddings and delta, never norm gains", "[screen][optim]") {
  RunConfig a = tiny_run("pope");
  a.optim.weight_decay = 0.5;  // large, so the decay term stands out of the Adam step
  RunConfig b = a;
  b.optim.weight_decay_on = WeightDecayOn::kAll2d;
  auto [p0, pa] = one_step(a);
  auto [q0, pb] = one_step(b);
  REQUIRE(p0 == q0);
  Transformer<float> m(a.model, a.pe);
  const double lr_wd = 1e-2 * 0.5;
  for (const auto& view : m.layout().views) {
    const bool extra = view.kind == ParamKind::kEmbedding || view.kind == ParamKind::kPeParam;
    CHECK(view.decays(b.optim) == (view.kind != ParamKind::kNormGain));
    CHECK(view.decays(a.optim) == (view.kind == ParamKind::kMatrix));
    for (size_t i = view.offset; i < view.offset + view.size(); ++i) {
      // Decoupled decay: p_new = p (1 - lr wd) - lr adam(g); the Adam part is the same in both runs.
      const double want = extra ? p0[i] * lr_wd : 0.0;
      INFO(view.name << " [" << i - view.offset << "]");
      REQUIRE(double(pa[i]) - double(pb[i]) == Approx(want).margin(1e-6));
    }
  }
  OptimConfig bad;
  CHECK_THROWS_WITH(choices::kWeightDecayOn.parse("everything"), Catch::Contains("weight decay scope"));
}

TEST_CASE("pe-lr-mult scales the PE parameters' step only", "[screen][optim]") {
  RunConfig one = tiny_run("pope");
  auto [p0, p1] = one_step(one);
  for (double mult : {0.0, 0.25, 4.0}) {
    RunConfig c = one;
    c.optim.pe_lr_mult = mult;
    auto [q0, q1] = one_step(c);
    Transformer<float> m(c.model, c.pe);
    for (const auto& view : m.layout().views)
      for (size_t i = view.offset; i < view.offset + view.size(); ++i) {
        const double base = double(p1[i]) - double(p0[i]), got = double(q1[i]) - double(q0[i]);
        INFO(view.name << " mult " << mult);
        if (view.kind == ParamKind::kPeParam)
          REQUIRE(got == Approx(mult * base).margin(1e-6));
        else
          REQUIRE(got == base);
      }
  }
  OptimConfig bad;
  bad.pe_lr_mult = -1;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("multiplier"));
  bad.pe_lr_mult = std::nan("");
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("multiplier"));
}

TEST_CASE("pair-draw: each rule's shifts follow its own distribution, every target inside", "[screen][generator]") {
  for (std::string rule : {"joint", "shift-first", "source-first"}) {
    TaskConfig task;
    task.as<IndirectIndexingConfig>().min_len = 6;
    task.as<IndirectIndexingConfig>().max_len = 12;
    task.as<IndirectIndexingConfig>().max_shift = 5;
    task.as<IndirectIndexingConfig>().alphabet = 20;
    task.as<IndirectIndexingConfig>().pair_draw = rule;
    task.n_train = 200000;
    SplitStats st;
    Dataset d = generate_split(task, 9, Split::kTrain, &st);
    auto expected = expected_shift_distribution(task.as<IndirectIndexingConfig>());
    REQUIRE(expected.size() == 10);
    const double n = double(task.n_train);
    double total = 0;
    for (auto [k, p] : expected) {
      total += p;
      INFO(rule << " shift " << k << " expected " << n * p << " got " << st.offset_hist[k]);
      CHECK(std::abs(st.offset_hist[k] - n * p) < 5 * std::sqrt(n * p * (1 - p)));  // 5 binomial sds
    }
    CHECK(total == Approx(1.0).epsilon(1e-12));
    CHECK(st.offset_hist.count(0) == 0);
    // Every example is well formed: the target is the letter at source + shift.
    for (size_t i = 0; i < 2000; ++i) {
      const uint16_t* s = d.seq(i);
      std::vector<uint16_t> seq(s, s + d.length(i));
      int str_len = 0;
      while (vocab::is_symbol(seq[str_len])) ++str_len;
      int src = -1;
      for (int j = 0; j < str_len; ++j) if (seq[j] == seq[str_len + 1]) src = j;
      REQUIRE(src >= 0);
      int shift = 0;
      for (int j = str_len + 4; seq[j] != vocab::kComma; ++j) shift = 10 * shift + (seq[j] - vocab::kDigit0);
      if (seq[str_len + 3] == vocab::kMinus) shift = -shift;
      REQUIRE(src + shift >= 0);
      REQUIRE(src + shift < str_len);
      REQUIRE(seq.back() == seq[src + shift]);
    }
  }
  // The default rule is the one every committed dataset was made with: unchanged bytes.
  TaskConfig a, b;
  a.n_train = b.n_train = 500;
  b.as<IndirectIndexingConfig>().pair_draw = "joint";
  CHECK(generate_split(a, 4, Split::kTrain).tokens == generate_split(b, 4, Split::kTrain).tokens);
  IndirectIndexingConfig bad;
  bad.pair_draw = "target-first";
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("pair draw"));
}

TEST_CASE("configs written before the screen's options read back with their defaults", "[screen][config]") {
  RunConfig c;
  nlohmann::json j = c;
  j["model"].erase("attn_scale");
  j["pe"].erase("freqs");
  j["optim"].erase("pe_lr_mult");
  j["optim"]["weight_decay_on"] = "matrices";
  j.erase("input");
  j["task"]["params"].erase("pair_draw");
  CHECK(normalized_config(j) == nlohmann::json(c));
  RunConfig d;
  d.model.attn_scale = "qk_dim";
  d.pe.freqs = FreqOrder::kIncreasing;
  d.input.context = 40;
  d.input.pad = PadSide::kLeft;
  d.optim.weight_decay_on = WeightDecayOn::kAll2d;
  d.optim.pe_lr_mult = 0.5;
  d.task.as<IndirectIndexingConfig>().pair_draw = "shift-first";
  nlohmann::json dj = d;
  RunConfig back = dj;
  CHECK(nlohmann::json(back) == dj);
  CHECK(dj != nlohmann::json(c));
}

TEST_CASE("config_differences names the fields that set a run apart from the defaults", "[config]") {
  RunConfig c;
  CHECK(config_differences(nlohmann::json(c), RunConfig{}).empty());
  c.model.n_layer = 3;
  c.pe.kind = "rope";
  c.pe.base = 100;
  CHECK(config_differences(nlohmann::json(c), RunConfig{}) == "model.n_layer=3, pe.base=100.0, pe.kind=rope");
}
