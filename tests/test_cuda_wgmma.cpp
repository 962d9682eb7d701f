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

}  // namespace

TEST_CASE("wgmma products on sw128 tiles match double sums (S = A B^T, O = P V)", "[cuda][wgmma]") {
  if (!wgmma_supported()) {
    skip_test_case("wgmma needs compute capability 9.0 (Hopper)");
    return;
  }
  std::mt19937 rng(2026);
  for (int N : {64, 128})
    for (int K : {64, 128}) {
      const auto A = random_bf16(size_t(64) * K, rng), B = random_bf16(size_t(N) * K, rng);
      const auto P = random_bf16(size_t(64) * K, rng), V = random_bf16(size_t(K) * N, rng);
      DevBuf<uint16_t> dA(A), dB(B), dP(P), dV(V);
      DevBuf<float> dS(size_t(64) * N), dO(size_t(64) * N);
      wgmma_check_products(N, K, dA.p, dB.p, dP.p, dV.p, dS.p, dO.p);
      const auto S = dS.download(), O = dO.download();
      // The products of two bf16 are exact in fp32; the error is the fp32 accumulation's, at most
      // ~K ulps of the sum of |terms| (K <= 128: < 1e-5 of it). A wrong layout or stride moves
      // whole rows, columns or k-blocks: errors of the order of the values themselves.
      size_t bad_s = 0, bad_o = 0;
      for (int r = 0; r < 64; ++r)
        for (int c = 0; c < N; ++c) {
          double s = 0, sa = 0, o = 0, oa = 0;
          for (int k = 0; k < K; ++k) {
            const double ts = bf16_value(A[r * K + k]) * bf16_value(B[c * K + k]);
            const double to = bf16_value(P[r * K + k]) * bf16_value(V[k * N + c]);
            s += ts, sa += std::fabs(ts), o += to, oa += std::fabs(to);
          }
          bad_s += !(std::fabs(S[r * N + c] - s) <= 1e-5 * sa + 1e-30);
          bad_o += !(std::fabs(O[r * N + c] - o) <= 1e-5 * oa + 1e-30);
        }
      INFO("N " << N << ", K " << K);
      CHECK(bad_s == 0);
      CHECK(bad_o == 0);
    }
}

}  // namespace popebench::test
