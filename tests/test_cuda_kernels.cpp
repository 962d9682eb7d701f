// The CUDA kernels but attention (test_cuda_attention.cpp) against the CPU reference computed in
// double, on awkward shapes, with fresh random inputs and NaN-poisoned outputs.
//
// Tolerances (normwise relative error, ||gpu - ref|| / ||ref||):
// - fp32 kernels: 1e-4. fp32 rounding is 6e-8 per operation; the longest sums here (2048-long
//   rows and columns) give a typical relative error of sqrt(n) * 6e-8 ~ 3e-6, and erff / __expf
//   add a few ulp. An indexing or reduction bug gives errors of order 1.
// - TF32 matrix products: 3e-3. Inputs are rounded to 10 mantissa bits (unit roundoff
//   2^-11 = 4.9e-4 each), so a product of two rounded inputs is off by ~1e-3 relative at most,
//   and the normwise error of a sum of K such products is below that.
#include <catch2/catch.hpp>

#include "kernels/cpu/adamw.hpp"
#include "kernels/cpu/cross_entropy.hpp"
#include "kernels/cpu/embedding.hpp"
#include "kernels/cpu/gelu.hpp"
#include "kernels/cpu/linear.hpp"
#include "kernels/cpu/rmsnorm.hpp"
#include "kernels/cuda/gemm.hpp"
#include "kernels/cuda/kernels.hpp"
#include "tests/cuda_testing.hpp"
#include "tests/gradcheck.hpp"

using namespace popebench;
using namespace popebench::test;

namespace {
constexpr double kFp32Tol = 1e-4, kTf32Tol = 3e-3;
uint64_t g_seed = 1000;  // fresh inputs for every case
std::vector<double> rnd(size_t n, double scale = 1.0) { return randn(n, g_seed++, scale); }

}  // namespace

TEST_CASE("bf16 GEMMs are as accurate as the same product done naively in bf16", "[cuda][gemm]") {
  // The reference for the bound: inputs rounded to bf16 (as the GPU rounds them, round_bf16),
  // products and sums in double. Its error against the exact double product is the error bf16
  // inputs cost by themselves (unit roundoff 2^-8 per input, a few 1e-3 normwise here); the GPU adds
  // only fp32 accumulation on top, so it must stay within 1.5x of it. A wrong layout, transpose
  // or stale shadow gives errors of order 1.
  cuda::Gemm gemm(cuda::MatmulMode::kBf16);
  for (auto [M, N, K] : {std::tuple{7, 66, 33}, std::tuple{3008, 512, 512}, std::tuple{1, 5, 3}, std::tuple{97, 130, 2048}}) {
    auto x = rnd(size_t(M) * K), w = rnd(size_t(N) * K), add = rnd(size_t(M) * N), dy = rnd(size_t(M) * N);
    auto exact = [&](const std::vector<double>& xx, const std::vector<double>& ww, const std::vector<double>& dyy) {
      std::vector<double> y(size_t(M) * N), dx(size_t(M) * K), dw(size_t(N) * K, 0.0);
      cpu::linear_fwd(xx.data(), ww.data(), y.data(), M, K, N);
      for (size_t i = 0; i < y.size(); ++i) y[i] += add[i];
      cpu::linear_bwd(dyy.data(), xx.data(), ww.data(), dx.data(), dw.data(), M, K, N);
      return std::tuple{y, dx, dw};
    };
    auto rb = [](std::vector<double> v) {
      for (auto& e : v) e = round_bf16(e);
      return v;
    };
    auto [y, dx, dw] = exact(x, w, dy);
    auto [yn, dxn, dwn] = exact(rb(x), rb(w), rb(dy));  // the naive bf16 computation
    // W comes from a shadow of a larger "parameter buffer" (at an offset), x and dy from scratch.
    const size_t off = 40;
    std::vector<double> params(off + w.size() + 8, 0.25);
    std::copy(w.begin(), w.end(), params.begin() + off);
    DevBuf<float> dP(to_float(params)), dx_(to_float(x)), dadd(to_float(add)), ddy(to_float(dy)), dy_out(y.size()),
        ddx(dx.size()), ddw(dw.size());
    gemm.set_bf16_shadow(dP.p, params.size());
    gemm.refresh_bf16_shadow(nullptr);
    gemm.linear_fwd(dx_.p, dP.p + off, dy_out.p, M, K, N, dadd.p, nullptr);
    gemm.linear_bwd(ddy.p, dx_.p, dP.p + off, ddx.p, ddw.p, M, K, N, nullptr);
    INFO("M=" << M << " N=" << N << " K=" << K);
    const double ey = rel_err(yn, y), edx = rel_err(dxn, dx), edw = rel_err(dwn, dw);
    INFO("naive bf16 errors " << ey << " " << edx << " " << edw);
    CHECK(rel_err(dy_out.download(), y) < 1.5 * ey + 1e-6);
    CHECK(rel_err(ddx.download(), dx) < 1.5 * edx + 1e-6);
    CHECK(rel_err(ddw.download(), dw) < 1.5 * edw + 1e-6);
    CHECK(ey > 1e-4);  // the bound is bf16's, not fp32's: the inputs really were rounded
    // Operands handed over as bf16 mirrors (made here by to_bf16, in the backend by their
    // producers) give the same bits as the converting path.
    DevBuf<uint16_t> xb(x.size()), dyb(dy.size());
    cuda::to_bf16(dx_.p, xb.p, x.size(), nullptr);
    cuda::to_bf16(ddy.p, dyb.p, dy.size(), nullptr);
    DevBuf<float> y2(y.size()), dx2(dx.size()), dw2(dw.size());
    gemm.linear_fwd(dx_.p, dP.p + off, y2.p, M, K, N, dadd.p, nullptr, xb.p);
    gemm.linear_bwd(ddy.p, dx_.p, dP.p + off, dx2.p, dw2.p, M, K, N, nullptr, dyb.p, xb.p);
    CHECK(y2.download() == dy_out.download());
    CHECK(dx2.download() == ddx.download());
    CHECK(dw2.download() == ddw.download());
  }
}

