// SPEC §6 sanity facts, on the CPU reference kernels, in double.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cpu/pope.hpp"
#include "kernels/cpu/rope.hpp"
#include "model/pe/pe_pope.hpp"
#include "model/pe/pe_absolute.hpp"
#include "model/pe/pe_alibi.hpp"
#include "model/pe/pe_rope.hpp"
#include "model/pe/pe_rope_half.hpp"
#include "model/pe/pe_rope_interleaved.hpp"
#include "model/pe/pe_registry.hpp"
#include "report/extrapolation.hpp"
#include "kernels/cpu/attention.hpp"
#include "tests/gradcheck.hpp"
#include "model/pe/label.hpp"

using namespace popebench;
using namespace popebench::test;

namespace {
// Score between a query vector placed at position t and a key vector at position s, through the
// transform under test: the vectors are written into a (1, 1, Tn, D) sequence at those positions.
template <typename Fwd>
double score(const std::vector<double>& q, const std::vector<double>& k, int t, int s, int D, int Dout, Fwd fwd) {
  const int Tn = std::max(t, s) + 1;
  std::vector<double> qs(Tn * D, 0.0), ks(Tn * D, 0.0), qo(Tn * Dout), ko(Tn * Dout);
  std::copy(q.begin(), q.end(), qs.begin() + t * D);
  std::copy(k.begin(), k.end(), ks.begin() + s * D);
  fwd(qs.data(), qo.data(), Tn, false);
  fwd(ks.data(), ko.data(), Tn, true);
  double r = 0;
  for (int c = 0; c < Dout; ++c) r += qo[t * Dout + c] * ko[s * Dout + c];
  return r;
}
}  // namespace

TEST_CASE("RoPE with one pair and theta 30 degrees scores cos(30 deg * distance)", "[pe][spec]") {
  const double th = M_PI / 6;
  auto rope = [&](const double* x, double* y, int Tn, bool) { cpu::rope_fwd(x, y, 1, Tn, 2, 2, &th); };
  std::vector<double> v = {1, 0};
  CHECK(score(v, v, 0, 1, 2, 2, rope) == Approx(0.8660254037844386).margin(1e-12));
  CHECK(score(v, v, 0, 6, 2, 2, rope) == Approx(-1.0).margin(1e-12));
  CHECK(score(v, v, 0, 12, 2, 2, rope) == Approx(1.0).margin(1e-12));
  CHECK(score(v, v, 3, 9, 2, 2, rope) == Approx(-1.0).margin(1e-12));  // distance, not position
}

TEST_CASE("shifting both positions leaves RoPE and PoPE scores unchanged", "[pe][spec]") {
  const int D = 8;
  auto rth = rope_thetas(D, 10000), pth = pope_thetas(D, 10000);
  std::vector<double> delta(D);
  Pcg32 r(1, 1);
  for (auto& d : delta) d = -2 * M_PI * r.uniform01();
  auto rope = [&](const double* x, double* y, int Tn, bool) { cpu::rope_fwd(x, y, 1, Tn, D, D, rth.data()); };
  auto pope = [&](const double* x, double* y, int Tn, bool key) {
    cpu::pope_fwd(x, y, 1, 1, Tn, D, pth.data(), key ? delta.data() : nullptr);
  };
  auto q = randn(D, 2), k = randn(D, 3);
  for (auto [t, s, shift] : {std::tuple{2, 9, 5}, std::tuple{0, 3, 100}, std::tuple{7, 7, 31}}) {
    CHECK(score(q, k, t + shift, s + shift, D, D, rope) == Approx(score(q, k, t, s, D, D, rope)).margin(1e-10));
    CHECK(score(q, k, t + shift, s + shift, D, 2 * D, pope) == Approx(score(q, k, t, s, D, 2 * D, pope)).margin(1e-10));
  }
}

