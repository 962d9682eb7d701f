#pragma once
#include <Eigen/Dense>

namespace popebench::cpu {
// All activations and weights are row-major, as in the CUDA path: a (rows, cols) buffer is
// rows contiguous vectors of cols elements.
template <typename T> using MatR = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T> using MapR = Eigen::Map<MatR<T>>;
template <typename T> using CMapR = Eigen::Map<const MatR<T>>;
}  // namespace popebench::cpu
