// Batched matrix products (several runs' products in one call: kernels/cuda/gemm.hpp, GemmBatch)
// against the same products computed one at a time, each on a Gemm of its own as a run trained
// alone has: every output element must be the same bits, in every matmul mode, at the shapes of
// the tests' tiny model and of the paper model. This is what lets a run trained in a batch
// repeat the run trained alone (tests/test_cuda_run_batch.cpp tests the whole model).
#include <catch2/catch.hpp>

#include <tuple>

#include "kernels/cuda/gemm.hpp"
#include "tests/cuda_testing.hpp"
#include "tests/gradcheck.hpp"

using namespace popebench;
using namespace popebench::test;

TEST_CASE("batched products are the same bits as the products computed one run at a time", "[cuda][gemm][batch]") {
  uint64_t seed = 7000;
  for (auto mode : {cuda::MatmulMode::kFp32, cuda::MatmulMode::kTf32, cuda::MatmulMode::kBf16})
    for (int R : {3, 8})
      // (rows, in, out) of linear layers: the tiny test model's blocks and head, the paper model's
      for (auto [rows, in, out] : {std::tuple{96, 32, 96}, std::tuple{96, 128, 32}, std::tuple{8, 32, 20},
                                   std::tuple{3008, 512, 1536}, std::tuple{3008, 512, 512},
                                   std::tuple{3008, 512, 2048}, std::tuple{3008, 2048, 512}, std::tuple{64, 512, 66}}) {
        INFO("mode " << int(mode) << ", R " << R << ", rows " << rows << ", in " << in << ", out " << out);
        const size_t w_stride = size_t(out) * in + 40;  // each run's weights in its own parameter copy
        DevBuf<float> x(to_float(randn(size_t(R) * rows * in, seed++))), w(to_float(randn(R * w_stride, seed++, 0.1))),
            add(to_float(randn(size_t(R) * rows * out, seed++))), dy(to_float(randn(size_t(R) * rows * out, seed++)));
        DevBuf<float> y_b(size_t(R) * rows * out), dx_b(size_t(R) * rows * in), dw_b(R * w_stride);
        DevBuf<float> y_1(y_b.n), dx_1(dx_b.n), dw_1(dw_b.n);
        CUDA_CHECK(cudaMemset(dw_b.p, 0, dw_b.n * sizeof(float)));  // the gaps between runs' weights
        CUDA_CHECK(cudaMemset(dw_1.p, 0, dw_1.n * sizeof(float)));
        cuda::Gemm batched(mode);
        batched.linear_fwd(x.p, w.p, y_b.p, rows, in, out, add.p, nullptr, nullptr, R, w_stride);
        batched.linear_bwd(dy.p, x.p, w.p, dx_b.p, dw_b.p, rows, in, out, nullptr, nullptr, nullptr, R, w_stride);
        for (int r = 0; r < R; ++r) {
          cuda::Gemm alone(mode);
          const size_t xr = size_t(r) * rows * in, yr = size_t(r) * rows * out, wr = r * w_stride;
          alone.linear_fwd(x.p + xr, w.p + wr, y_1.p + yr, rows, in, out, add.p + yr, nullptr);
          alone.linear_bwd(dy.p + yr, x.p + xr, w.p + wr, dx_1.p + xr, dw_1.p + wr, rows, in, out, nullptr);
          CUDA_CHECK(cudaDeviceSynchronize());  // before `alone` frees its scratch
        }
        const cuda::Gemm::BatchedPlans plans = batched.batched_plans();
        INFO("batched calls on the single product's algorithm " << plans.pinned << ", one call per run "
             << plans.looped << ", on the batch's heuristic " << plans.heuristic);
        CHECK(plans.heuristic == 0);
        CHECK(plans.pinned + plans.looped == 3);  // the forward and the two backward products
        CHECK(count_differing_bits(y_b.download(), y_1.download()) == 0);
        CHECK(count_differing_bits(dx_b.download(), dx_1.download()) == 0);
        CHECK(count_differing_bits(dw_b.download(), dw_1.download()) == 0);
      }
}