TEST_CASE("to_bf16 rounds like the CPU twin, at any alignment and length", "[cuda][gemm]") {
  for (size_t n : {size_t(1), size_t(7), size_t(4096), size_t(100003)})
    for (size_t off : {size_t(0), size_t(1), size_t(3)}) {
      auto x = rnd(n + off, 100.0);
      DevBuf<float> dX(to_float(x));
      DevBuf<uint16_t> dY(n);
      cuda::to_bf16(dX.p + off, dY.p, n, nullptr);
      auto got = dY.download();
      size_t bad = 0;
      for (size_t i = 0; i < n; ++i) {
        uint32_t u = uint32_t(got[i]) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        bad += f != float(round_bf16(float(x[off + i])));
      }
      INFO("n=" << n << " offset=" << off);
      CHECK(bad == 0);
    }
}

TEST_CASE("GEMMs in fp32 and TF32 match double products at awkward sizes", "[cuda][gemm]") {
  for (auto mode : {cuda::MatmulMode::kFp32, cuda::MatmulMode::kTf32}) {
    cuda::Gemm gemm(mode);
    const double tol = mode == cuda::MatmulMode::kFp32 ? 1e-5 : kTf32Tol;
    for (auto [M, N, K] : {std::tuple{7, 66, 33}, std::tuple{3008, 512, 512}, std::tuple{1, 5, 3}}) {
      auto x = rnd(size_t(M) * K), w = rnd(size_t(N) * K), add = rnd(size_t(M) * N), dy = rnd(size_t(M) * N);
      std::vector<double> y(size_t(M) * N), dx(size_t(M) * K), dw(size_t(N) * K, 0.0);
      cpu::linear_fwd(x.data(), w.data(), y.data(), M, K, N);
      for (size_t i = 0; i < y.size(); ++i) y[i] += add[i];
      cpu::linear_bwd(dy.data(), x.data(), w.data(), dx.data(), dw.data(), M, K, N);
      DevBuf<float> dx_(to_float(x)), dw_(to_float(w)), dadd(to_float(add)), ddy(to_float(dy)), dy_out(y.size()),
          ddx(dx.size()), ddw(dw.size());
      gemm.linear_fwd(dx_.p, dw_.p, dy_out.p, M, K, N, dadd.p, nullptr);
      gemm.linear_bwd(ddy.p, dx_.p, dw_.p, ddx.p, ddw.p, M, K, N, nullptr);
      INFO("M=" << M << " N=" << N << " K=" << K << " mode=" << int(mode));
      CHECK(rel_err(dy_out.download(), y) < tol);
      CHECK(rel_err(ddx.download(), dx) < tol);
      CHECK(rel_err(ddw.download(), dw) < tol);
    }
  }
}