TEST_CASE("PoPE score equals the closed-form sum", "[pe][spec]") {
  const int D = 16;
  auto th = pope_thetas(D, 10000);
  for (uint64_t seed = 0; seed < 5; ++seed) {
    auto q = randn(D, 10 + seed, 2.0), k = randn(D, 20 + seed, 2.0);
    std::vector<double> delta(D);
    Pcg32 r(seed, 9);
    for (auto& d : delta) d = -2 * M_PI * r.uniform01();
    int t = static_cast<int>(r.bounded(40)), s = static_cast<int>(r.bounded(40));
    auto pope = [&](const double* x, double* y, int Tn, bool key) {
      cpu::pope_fwd(x, y, 1, 1, Tn, D, th.data(), key ? delta.data() : nullptr);
    };
    double closed = 0;
    for (int c = 0; c < D; ++c)
      closed += std::log1p(std::exp(q[c])) * std::log1p(std::exp(k[c])) * std::cos((s - t) * th[c] + delta[c]);
    CHECK(score(q, k, t, s, D, 2 * D, pope) == Approx(closed).margin(1e-12));
  }
}

TEST_CASE("PoPE clamps delta to -2 pi..0 and passes no gradient outside", "[pe][spec]") {
  const int D = 2;
  auto th = pope_thetas(D, 10000);
  auto x = randn(3 * D, 5);
  auto run = [&](std::vector<double> delta) {
    std::vector<double> y(3 * 2 * D);
    cpu::pope_fwd(x.data(), y.data(), 1, 1, 3, D, th.data(), delta.data());
    return y;
  };
  CHECK(run({0.7, -9.0}) == run({0.0, -2 * M_PI}));
  CHECK(run({-1.0, -2.0}) != run({0.0, -2.0}));
  std::vector<double> dy(3 * 2 * D, 1.0), dx(3 * D), dd(2, 0.0), delta = {0.7, -1.0};
  cpu::pope_bwd(dy.data(), x.data(), dx.data(), 1, 1, 3, D, th.data(), delta.data(), dd.data());
  CHECK(dd[0] == 0.0);
  CHECK(dd[1] != 0.0);
}

TEST_CASE("frequencies follow SPEC: RoPE base^(-2c/d) and PoPE base^(-c/d)", "[pe][spec]") {
  auto r = rope_thetas(64, 10000), p = pope_thetas(64, 10000);
  REQUIRE(r.size() == 32);
  REQUIRE(p.size() == 64);
  CHECK(r[0] == 1.0);
  CHECK(p[0] == 1.0);
  CHECK(r[31] == Approx(std::pow(10000.0, -62.0 / 64)));
  CHECK(p[63] == Approx(std::pow(10000.0, -63.0 / 64)));
  CHECK(p[2 * 5] == Approx(r[5]));  // same range, twice as many frequencies
}

TEST_CASE("ALiBi biases scores by -slope times distance and half of it leaves half the heads alone", "[pe][spec]") {
  auto m = alibi_slopes(8, false);
  CHECK(m[0] == Approx(0.5));
  CHECK(m[7] == Approx(1.0 / 256));
  auto mh = alibi_slopes(8, true);
  CHECK(mh[0] == Approx(0.25));  // an H/2 = 4-head sequence: 2^-2, 2^-4, 2^-6, 2^-8
  CHECK(mh[3] == Approx(1.0 / 256));
  for (int h = 4; h < 8; ++h) CHECK(mh[h] == 0.0);
  // With q = k = 0 every score is the bias alone: probs of query t over keys s are
  // proportional to exp(-m (t - s)).
  const int T = 6;
  cpu::AttentionShape s{1, 2, T, 4, 1};
  std::vector<double> q(2 * T * 4, 0.0), v(2 * T, 1.0), o(2 * T), P(2 * T * T);
  std::vector<double> slopes = {0.5, 0.0};
  cpu::attention_fwd(q.data(), q.data(), v.data(), o.data(), P.data(), s, 1.0, slopes.data());
  const int t = 5;
  double z = 0;
  for (int j = 0; j <= t; ++j) z += std::exp(-0.5 * (t - j));
  for (int j = 0; j <= t; ++j) CHECK(P[t * T + j] == Approx(std::exp(-0.5 * (t - j)) / z));
  for (int j = 0; j <= t; ++j) CHECK(P[T * T + t * T + j] == Approx(1.0 / (t + 1)));  // slope 0: uniform
}

