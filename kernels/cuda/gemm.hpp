// Row-major matrix products through cuBLASLt: C = alpha op(A) op(B) + beta Cin, fp32 storage,
// with the compute mode chosen per run (fp32 exact, or TF32 tensor cores with fp32 accumulate).
// Descriptors and the heuristic's algorithm are cached per shape.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <tuple>

typedef struct CUstream_st* cudaStream_t;

namespace popebench::cuda {

enum class MatmulMode { kFp32, kTf32 };
MatmulMode parse_matmul_mode(const std::string& s);  // "fp32" | "tf32"

class Gemm {
 public:
  Gemm(MatmulMode mode, size_t workspace_bytes = 32u << 20);
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;
  // C (M, N) row-major, ldc = N; A is (M, K) or, transposed, (K, M); B is (K, N) or (N, K).
  // cin may be nullptr (then beta must be 0) or C itself or another (M, N) buffer.
  void matmul(bool trans_a, bool trans_b, int M, int N, int K, const float* A, const float* B, float* C,
              const float* cin, float beta, cudaStream_t s);
  // y (rows, out) = x (rows, in) W^T [+ add (rows, out)]   (W stored (out, in), as in PyTorch)
  void linear_fwd(const float* x, const float* W, float* y, int rows, int in, int out, const float* add, cudaStream_t s) {
    matmul(false, true, rows, out, in, x, W, y, add, add ? 1.f : 0.f, s);
  }
  // dx (rows, in) = dy (rows, out) W ; dW (out, in) = dy^T x   (both overwritten)
  void linear_bwd(const float* dy, const float* x, const float* W, float* dx, float* dW, int rows, int in, int out,
                  cudaStream_t s) {
    if (dx) matmul(false, false, rows, in, out, dy, W, dx, nullptr, 0.f, s);
    matmul(true, false, out, in, rows, dy, x, dW, nullptr, 0.f, s);
  }

 private:
  struct Plan;
  using Key = std::tuple<bool, bool, int, int, int>;
  Plan& plan(bool ta, bool tb, int M, int N, int K);
  MatmulMode mode_;
  void* handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t ws_bytes_;
  std::map<Key, std::unique_ptr<Plan>> plans_;
};

}  // namespace popebench::cuda