// The bf16 mirrors (kernels.hpp) must be exactly what converting the fp32 output gives, bit for
// bit: the bf16 products then read the same operands as before the producers wrote them, and a
// bf16 training run does not change by where the rounding happens.
TEST_CASE("bf16 mirrors written by rmsnorm, GELU and AdamW equal to_bf16 of their fp32 outputs", "[cuda][ops]") {
  auto same_bits = [](const DevBuf<float>& f32, const DevBuf<uint16_t>& mirror) {
    DevBuf<uint16_t> conv(f32.n);
    cuda::to_bf16(f32.p, conv.p, f32.n, nullptr);
    auto a = conv.download(), b = mirror.download();
    size_t diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff += a[i] != b[i];
    return diff;
  };
  for (auto [N, C] : {std::pair{97, 512}, std::pair{1, 33}, std::pair{3, 130}}) {
    INFO("rmsnorm N=" << N << " C=" << C);
    const size_t NC = size_t(N) * C;
    DevBuf<float> dX(to_float(rnd(NC))), dG(to_float(rnd(C))), dY(NC), dR(N), dDY(to_float(rnd(NC))),
        dDX(to_float(rnd(NC))), dPart(NC);
    DevBuf<uint16_t> yb(NC), dxb(NC);
    cuda::rmsnorm_fwd(dX.p, dG.p, dY.p, dR.p, N, C, nullptr, yb.p);
    cuda::rmsnorm_bwd(dDY.p, dX.p, dG.p, dR.p, dDX.p, dPart.p, N, C, nullptr, dxb.p);
    CHECK(same_bits(dY, yb) == 0);
    CHECK(same_bits(dDX, dxb) == 0);
    // The mirror alone (no fp32 output, as the backend calls it in bf16 mode): the same bits.
    DevBuf<uint16_t> yb_only(NC);
    DevBuf<float> dR2(N);
    cuda::rmsnorm_fwd(dX.p, dG.p, nullptr, dR2.p, N, C, nullptr, yb_only.p);
    CHECK(yb_only.download() == yb.download());
    CHECK(dR2.download() == dR.download());
  }
  for (size_t n : {size_t(1), size_t(7), size_t(100003)}) {
    INFO("gelu n=" << n);
    DevBuf<float> dX(to_float(rnd(n, 3.0))), dY(n), dDX(to_float(rnd(n)));
    DevBuf<uint16_t> yb(n), dxb(n);
    cuda::gelu_fwd(dX.p, dY.p, n, nullptr, yb.p);
    cuda::gelu_bwd(dDX.p, dX.p, dDX.p, n, nullptr, dxb.p);  // in place, as the backend calls it
    CHECK(same_bits(dY, yb) == 0);
    CHECK(same_bits(dDX, dxb) == 0);
    DevBuf<uint16_t> yb_only(n);
    cuda::gelu_fwd(dX.p, nullptr, n, nullptr, yb_only.p);
    CHECK(yb_only.download() == yb.download());
    // The backward's mirror alone (bf16 mode without biases): the same bits, dy left as it was.
    DevBuf<float> dDY(to_float(rnd(n)));
    DevBuf<uint16_t> dxb_only(n), dxb_ref(n);
    const auto dy_before = dDY.download();
    cuda::gelu_bwd(dDY.p, dX.p, nullptr, n, nullptr, dxb_only.p);
    CHECK(dDY.download() == dy_before);
    cuda::gelu_bwd(dDY.p, dX.p, dDY.p, n, nullptr, dxb_ref.p);
    CHECK(dxb_only.download() == dxb_ref.download());
  }
  {
    // AdamW's bf16 copy of the parameters (the bf16 GEMMs' weights): three runs of 1,001
    // parameters at an awkward stride, run 1 idle. The copy of an active run is to_bf16 of its
    // updated parameters; an idle run's parameters and copy stay as they were; the padding past
    // n is no run's and stays unwritten (what the backend's refresh put there).
    const int runs = 3;
    const size_t n = 1001, stride = 1037, all = runs * stride;
    std::vector<double> p = rnd(all), g = rnd(all, 0.1), m = rnd(all, 0.01), v = rnd(all, 0.01);
    for (auto& x : v) x = x * x;
    std::vector<uint8_t> group(n);
    for (size_t i = 0; i < n; ++i) group[i] = uint8_t(i % 4);
    const cuda::AdamWGroups groups{{1.f, 1.f, 0.25f, 3.f}, {0.f, 0.01f, 0.f, 0.05f}};
    std::vector<cuda::AdamWHyper> hyper{{1e-3f, 7.f, 0.5f}, {1e-3f, 7.f, 0.5f, 0.f}, {2e-3f, 3.f, 4.f}};
    DevBuf<float> dp(to_float(p)), dg(to_float(g)), dm(to_float(m)), dv(to_float(v));
    DevBuf<uint8_t> dgroup(group);
    DevBuf<cuda::AdamWHyper> dh(hyper);
    DevBuf<uint16_t> copy(all), before(all), after(all);
    cuda::to_bf16(dp.p, copy.p, all, nullptr);  // as refresh_bf16_shadow leaves it
    cuda::to_bf16(dp.p, before.p, all, nullptr);
    const auto p_before = dp.download();
    cuda::adamw_update(dp.p, dg.p, dm.p, dv.p, dgroup.p, n, dh.p, groups, 0.9f, 0.99f, 1e-8f, 1.f, nullptr, runs,
                       stride, copy.p);
    cuda::to_bf16(dp.p, after.p, all, nullptr);
    const auto got = copy.download(), want = after.download(), old = before.download();
    const auto p_after = dp.download();
    size_t diff = 0, moved = 0;
    for (size_t i = 0; i < all; ++i) diff += got[i] != want[i];
    for (size_t i = 0; i < n; ++i) moved += p_after[stride + i] != p_before[stride + i] || got[stride + i] != old[stride + i];
    CHECK(diff == 0);
    CHECK(moved == 0);  // run 1 is idle
    CHECK(std::vector<float>(p_after.begin(), p_after.begin() + n) != std::vector<float>(p_before.begin(), p_before.begin() + n));
  }
  CHECK_THROWS_WITH(cuda::gelu_bwd(nullptr, nullptr, nullptr, 1, nullptr, nullptr), Catch::Contains("neither"));
  // A forward with no output at all is a caller's bug, refused before the launch.
  CHECK_THROWS_WITH(cuda::gelu_fwd(nullptr, nullptr, 1, nullptr, nullptr), Catch::Contains("neither"));
}