TEST_CASE("RoPE on half the channels rotates the first half only", "[pe][spec]") {
  const int D = 8, Tn = 5;
  RoPEHalf<double> pe(D, PEConfig{});
  auto q = randn(Tn * D, 40), k = randn(Tn * D, 41);
  std::vector<double> qo(q.size()), ko(k.size());
  pe.fwd(q.data(), k.data(), qo.data(), ko.data(), nullptr, PEShape{1, 1, Tn, D});
  for (int t = 0; t < Tn; ++t)
    for (int c = D / 2; c < D; ++c) CHECK(qo[t * D + c] == q[t * D + c]);
  // The rotated half uses a D/2-wide RoPE: pair (0, 2) turns by t * theta_0 = t radians.
  const int t = 3;
  CHECK(qo[t * D + 0] == Approx(q[t * D] * std::cos(3.0) - q[t * D + 2] * std::sin(3.0)));
  CHECK(qo[t * D + 2] == Approx(q[t * D] * std::sin(3.0) + q[t * D + 2] * std::cos(3.0)));
}

TEST_CASE("RoPE with interleaved pairs is half-split RoPE on permuted channels, forward and backward", "[pe][spec]") {
  // Interleaved channel 2c is half-split channel c, 2c + 1 is c + D/2: the same rotations.
  const int D = 8, Tn = 37, BH = 3;
  PEConfig pc;
  pc.kind = "rope-interleaved";
  pc.base = 500;  // not the default, so both read the config's frequencies
  RoPEInterleaved<double> inter(D, pc);
  RoPE<double> half(D, pc);
  const PEShape s{1, BH, Tn, D};
  const size_t n = size_t(BH) * Tn * D;
  auto x = randn(n, 11), k = randn(n, 12);
  auto permuted = [&](const std::vector<double>& v) {  // interleaved layout -> half-split layout
    std::vector<double> p(v.size());
    for (size_t r = 0; r < v.size() / D; ++r)
      for (int c = 0; c < D / 2; ++c) {
        p[r * D + c] = v[r * D + 2 * c];
        p[r * D + c + D / 2] = v[r * D + 2 * c + 1];
      }
    return p;
  };
  std::vector<double> yi(n), ki(n), yh(n), kh(n);
  inter.fwd(x.data(), k.data(), yi.data(), ki.data(), nullptr, s);
  const auto xp = permuted(x), kp = permuted(k);
  half.fwd(xp.data(), kp.data(), yh.data(), kh.data(), nullptr, s);
  CHECK(permuted(yi) == yh);  // the same double operations in the same order: equal bits
  CHECK(permuted(ki) == kh);
  inter.bwd(x.data(), k.data(), nullptr, nullptr, nullptr, yi.data(), ki.data(), nullptr, s);
  half.bwd(xp.data(), kp.data(), nullptr, nullptr, nullptr, yh.data(), kh.data(), nullptr, s);
  CHECK(permuted(yi) == yh);
  CHECK(permuted(ki) == kh);
  // and so a relative PE: shifting both positions leaves a score unchanged
  auto rope_i = [&](const double* in, double* out, int T, bool) {
    inter.fwd(in, in, out, out, nullptr, PEShape{1, 1, T, D});
  };
  auto q1 = randn(D, 2), k1 = randn(D, 3);
  CHECK(score(q1, k1, 2 + 40, 9 + 40, D, D, rope_i) == Approx(score(q1, k1, 2, 9, D, D, rope_i)).margin(1e-10));
  CHECK(score(q1, k1, 2, 9, D, D, rope_i) != Approx(score(q1, k1, 2, 10, D, D, rope_i)).margin(1e-6));
}

