// SPEC §6 sanity facts, on the CPU reference kernels, in double.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/cpu/pope.hpp"
#include "kernels/cpu/rope.hpp"
#include "models/pe_pope.hpp"
#include "models/pe_rope.hpp"
#include "tests/gradcheck.hpp"

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
