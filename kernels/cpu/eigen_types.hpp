#pragma once
#include <Eigen/Dense>

namespace popebench::cpu {
// All activations and weights are row-major, as in the CUDA path: a (rows, cols) buffer is
// rows contiguous vectors of cols elements.
template <typename T> using MatR = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T> using MapR = Eigen::Map<MatR<T>>;
template <typename T> using CMapR = Eigen::Map<const MatR<T>>;

// The same bits on every machine and for any thread count: what decides the order in which an
// Eigen product adds up its summed dimension is fixed here, once per process, before the first
// product (every op of kernels/cpu that multiplies matrices calls it).
// - Eigen cuts a sum longer than kc terms into kc-long pieces, and kc comes from the L1 data
//   cache size it reads from the CPU (Eigen 3.4, evaluateProductBlockingSizesHeuristic): a
//   48 KiB L1 gives another kc than a 32 KiB one, so a weight gradient (a sum over the batch's
//   token rows) came out in other last bits on another CPU, and a run drifted from there. The
//   committed CPU results (results/quick/) were made where Eigen read 32 KiB, so that is the
//   size fixed (measured: the quick preset's first evaluation repeats bit for bit with 32 KiB on
//   a 48 KiB machine, and differs with 24, 48 or 64). L2 and L3 decide only how the other two
//   dimensions are tiled, which changes no sum: they stay as read, for speed.
// - Eigen's own threading also changes the blocking with the thread count (one rule for several
//   threads, another for one), so Eigen never threads a product itself (setNbThreads(1)); the
//   ops spread independent pieces over OpenMP's threads instead (kernels/cpu/linear.hpp).
inline void fix_eigen_products() {
  static const bool once = [] {
    constexpr std::ptrdiff_t kL1Bytes = 32 * 1024;
    Eigen::setCpuCacheSizes(kL1Bytes, Eigen::l2CacheSize(), Eigen::l3CacheSize());
    Eigen::setNbThreads(1);
    return true;
  }();
  (void)once;
}
}  // namespace popebench::cpu