TEST_CASE("every registered PE builds, takes the options it declares and refuses the others", "[pe][config]") {
  ModelConfig m;
  m.d_model = 32;
  m.n_head = 2;
  m.max_len = 20;
  std::set<std::string> names;
  for (const PEKindInfo& k : pe_kinds()) {
    INFO("pe " << k.name);
    CHECK(names.insert(k.name).second);
    CHECK(!k.help.empty());
    PEConfig pc;
    pc.kind = k.name;
    CHECK(make_positional_embedding<double>(pc, m) != nullptr);
    CHECK(make_positional_embedding<float>(pc, m) != nullptr);
    PEConfig f = pc;
    f.freqs = FreqOrder::kIncreasing;
    if (k.frequencies) CHECK_NOTHROW(f.validate()); else CHECK_THROWS_WITH(f.validate(), Catch::Contains("--pe-freqs applies to"));
    PEConfig r = pc;
    r.rope_scaling = RopeScaling::kNtk;
    r.rope_factor = 2;
    if (k.rope_scaling) CHECK_NOTHROW(r.validate()); else CHECK_THROWS_WITH(r.validate(), Catch::Contains("applies to"));
    PEConfig d = pc;
    d.delta_bound = DeltaBound::kProject;
    if (k.delta) CHECK_NOTHROW(d.validate()); else CHECK_THROWS_WITH(d.validate(), Catch::Contains("--delta-bound applies to"));
    if (!k.gpu) continue;
    // What the GPU kernels take must fit the model: frequencies for the rotation's width, one
    // slope per head, a (max_len, C) table.
    const GpuPE g = k.gpu(pc, m);
    const int D = m.head_dim();
    if (g.attention == cuda::PEKind::kRope) {
      CHECK(g.n_rot > 0);
      CHECK(g.n_rot <= D);
      CHECK(g.thetas.size() == size_t(g.n_rot / 2));
    }
    if (g.attention == cuda::PEKind::kPope) CHECK(g.thetas.size() == size_t(D));
    if (!g.slopes.empty()) CHECK(g.slopes.size() == size_t(m.n_head));
    if (!g.table.empty()) CHECK(g.table.size() == size_t(m.max_len) * m.d_model);
  }
  CHECK(names.count("rope-interleaved") == 1);
}

TEST_CASE("sinusoidal position embeddings follow Vaswani et al.", "[pe][spec]") {
  auto tab = sinusoidal_table(50, 16);
  CHECK(tab[0] == 0.0);
  CHECK(tab[1] == 1.0);
  CHECK(tab[7 * 16 + 4] == Approx(std::sin(7 / std::pow(10000.0, 4.0 / 16))));
  CHECK(tab[7 * 16 + 5] == Approx(std::cos(7 / std::pow(10000.0, 4.0 / 16))));
}

TEST_CASE("RoPE position interpolation at factor s scores positions (s a, s b) as RoPE scores (a, b)", "[pe][spec]") {
  const int D = 16, Tn = 13, s = 3;
  PEConfig plain, pi;
  pi.kind = plain.kind = "rope";
  pi.rope_scaling = RopeScaling::kPi;
  pi.rope_factor = s;
  RoPE<double> rope(D, plain), rope_pi(D, pi);
  // One q and one k vector repeated at every position, so scores differ only by position.
  auto q1 = randn(D, 50), k1 = randn(D, 51);
  std::vector<double> q(Tn * D), k(Tn * D), qa(q.size()), ka(k.size()), qb(q.size()), kb(k.size());
  for (int t = 0; t < Tn; ++t)
    for (int c = 0; c < D; ++c) {
      q[t * D + c] = q1[c];
      k[t * D + c] = k1[c];
    }
  rope.fwd(q.data(), k.data(), qa.data(), ka.data(), nullptr, PEShape{1, 1, Tn, D});
  rope_pi.fwd(q.data(), k.data(), qb.data(), kb.data(), nullptr, PEShape{1, 1, Tn, D});
  auto score = [&](const std::vector<double>& qq, const std::vector<double>& kk, int t, int u) {
    double acc = 0;
    for (int c = 0; c < D; ++c) acc += qq[t * D + c] * kk[u * D + c];
    return acc;
  };
  for (int a = 0; a * s < Tn; ++a)
    for (int b = 0; b * s < Tn; ++b) CHECK(score(qb, kb, a * s, b * s) == Approx(score(qa, ka, a, b)).margin(1e-12));
  // And it differs from plain RoPE at the same positions (the scaling is not a no-op).
  CHECK(std::abs(score(qb, kb, 7, 2) - score(qa, ka, 7, 2)) > 1e-3);
}