TEST_CASE("rmsnorm gelu embedding cross-entropy reductions and AdamW match the CPU", "[cuda][ops]") {
  for (auto [N, C] : {std::pair{97, 512}, std::pair{1, 33}, std::pair{64, 130}}) {
    auto x = rnd(size_t(N) * C), g = rnd(C), dy = rnd(size_t(N) * C), dx0 = rnd(size_t(N) * C);
    std::vector<double> y(x.size()), rstd(N), dx = dx0, dg(C, 0.0);
    cpu::rmsnorm_fwd(x.data(), g.data(), y.data(), rstd.data(), N, C);
    cpu::rmsnorm_bwd(dy.data(), x.data(), g.data(), rstd.data(), dx.data(), dg.data(), N, C);
    DevBuf<float> dX(to_float(x)), dG(to_float(g)), dY(y.size()), dR(N), dDY(to_float(dy)), dDX(to_float(dx0)),
        dPart(x.size()), dDG(C);
    cuda::rmsnorm_fwd(dX.p, dG.p, dY.p, dR.p, N, C, nullptr);
    cuda::rmsnorm_bwd(dDY.p, dX.p, dG.p, dR.p, dDX.p, dPart.p, N, C, nullptr);
    cuda::column_sum(dPart.p, dDG.p, N, C, nullptr);
    INFO("rmsnorm N=" << N << " C=" << C);
    CHECK(rel_err(dY.download(), y) < kFp32Tol);
    CHECK(rel_err(dDX.download(), dx) < kFp32Tol);
    CHECK(rel_err(dDG.download(), dg) < kFp32Tol);
  }
  {
    const size_t n = 100003;
    auto x = rnd(n, 3.0), dy = rnd(n);
    std::vector<double> y(n), dx(n);
    cpu::gelu_fwd(x.data(), y.data(), n);
    cpu::gelu_bwd(dy.data(), x.data(), dx.data(), n);
    DevBuf<float> dX(to_float(x)), dY(n), dDY(to_float(dy)), dDX(n);
    cuda::gelu_fwd(dX.p, dY.p, n, nullptr);
    cuda::gelu_bwd(dDY.p, dX.p, dDX.p, n, nullptr);
    CHECK(rel_err(dY.download(), y) < kFp32Tol);
    CHECK(rel_err(dDX.download(), dx) < kFp32Tol);
    double ssq = 0;
    for (double v : x) ssq += float(v) * double(float(v));
    DevBuf<float> part(1024), out(1);
    cuda::l2_norm(dX.p, n, part.p, out.p, nullptr);
    CHECK(out.download()[0] == Approx(std::sqrt(ssq)).epsilon(1e-5));
  }
  {
    const int V = 66, C = 40, N = 301;  // = 7 x 43 (the position-table case below)
    std::vector<int32_t> tok(N);
    Pcg32 r(g_seed++, 1);
    for (auto& t : tok) t = int32_t(r.bounded(V - 10));  // some rows unused: they must get zeros
    auto wte = rnd(size_t(V) * C), dxv = rnd(size_t(N) * C);
    std::vector<double> x(size_t(N) * C), dw(size_t(V) * C, 0.0);
    cpu::embedding_fwd(tok.data(), wte.data(), x.data(), N, C);
    cpu::embedding_bwd(tok.data(), dxv.data(), dw.data(), N, C);
    DevBuf<int32_t> dT(tok);
    DevBuf<float> dW(to_float(wte)), dXo(x.size()), dDX(to_float(dxv)), dDW(dw.size());
    cuda::embedding_fwd(dT.p, dW.p, nullptr, dXo.p, N, 1, C, nullptr);
    cuda::embedding_bwd(dT.p, dDX.p, dDW.p, N, C, V, nullptr);
    CHECK(rel_err(dXo.download(), x) < kFp32Tol);
    CHECK(rel_err(dDW.download(), dw) < kFp32Tol);
    // With a position table: N = 7 x 43 rows, a table of 50 positions (longer than T, as when a
    // model is built for longer evaluation sequences); its gradient is the column sum over B.
    const int B = 7, T = 43;
    auto pos = rnd(size_t(50) * C);
    std::vector<double> xp = x, dpos(size_t(T) * C, 0.0);
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c) xp[size_t(n) * C + c] += pos[size_t(n % T) * C + c];
    for (int b = 0; b < B; ++b)
      for (size_t i = 0; i < dpos.size(); ++i) dpos[i] += dxv[size_t(b) * T * C + i];
    DevBuf<float> dPos(to_float(pos)), dDPos(dpos.size());
    cuda::embedding_fwd(dT.p, dW.p, dPos.p, dXo.p, N, T, C, nullptr);
    cuda::column_sum(dDX.p, dDPos.p, B, T * C, nullptr);
    CHECK(rel_err(dXo.download(), xp) < kFp32Tol);
    CHECK(rel_err(dDPos.download(), dpos) < kFp32Tol);
  }
  for (int B : {1, 5, 64}) {
    const int V = 66;
    auto logits = rnd(size_t(B) * V, 4.0);
    std::vector<int32_t> tg(B), corr(B);
    Pcg32 r(g_seed++, 2);
    for (auto& t : tg) t = int32_t(r.bounded(V));
    std::vector<double> probs(logits.size()), dl(logits.size());
    double loss = cpu::cross_entropy_fwd(logits.data(), tg.data(), probs.data(), corr.data(), B, V);
    cpu::cross_entropy_bwd(probs.data(), tg.data(), dl.data(), B, V);
    DevBuf<float> dL(to_float(logits)), dRows(B), dDL(dl.size());
    DevBuf<int32_t> dTg(tg), dC(B);
    cuda::cross_entropy(dL.p, dTg.p, dRows.p, dC.p, dDL.p, B, V, nullptr);
    auto rows = dRows.download();
    double gl = 0;
    for (float v : rows) gl += v;
    CHECK(gl / B == Approx(loss).epsilon(1e-5));
    CHECK(dC.download() == corr);
    CHECK(rel_err(dDL.download(), dl) < kFp32Tol);
  }
  {
    const size_t n = 5000;
    auto p = rnd(n), g = rnd(n, 0.1), m = rnd(n, 0.01), v0 = rnd(n, 0.01);
    for (auto& x : v0) x = x * x;
    std::vector<uint8_t> mask(n);
    // Four groups with their own learning-rate multipliers and decays, mixed element by element.
    const cuda::AdamWGroups groups{{1.f, 1.f, 0.25f, 3.f}, {0.f, 0.01f, 0.f, 0.05f}};
    for (size_t i = 0; i < n; ++i) mask[i] = uint8_t((i * 7) % 4);
    std::vector<double> pr = p, mr = m, vr = v0;
    double norm = std::sqrt(cpu::sum_squares(g.data(), n)), clip = 1.0;
    double scale = norm > clip ? clip / norm : 1.0;
    for (size_t i = 0; i < n; ++i)
      cpu::adamw_update(&pr[i], &g[i], &mr[i], &vr[i], 1, 1e-3 * double(groups.lr_mult[mask[i]]),
                        double(groups.weight_decay[mask[i]]), 0.9, 0.99, 1e-8, 7, scale);
    DevBuf<float> dp(to_float(p)), dg(to_float(g)), dm(to_float(m)), dv(to_float(v0));
    DevBuf<uint8_t> dmask(mask);
    cuda::AdamWHyper hh{1e-3f, 7.f, float(norm)};
    DevBuf<cuda::AdamWHyper> dh(std::vector<cuda::AdamWHyper>{hh});
    cuda::adamw_update(dp.p, dg.p, dm.p, dv.p, dmask.p, n, dh.p, groups, 0.9f, 0.99f, 1e-8f, 1.f, nullptr);
    // Compare the update (p_new - p), not p: that is where a wrong term would show.
    auto pn = dp.download();
    std::vector<double> du_ref(n), du(n);
    for (size_t i = 0; i < n; ++i) {
      du_ref[i] = pr[i] - p[i];
      du[i] = double(pn[i]) - double(float(p[i]));
    }
    CHECK(rel_err(du, du_ref) < 1e-3);  // fp32 subtraction of nearby values: ~1e-4 relative
    CHECK(rel_err(dm.download(), mr) < kFp32Tol);
    CHECK(rel_err(dv.download(), vr) < kFp32Tol);
  }
}
