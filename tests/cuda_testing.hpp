// Helpers for the GPU tests: device buffers poisoned with NaN before every kernel writes them,
// so an element a kernel forgets to write fails the comparison.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.cuh"

namespace popebench::test {

// Marks the running test case as one this machine cannot run (say why), instead of letting it
// pass; the caller returns right after. tests/cuda_main.cpp turns it into CTest's "skipped".
void skip_test_case(const std::string& why);

template <typename T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t n_) : n(n_) {
    CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)));
    poison();
  }
  DevBuf(const std::vector<T>& h) : DevBuf(h.size()) { upload(h); }
  ~DevBuf() { cudaFree(p); }
  void poison() { CUDA_CHECK(cudaMemset(p, 0xFF, std::max<size_t>(n, 1) * sizeof(T))); }  // NaN for floats
  void upload(const std::vector<T>& h) { CUDA_CHECK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> download() const {
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> h(n);
    CUDA_CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

// Elements whose bits differ (a size mismatch counts every element of the longer): a count, so
// that a failing check says how many without printing the vectors.
inline size_t count_differing_bits(const std::vector<float>& a, const std::vector<float>& b) {
  size_t n = a.size() == b.size() ? 0 : std::max(a.size(), b.size());
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) n += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
  return n;
}

// ||got - ref|| / ||ref||; any NaN in got gives +inf.
template <typename A, typename B>
double rel_err(const std::vector<A>& got, const std::vector<B>& ref) {
  double d = 0, r = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(double(got[i]))) return INFINITY;
    d += (double(got[i]) - double(ref[i])) * (double(got[i]) - double(ref[i]));
    r += double(ref[i]) * double(ref[i]);
  }
  return std::sqrt(d) / std::max(std::sqrt(r), 1e-300);
}

template <typename T>
std::vector<float> to_float(const std::vector<T>& v) { return std::vector<float>(v.begin(), v.end()); }

// CPU twin of kernels/cuda/convert.cu: fp32 rounded to bf16 (nearest, ties to even), returned
// as the float it represents. Inputs here are finite.
inline double round_bf16(double x) {
  float f = static_cast<float>(x);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  u &= 0xFFFF0000u;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace popebench::test