TEST_CASE("NTK-aware scaling keeps the highest frequency and divides the lowest by the factor", "[pe][spec]") {
  PEConfig ntk;
  ntk.kind = "rope";
  ntk.rope_scaling = RopeScaling::kNtk;
  ntk.rope_factor = 8;
  for (int d : {8, 32, 64}) {
    auto plain = rope_thetas(d, 10000.0), scaled = rope_thetas(d, ntk);
    REQUIRE(scaled.size() == plain.size());
    CHECK(scaled.front() == Approx(plain.front()));               // theta_0 = 1 always
    CHECK(scaled.back() == Approx(plain.back() / 8).epsilon(1e-12));  // base'^(-(d-2)/d) = base^(-(d-2)/d) / s
    for (size_t c = 1; c + 1 < plain.size(); ++c) {
      CHECK(scaled[c] < plain[c]);
      CHECK(scaled[c] > plain[c] / 8);
    }
  }
}

TEST_CASE("RoPE scaling is refused for PEs it does not apply to", "[pe][config]") {
  PEConfig p;
  p.kind = "pope";
  p.rope_scaling = RopeScaling::kPi;
  p.rope_factor = 2;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("applies to rope, rope-interleaved and rope-half only"));
  p.kind = "rope";
  p.rope_factor = 0.5;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("factor must be in [1, 10000]"));
  p.rope_factor = 2;
  CHECK_THROWS_WITH(choices::kRopeScaling.parse("longrope"), Catch::Contains("unknown RoPE scaling 'longrope'"));
  // YaRN's attention factor multiplies the rotated channels: a factor of the whole score only
  // where every channel rotates, so not for rope-half; and its ramp needs the training length.
  p.rope_scaling = RopeScaling::kYarn;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("needs the training length"));
  p.rope_train_len = 40;
  CHECK_NOTHROW(p.validate());
  // Recorded only when set, so that an unscaled run's config is what it was before YaRN.
  CHECK(nlohmann::json(p)["rope_train_len"] == 40);
  CHECK_FALSE(nlohmann::json(PEConfig{}).contains("rope_train_len"));
  PEConfig back = nlohmann::json(p);
  CHECK(back.rope_train_len == 40);
  p.kind = "rope-half";
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("yarn applies to rope and rope-interleaved only"));
  p.kind = "pope";
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("applies to rope, rope-interleaved and rope-half only"));
}

