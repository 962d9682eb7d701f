// Row-major matrix products through cuBLASLt: C = alpha op(A) op(B) + beta Cin, fp32 storage,
// with the compute mode chosen per run: fp32 exact; TF32 tensor cores with fp32 accumulate; or
// bf16 tensor cores with fp32 accumulate and fp32 output, the operands rounded to bf16 first.
// In bf16 mode the weights come from a bf16 shadow of the parameter buffer, refreshed once per
// step (set_bf16_shadow / refresh_bf16_shadow); other operands are converted into scratch
// buffers on the fly. Descriptors and the heuristic's algorithm are cached per shape.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <tuple>

typedef struct CUstream_st* cudaStream_t;

namespace popebench::cuda {

enum class MatmulMode { kFp32, kTf32, kBf16 };

// Several independent products of one shape in one call (several runs batched as one model,
// kernels.hpp's RunStride): product i reads A + i stride_a and B + i stride_b and writes
// C + i stride_c (a cin other than nullptr: + i stride_c too). count 1: one product, planned
// exactly as before batching existed (no batch attributes), so single runs are unchanged.
struct GemmBatch {
  int count = 1;
  long long stride_a = 0, stride_b = 0, stride_c = 0;
};
MatmulMode parse_matmul_mode(const std::string& s);  // "fp32" | "tf32" | "bf16"

class Gemm {
 public:
  Gemm(MatmulMode mode, size_t workspace_bytes = 32u << 20);
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;
  // The `*_bf16` arguments below: in bf16 mode, a bf16 mirror of that operand that its producer
  // wrote (kernels.hpp), read instead of converting the fp32 buffer; nullptr: convert. Ignored in
  // the other modes.
  // C (M, N) row-major, ldc = N; A is (M, K) or, transposed, (K, M); B is (K, N) or (N, K).
  // cin may be nullptr (then beta must be 0) or C itself or another (M, N) buffer.
  void matmul(bool trans_a, bool trans_b, int M, int N, int K, const float* A, const float* B, float* C,
              const float* cin, float beta, cudaStream_t s, const void* a_bf16 = nullptr, GemmBatch batch = {});
  MatmulMode mode() const { return mode_; }
  // Batched products (GemmBatch::count > 1) are computed, by default, as each product alone is:
  // one strided-batched call on the algorithm cuBLASLt's heuristic picks for the product alone
  // (count 1) when cuBLASLt accepts that algorithm for the batch (cublasLtMatmulAlgoCheck, within
  // the workspace), else one call per product on its own plan (a loop inside the same graph). So
  // that a batched run can repeat the run alone bit for bit: the heuristic's choice for the batch
  // may be another tiling or split of K, which sums in another order. pin_batched_to_single(false),
  // before the first product, takes the heuristic's choice for every batch (the benchmark times
  // both).
  void pin_batched_to_single(bool on);
  // How the batched plans made so far are computed: one batched call on the single product's
  // algorithm, one call per product, or one batched call on the heuristic's choice for the batch
  // (pinning off).
  struct BatchedPlans {
    int pinned = 0, looped = 0, heuristic = 0;
  };
  BatchedPlans batched_plans() const { return batched_plans_; }
  // bf16 mode: operands inside [base, base + n) are read from a bf16 copy of that range, made by
  // refresh_bf16_shadow (call it whenever the range changed, e.g. after each optimizer step).
  // No-op in the other modes.
  void set_bf16_shadow(const float* base, size_t n);
  void refresh_bf16_shadow(cudaStream_t s);
  // The bf16 copy of the whole shadowed range starting at base, for a kernel that updates the
  // range to write it as it goes (adamw_update's p_bf16) instead of refresh_bf16_shadow; nullptr
  // outside bf16 mode or where base is not the range set_bf16_shadow was given.
  void* bf16_shadow_of(const float* base) const;
  // y (rows, out) = x (rows, in) W^T [+ add (rows, out)]   (W stored (out, in), as in PyTorch)
  // runs > 1: that many runs' products at once, run r's rows at r rows (x, y, add) and its W at
  // r w_stride (its copy of the parameters).
  void linear_fwd(const float* x, const float* W, float* y, int rows, int in, int out, const float* add, cudaStream_t s,
                  const void* x_bf16 = nullptr, int runs = 1, size_t w_stride = 0) {
    matmul(false, true, rows, out, in, x, W, y, add, add ? 1.f : 0.f, s, x_bf16,
           GemmBatch{runs, (long long)rows * in, (long long)w_stride, (long long)rows * out});
  }
  // dx (rows, in) = dy (rows, out) W ; dW (out, in) = dy^T x   (both overwritten)
  // (In bf16 mode dy is converted once for both products.) runs, w_stride: as linear_fwd (dW at
  // r w_stride too).
  void linear_bwd(const float* dy, const float* x, const float* W, float* dx, float* dW, int rows, int in, int out,
                  cudaStream_t s, const void* dy_bf16 = nullptr, const void* x_bf16 = nullptr, int runs = 1,
                  size_t w_stride = 0);
  // bf16 mode: grows every scratch slot to n elements now, so that no operand up to that size
  // reallocates one later (a CUDA graph captured before a reallocation would read freed memory).
  void reserve_scratch(size_t n, cudaStream_t s);
  // Incremented whenever a scratch slot is reallocated: a graph captured at another generation
  // holds stale pointers and must be captured again.
  uint64_t scratch_generation() const { return scratch_generation_; }

 private:
  struct Plan;
  using Key = std::tuple<bool, bool, int, int, int, int, long long, long long, long long>;
  Plan& plan(bool ta, bool tb, int M, int N, int K, const GemmBatch& batch);
  // The operand as the product reads it: the fp32 pointer, or in bf16 mode the mirror its
  // producer made, its shadow, or a copy converted into scratch slot `slot`.
  // n: the floats the operand spans (with batches, from the first product's first element to the
  // last one's last).
  const void* operand(const float* p, size_t n, int slot, cudaStream_t s, const void* mirror = nullptr);
  void run(bool ta, bool tb, int M, int N, int K, const void* A, const void* B, float* C, const float* cin, float beta,
           cudaStream_t s, const GemmBatch& batch);
  MatmulMode mode_;
  bool pin_batched_ = true;
  BatchedPlans batched_plans_;
  void* handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t ws_bytes_;
  std::map<Key, std::unique_ptr<Plan>> plans_;
  const float* shadow_base_ = nullptr;  // bf16 mode: the range mirrored in shadow_
  size_t shadow_n_ = 0;
  void* shadow_ = nullptr;              // (shadow_n_) bf16
  void* scratch_[3] = {nullptr, nullptr, nullptr};  // bf16 operand copies, grown on demand
  size_t scratch_n_[3] = {0, 0, 0};
  uint64_t scratch_generation_ = 0;
  void grow_scratch(int slot, size_t n, cudaStream_t s);
};

}  // namespace popebench::cuda
