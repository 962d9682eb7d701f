// Linear layer without bias: y = x W^T, W stored (out, in) row-major as in PyTorch.
//
// The same bits for any thread count and on any CPU. Eigen's own multi-threaded product chooses
// how it blocks the summed dimension from the number of threads, so a sum of more than a few
// hundred terms, such as a weight gradient's over the batch's token rows, was added up in another
// order with another --threads, and runs depended on it: the quick preset with the loss on every
// token, RoPE seed 0, ended at 93.7 % test accuracy with 2 threads and at 73.7 % with 1. Here
// Eigen never threads a product itself and its blocking is fixed (fix_eigen_products,
// eigen_types.hpp); the products are cut into row chunks whose size depends on the shape alone,
// and OpenMP spreads the chunks over the threads. Each output element is then summed in one order
// whatever the thread count (tests/test_linear_threads.cpp).
#pragma once
#include <algorithm>

#include "kernels/cpu/eigen_types.hpp"

namespace popebench::cpu {

namespace detail {
// Rows of the result per chunk: 64 (a multiple of the register blocks of Eigen's AVX kernels,
// 24 rows in float and 12 in double, so that a chunk cuts no block a whole product would make).
// A result of N rows gives ceil(N / 64) chunks: 15 at the quick preset's 960 token rows, 47 at
// the paper model's 3,008; a weight gradient of 512 rows gives 8.
constexpr int kRowChunk = 64;

template <typename T>
using CMapStrided = Eigen::Map<const MatR<T>, 0, Eigen::OuterStride<>>;
}  // namespace detail

// x (N, in), w (out, in) -> y (N, out)
template <typename T>
void linear_fwd(const T* x, const T* w, T* y, int N, int in, int out) {
  fix_eigen_products();
  const int chunks = (N + detail::kRowChunk - 1) / detail::kRowChunk;
#pragma omp parallel for schedule(static)
  for (int c = 0; c < chunks; ++c) {
    const int r0 = c * detail::kRowChunk, rows = std::min(detail::kRowChunk, N - r0);
    MapR<T>(y + static_cast<size_t>(r0) * out, rows, out).noalias() =
        CMapR<T>(x + static_cast<size_t>(r0) * in, rows, in) * CMapR<T>(w, out, in).transpose();
  }
}

// dy (N, out) -> dx (N, in) overwritten (when dx != nullptr), dw (out, in) accumulated.
template <typename T>
void linear_bwd(const T* dy, const T* x, const T* w, T* dx, T* dw, int N, int in, int out) {
  fix_eigen_products();
  const int dx_chunks = dx ? (N + detail::kRowChunk - 1) / detail::kRowChunk : 0;
  const int dw_chunks = (out + detail::kRowChunk - 1) / detail::kRowChunk;
  // One loop over both products' chunks, so that neither waits for the other's slowest thread.
#pragma omp parallel for schedule(static)
  for (int c = 0; c < dx_chunks + dw_chunks; ++c) {
    if (c < dx_chunks) {
      const int r0 = c * detail::kRowChunk, rows = std::min(detail::kRowChunk, N - r0);
      MapR<T>(dx + static_cast<size_t>(r0) * in, rows, in).noalias() =
          CMapR<T>(dy + static_cast<size_t>(r0) * out, rows, out) * CMapR<T>(w, out, in);
    } else {
      // dw's rows o0.. are dy's columns o0..: a (N, rows) block of dy, its rows out apart.
      const int o0 = (c - dx_chunks) * detail::kRowChunk, rows = std::min(detail::kRowChunk, out - o0);
      detail::CMapStrided<T> dy_cols(dy + o0, N, rows, Eigen::OuterStride<>(out));
      MapR<T>(dw + static_cast<size_t>(o0) * in, rows, in).noalias() +=
          dy_cols.transpose() * CMapR<T>(x, N, in);
    }
  }
}

}  // namespace popebench::cpu