// The expected values come from YaRN's reference formulas (jquesnelle/yarn,
// LlamaYaRNScaledRotaryEmbedding: find_correction_range with beta_fast 32 and beta_slow 1,
// linear_ramp_mask, inv_freq = interpolation (1 - mask) + extrapolation mask, get_mscale) written
// out in plain Python, independently of model/pe/pe_rope.hpp:
//   corr = lambda r, d, b, L: d * math.log(L / (r * 2 * math.pi)) / (2 * math.log(b))
//   low = max(math.floor(corr(32, d, b, L)), 0); high = min(math.ceil(corr(1, d, b, L)), d - 1)
//   ramp = min(max((c - low) / (high - low), 0), 1); mask = 1 - ramp
//   theta_c = b ** (-2 c / d) / s * (1 - mask) + b ** (-2 c / d) * mask
TEST_CASE("YaRN's frequencies and attention factor equal its reference formulas", "[pe][spec]") {
  struct Case {
    int d;
    double s, train_len;
    std::vector<std::pair<int, double>> theta;  // (channel pair, expected frequency)
  };
  const std::vector<Case> cases = {
      // low 0, high 9: pair 0 kept, pairs 1-8 on the ramp, from 9 on interpolated (theta / 4)
      {64, 4, 64, {{0, 1.0}, {1, 0.68740302522141783}, {9, 0.018747355233311395}, {10, 0.014058533129758726},
                   {16, 0.0025000000000000001}, {31, 3.3338035804083099e-05}}},
      // low 10, high 23: pairs 0-10 kept, 11-22 on the ramp, from 23 on interpolated (theta / 10)
      {64, 10, 4096, {{0, 1.0}, {1, 0.74989420933245587}, {9, 0.074989420933245579}, {10, 0.056234132519034905},
                      {11, 0.039250213011429579}, {16, 0.0058461538461538464}, {23, 0.0001333521432163324},
                      {31, 1.3335214321633241e-05}}},
  };
  for (const Case& k : cases) {
    INFO("d " << k.d << ", s " << k.s << ", L " << k.train_len);
    PEConfig y;
    y.kind = "rope";
    y.rope_scaling = RopeScaling::kYarn;
    y.rope_factor = k.s;
    y.rope_train_len = int(k.train_len);
    const auto th = rope_thetas(k.d, y);
    REQUIRE(th.size() == size_t(k.d / 2));
    for (auto [c, want] : k.theta) {
      INFO("pair " << c);
      CHECK(th[c] == Approx(want).epsilon(1e-13));
    }
  }
  // 0.1 ln(s) + 1 on q and on k: the score times its square.
  PEConfig y;
  y.kind = "rope";
  y.rope_scaling = RopeScaling::kYarn;
  y.rope_train_len = 64;
  y.rope_factor = 4;
  CHECK(pe_score_factor(y) == Approx(1.2964769927807063).epsilon(1e-14));
  y.rope_factor = 10;
  CHECK(pe_score_factor(y) == Approx(1.5135359997035929).epsilon(1e-14));
  y.rope_factor = 1;  // no scaling at the training length: RoPE itself
  CHECK(pe_score_factor(y) == 1.0);
  const auto plain = rope_thetas(64, 10000.0), same = rope_thetas(64, y);
  for (size_t c = 0; c < plain.size(); ++c) CHECK(same[c] == Approx(plain[c]).epsilon(1e-15));
  y.rope_scaling = RopeScaling::kPi;
  y.rope_factor = 4;
  CHECK(pe_score_factor(y) == 1.0);
}

TEST_CASE("extrapolation evaluates yarn for the PEs it is exact for, pi and ntk for every RoPE", "[pe][config]") {
  ExtrapolationConfig e;
  e.rope_variants = {RopeScaling::kPi, RopeScaling::kYarn};
  CHECK_NOTHROW(e.validate());
  auto for_kind = [&](const std::string& kind) {
    PEConfig p;
    p.kind = kind;
    return scalings_for(p, e);
  };
  using R = RopeScaling;
  CHECK(for_kind("rope") == std::vector<R>{R::kNone, R::kPi, R::kYarn});
  CHECK(for_kind("rope-interleaved") == std::vector<R>{R::kNone, R::kPi, R::kYarn});
  CHECK(for_kind("rope-half") == std::vector<R>{R::kNone, R::kPi});
  CHECK(for_kind("pope") == std::vector<R>{R::kNone});
  e.rope_variants = {R::kNone};
  CHECK_THROWS_WITH(e.validate(), Catch::Contains("'none' is not a RoPE variant"));
  // The words of --rope-variants (the CLI splits the list and refuses a repeat or an empty item:
  // tests/cli_cases.sh).
  CHECK(rope_variants_from({"yarn", "pi"}) == std::vector<R>{R::kYarn, R::kPi});
  CHECK_THROWS_WITH(rope_variants_from({"longrope"}), Catch::Contains("unknown RoPE variant 'longrope' (known: pi, ntk, yarn)"));
  CHECK_THROWS_WITH(rope_variants_from({"pi", "none"}), Catch::Contains("'none' stands alone"));
}

TEST_CASE("extrapolation labels name their PE and read back as it", "[pe][config]") {
  for (std::string label : {"rope", "pope", "pope-delta0", "pope-delta2pi", "alibi-half", "none", "learned"}) {
    PEConfig p = pe_from_label(label, PEConfig{});
    CHECK(pe_label(p) == label);
  }
  CHECK(pe_from_label("pope-delta0", PEConfig{}).delta_init == DeltaInit::kZero);
  CHECK(pe_from_label("pope", PEConfig{}).delta_init == DeltaInit::kUniform);
  CHECK(pe_from_label("pope-delta2pi", PEConfig{}).delta_init == DeltaInit::kUniformPositive);
  PEConfig pi = pe_from_label("rope", PEConfig{});
  pi.rope_scaling = RopeScaling::kPi;
  CHECK(pe_label(pi) == "rope+pi");
  CHECK_THROWS_WITH(pe_from_label("rope+pi", PEConfig{}), Catch::Contains("not trained"));
  CHECK_THROWS_WITH(pe_from_label("pope-delta1", PEConfig{}), Catch::Contains("unknown positional embedding"));
}

