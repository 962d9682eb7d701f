// Every CPU op's backward against finite differences of its forward, in double.
// Each check uses the scalar loss sum(R * out) with a fixed random R, so dL/dout = R.
#include <catch2/catch.hpp>

#include "kernels/cpu/attention.hpp"
#include "kernels/cpu/cross_entropy.hpp"
#include "kernels/cpu/embedding.hpp"
#include "kernels/cpu/gelu.hpp"
#include "kernels/cpu/linear.hpp"
#include "kernels/cpu/pope.hpp"
#include "kernels/cpu/rmsnorm.hpp"
#include "kernels/cpu/rope.hpp"
#include "model/pe/pe_pope.hpp"
#include "model/pe/pe_rope.hpp"
#include "tests/gradcheck.hpp"

using namespace popebench;
using namespace popebench::test;
constexpr double kTol = 1e-6;

TEST_CASE("linear backward matches finite differences", "[grad]") {
  const int N = 5, I = 7, O = 4;
  auto x = randn(N * I, 1), w = randn(O * I, 2), R = randn(N * O, 3);
  std::vector<double> y(N * O), dx(N * I), dw(O * I, 0.0);
  auto f = [&] { cpu::linear_fwd(x.data(), w.data(), y.data(), N, I, O); return dot(y, R); };
  cpu::linear_bwd(R.data(), x.data(), w.data(), dx.data(), dw.data(), N, I, O);
  CHECK(gradcheck(f, x, dx) < kTol);
  CHECK(gradcheck(f, w, dw) < kTol);
}

TEST_CASE("rmsnorm backward matches finite differences", "[grad]") {
  const int N = 3, C = 9;
  auto x = randn(N * C, 4), g = randn(C, 5), R = randn(N * C, 6);
  std::vector<double> y(N * C), rstd(N), dx(N * C, 0.0), dg(C, 0.0);
  auto f = [&] { cpu::rmsnorm_fwd(x.data(), g.data(), y.data(), rstd.data(), N, C); return dot(y, R); };
  f();
  cpu::rmsnorm_bwd(R.data(), x.data(), g.data(), rstd.data(), dx.data(), dg.data(), N, C);
  CHECK(gradcheck(f, x, dx) < kTol);
  CHECK(gradcheck(f, g, dg) < kTol);
}

TEST_CASE("gelu backward matches finite differences", "[grad]") {
  auto x = randn(50, 7, 2.0), R = randn(50, 8);
  std::vector<double> y(50), dx(50);
  auto f = [&] { cpu::gelu_fwd(x.data(), y.data(), 50); return dot(y, R); };
  cpu::gelu_bwd(R.data(), x.data(), dx.data(), 50);
  CHECK(gradcheck(f, x, dx) < kTol);
}

TEST_CASE("embedding backward matches finite differences (repeated tokens)", "[grad]") {
  const int V = 6, C = 4, N = 7;
  std::vector<int32_t> tok = {0, 3, 3, 5, 1, 3, 0};
  auto w = randn(V * C, 9), R = randn(N * C, 10);
  std::vector<double> x(N * C), dw(V * C, 0.0);
  auto f = [&] { cpu::embedding_fwd(tok.data(), w.data(), x.data(), N, C); return dot(x, R); };
  cpu::embedding_bwd(tok.data(), R.data(), dw.data(), N, C);
  CHECK(gradcheck(f, w, dw) < kTol);
}

TEST_CASE("cross-entropy backward matches finite differences", "[grad]") {
  const int B = 4, V = 7;
  auto l = randn(B * V, 11, 3.0);
  std::vector<int32_t> t = {0, 6, 3, 3};
  std::vector<double> p(B * V), dl(B * V);
  auto f = [&] { return cpu::cross_entropy_fwd(l.data(), t.data(), p.data(), static_cast<int32_t*>(nullptr), B, V); };
  f();
  cpu::cross_entropy_bwd(p.data(), t.data(), dl.data(), B, V);
  CHECK(gradcheck(f, l, dl) < kTol);
}

TEST_CASE("causal attention backward matches finite differences", "[grad]") {
  for (bool alibi : {false, true}) {
    for (int Tn : {1, 5, 8}) {
      cpu::AttentionShape s{2, 3, Tn, 6, 4};
      const size_t nq = size_t(s.B) * s.H * s.T * s.Dqk, nv = size_t(s.B) * s.H * s.T * s.Dv;
      auto q = randn(nq, 12), k = randn(nq, 13), v = randn(nv, 14), R = randn(nv, 15);
      std::vector<double> o(nv), P(size_t(s.B) * s.H * s.T * s.T), dq(nq), dk(nq), dv(nv);
      std::vector<double> slopes = {0.5, 0.25, 0.125};
      const double* sl = alibi ? slopes.data() : nullptr;
      const double scale = 0.37;
      auto f = [&] { cpu::attention_fwd(q.data(), k.data(), v.data(), o.data(), P.data(), s, scale, sl); return dot(o, R); };
      f();
      cpu::attention_bwd(R.data(), q.data(), k.data(), v.data(), P.data(), dq.data(), dk.data(), dv.data(), s, scale);
      INFO("T=" << Tn << " alibi=" << alibi);
      CHECK(gradcheck(f, q, dq) < kTol);
      CHECK(gradcheck(f, k, dk) < kTol);
      CHECK(gradcheck(f, v, dv) < kTol);
    }
  }
}

TEST_CASE("rope backward matches finite differences also on part of the channels", "[grad]") {
  for (int n_rot : {8, 4}) {
    const int BH = 3, Tn = 7, D = 8;
    auto th = rope_thetas(D, 10000.0);
    auto x = randn(BH * Tn * D, 16), R = randn(BH * Tn * D, 17);
    std::vector<double> y(x.size()), dx(x.size());
    auto f = [&] { cpu::rope_fwd(x.data(), y.data(), BH, Tn, D, n_rot, th.data()); return dot(y, R); };
    cpu::rope_bwd(R.data(), dx.data(), BH, Tn, D, n_rot, th.data());
    CHECK(gradcheck(f, x, dx) < kTol);
  }
}

TEST_CASE("pope backward matches finite differences for x and delta", "[grad]") {
  const int B = 2, H = 3, Tn = 6, D = 4;
  auto th = pope_thetas(D, 10000.0);
  auto x = randn(B * H * Tn * D, 18, 2.0), R = randn(B * H * Tn * 2 * D, 19);
  // delta inside the clamp range, away from its bounds, so finite differences see no kink.
  std::vector<double> delta(H * D);
  Pcg32 r(5, 5);
  for (auto& d : delta) d = -0.2 - 5.8 * r.uniform01();
  std::vector<double> y(R.size()), dx(x.size()), dd(delta.size(), 0.0);
  auto f = [&] { cpu::pope_fwd(x.data(), y.data(), B, H, Tn, D, th.data(), delta.data()); return dot(y, R); };
  cpu::pope_bwd(R.data(), x.data(), dx.data(), B, H, Tn, D, th.data(), delta.data(), dd.data());
  CHECK(gradcheck(f, x, dx) < kTol);
  CHECK(gradcheck(f, delta, dd) < kTol);
  // Query path: no delta.
  std::vector<double> dxq(x.size());
  auto fq = [&] { cpu::pope_fwd(x.data(), y.data(), B, H, Tn, D, th.data(), static_cast<const double*>(nullptr)); return dot(y, R); };
  cpu::pope_bwd(R.data(), x.data(), dxq.data(), B, H, Tn, D, th.data(), static_cast<const double*>(nullptr), static_cast<double*>(nullptr));
  CHECK(gradcheck(fq, x, dxq) < kTol);
}
