// The layouts the warpgroup products (kernels/cuda/wgmma_bf16.cuh) rest on, checked on the GPU
// before any kernel uses them: the 128-byte-swizzled tiles, the descriptors' strides for K-major
// and MN-major operands, and the accumulator and register-operand layouts, through S = A B^T
// (both K-major in shared memory) and O = P V (P from registers, V MN-major) on one warpgroup,
// against double sums of the same bf16 inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tests/cuda_testing.hpp"
#include "tests/cuda_wgmma_check.hpp"

namespace popebench::test {
namespace {

uint16_t bf16_bits(double x) {
  const float f = static_cast<float>(round_bf16(x));
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
}
double bf16_value(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::vector<uint16_t> random_bf16(size_t n, std::mt19937& rng) {
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = bf16_bits(nd(rng));
  return v;
}

// How many of a (64, N) fp32 product's entries differ from the double sum over k < K of term(r, c,
// k) by more than 1e-5 of the sum of the terms' magnitudes.
template <typename Term>
size_t count_far_from_double_sums(const std::vector<float>& got, int N, int K, Term&& term) {
  size_t bad = 0;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < N; ++c) {
      double sum = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        const double t = term(r, c, k);
        sum += t, mag += std::fabs(t);
      }
      bad += !(std::fabs(got[r * N + c] - sum) <= 1e-5 * mag + 1e-30);
    }
  return bad;
}

}  // namespace

TEST_CASE("wgmma products on sw128 tiles match double sums (S = A B^T, O = P V)", "[cuda][wgmma]") {
  if (!wgmma_supported()) {
    skip_test_case("wgmma needs compute capability 9.0 (Hopper)");
    return;
  }
  std::mt19937 rng(2026);
  const WgmmaCheckShape shapes[] = {{64, 64, 64, 64}, {64, 128, 128, 64},  {128, 64, 64, 128},
                                    {128, 128, 128, 128}, {32, 64, 32, 64}, {32, 128, 32, 128}};
  for (const auto& x : shapes) {
    const auto A = random_bf16(size_t(64) * x.KS, rng), B = random_bf16(size_t(x.NS) * x.KS, rng);
    const auto P = random_bf16(size_t(64) * x.KO, rng), V = random_bf16(size_t(x.KO) * x.NO, rng);
    DevBuf<uint16_t> dA(A), dB(B), dP(P), dV(V);
    DevBuf<float> dS(size_t(64) * x.NS), dO(size_t(64) * x.NO);
    wgmma_check_products(x, dA.p, dB.p, dP.p, dV.p, dS.p, dO.p);
    const auto S = dS.download(), O = dO.download();
    // The products of two bf16 are exact in fp32; the error is the fp32 accumulation's, at most
    // ~K ulps of the sum of |terms| (K <= 128: < 1e-5 of it). A wrong layout or stride moves
    // whole rows, columns or k-blocks: errors of the order of the values themselves.
    const size_t bad_s = count_far_from_double_sums(S, x.NS, x.KS, [&](int r, int c, int k) {
      return bf16_value(A[r * x.KS + k]) * bf16_value(B[c * x.KS + k]);
    });
    const size_t bad_o = count_far_from_double_sums(O, x.NO, x.KO, [&](int r, int c, int k) {
      return bf16_value(P[r * x.KO + k]) * bf16_value(V[k * x.NO + c]);
    });
    INFO("S (64, " << x.NS << ") over " << x.KS << ", O (64, " << x.NO << ") over " << x.KO);
    CHECK(bad_s == 0);
    CHECK(bad_o == 0);
  }
}

}  // namespace popebench::test