TEST_CASE("extrapolation table: mean and sample std per bucket over seeds, none for one seed", "[pe][config]") {
  auto row = [](const std::string& label, int seed, double a1, double a2) {
    return nlohmann::json{{"label", label}, {"seed", seed}, {"factors", {1, 2}}, {"acc", {a1, a2}}};
  };
  // Two rope seeds, one pope seed; the table keeps the order the labels first appear in.
  auto t = summarise_extrapolation({row("rope", 0, 0.5, 0.1), row("pope", 0, 0.9, 0.3), row("rope", 1, 0.7, 0.1)});
  REQUIRE(t.size() == 2);
  CHECK(t[0]["label"] == "rope");
  CHECK(t[0]["mean"][0].get<double>() == Approx(60.0));
  CHECK(t[0]["std"][0].get<double>() == Approx(std::sqrt(200.0)));  // (50, 70): sample std 14.14
  CHECK(t[0]["std"][1].get<double>() == Approx(0.0).margin(1e-12));
  CHECK(t[1]["label"] == "pope");
  CHECK(t[1]["std"].is_null());
  const std::string md = extrapolation_markdown(t);
  CHECK(md.find("| rope | 60.0 ± 14.1 | 10.0 ± 0.0 |") != std::string::npos);
  CHECK(md.find("| pope | 90.0 | 30.0 |") != std::string::npos);
  // The line above the table says what it is of.
  TaskConfig task;
  task.select("k-back");
  const nlohmann::json doc = {{"task", task}, {"chance", task.chance()}, {"table", t},
                              {"buckets", {{{"factor", 1}, {"examples", 500}}, {{"factor", 2}, {"examples", 500}}}}};
  const std::string head = extrapolation_heading(doc);
  INFO(head);
  CHECK(head.rfind("k-back, trained on lengths " + std::to_string(task.min_len()) + "-" + std::to_string(task.max_len()) +
                       ", tested zero-shot on buckets up to 2x as long (500 examples each); 1 or 2 seeds per PE; chance ",
                   0) == 0);
}

TEST_CASE("the attention bench times each GPU attention path of the registered PEs once", "[pe][bench]") {
  ModelConfig m;
  m.n_head = 8;
  m.d_model = 8 * 64;
  const auto paths = gpu_attention_paths(m);
  std::vector<std::string> names;
  for (const auto& [name, g] : paths) names.push_back(name);
  // Today's registry: sinusoidal and learned attend as none, alibi-half as alibi; rope-interleaved
  // has no GPU kernel.
  CHECK(names == std::vector<std::string>{"none", "rope", "pope", "rope-half", "alibi"});
  // Every kind with a GPU kernel takes one of the paths, and no two paths are the same kernels.
  std::set<std::tuple<int, int, bool>> keys;
  for (const auto& [name, g] : paths)
    keys.insert({int(g.attention), g.attention == cuda::PEKind::kRope ? g.n_rot : 0, !g.slopes.empty()});
  CHECK(keys.size() == paths.size());
  for (const PEKindInfo& k : pe_kinds()) {
    if (!k.gpu) continue;
    PEConfig pc;
    pc.kind = k.name;
    const GpuPE g = k.gpu(pc, m);
    INFO(k.name);
    CHECK(keys.count({int(g.attention), g.attention == cuda::PEKind::kRope ? g.n_rot : 0, !g.slopes.empty()}) == 1);
  }
  const auto& half = paths[3].second;
  CHECK(half.attention == cuda::PEKind::kRope);
  CHECK(half.n_rot == 32);
  CHECK(paths[4].second.slopes.size() == 8);
}
