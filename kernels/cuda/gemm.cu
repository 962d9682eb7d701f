#include "kernels/cuda/gemm.hpp"

#include <cublasLt.h>

#include <memory>
#include <type_traits>

#include "kernels/cuda/capture_lock.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/kernels.hpp"

namespace popebench::cuda {

static void lt_check(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS) throw CudaError(std::string("cuBLASLt error in ") + what + ": status " + std::to_string(int(st)));
}

MatmulMode parse_matmul_mode(const std::string& s) {
  if (s == "fp32") return MatmulMode::kFp32;
  if (s == "tf32") return MatmulMode::kTf32;
  if (s == "bf16") return MatmulMode::kBf16;
  throw CudaError("unknown GPU matmul mode '" + s + "' (known: fp32, tf32, bf16)");
}

struct Gemm::Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool loop = false;  // a batch computed one product at a time (pin_batched_to_single)
  ~Plan() {
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

// Every allocation and free below holds a DeviceWideLock: another thread may be capturing a graph
// (kernels/cuda/capture_lock.hpp).
Gemm::Gemm(MatmulMode mode, size_t ws) : mode_(mode), ws_bytes_(ws) {
  DeviceWideLock device_wide;
  cublasLtHandle_t h;
  lt_check(cublasLtCreate(&h), "cublasLtCreate");
  handle_ = h;
  CUDA_CHECK(cudaMalloc(&workspace_, ws_bytes_));
}

Gemm::~Gemm() {
  DeviceWideLock device_wide;
  plans_.clear();
  cudaFree(shadow_);
  for (void* p : scratch_) cudaFree(p);
  if (handle_) cublasLtDestroy(static_cast<cublasLtHandle_t>(handle_));
  if (workspace_) cudaFree(workspace_);
}

// Row-major C (M x N) = op(A) op(B) is column-major C^T (N x M) = op(B)^T op(A)^T: cuBLASLt is
// called with the operands swapped, each row-major buffer read as its column-major transpose.
Gemm::Plan& Gemm::plan(bool ta, bool tb, int M, int N, int K, const GemmBatch& batch) {
  const bool batched = batch.count > 1;
  Key key{ta, tb, M, N, K, batch.count, batched ? batch.stride_a : 0, batched ? batch.stride_b : 0,
          batched ? batch.stride_c : 0};
  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;
  auto p = std::make_unique<Plan>();
  const bool bf16 = mode_ == MatmulMode::kBf16;
  // bf16 operands, fp32 accumulation and fp32 output (cin and C stay fp32).
  cublasComputeType_t ct = mode_ == MatmulMode::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const cudaDataType_t in_t = bf16 ? CUDA_R_16BF : CUDA_R_32F;
  lt_check(cublasLtMatmulDescCreate(&p->op, ct, CUDA_R_32F), "MatmulDescCreate");
  cublasOperation_t opa = tb ? CUBLAS_OP_T : CUBLAS_OP_N, opb = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  lt_check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa), "TRANSA");
  lt_check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb), "TRANSB");
  // first operand: row-major B, (K x N) or (N x K); second: row-major A, (M x K) or (K x M)
  lt_check(cublasLtMatrixLayoutCreate(&p->a, in_t, tb ? K : N, tb ? N : K, tb ? K : N), "layout B");
  lt_check(cublasLtMatrixLayoutCreate(&p->b, in_t, ta ? M : K, ta ? K : M, ta ? M : K), "layout A");
  lt_check(cublasLtMatrixLayoutCreate(&p->c, CUDA_R_32F, N, M, N), "layout C");
  cublasLtMatmulPreference_t pref_raw;
  lt_check(cublasLtMatmulPreferenceCreate(&pref_raw), "PreferenceCreate");
  const std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, decltype(&cublasLtMatmulPreferenceDestroy)>
      pref(pref_raw, &cublasLtMatmulPreferenceDestroy);
  lt_check(cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes_,
                                                sizeof ws_bytes_),
           "pref workspace");
  if (bf16) {
    // operand() hands over only 16-byte-aligned bf16 pointers; say so, so that no algorithm
    // needing more is picked (the default assumption is 256 bytes).
    uint32_t align = 16;
    for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      lt_check(cublasLtMatmulPreferenceSetAttribute(pref.get(), attr, &align, sizeof align), "pref alignment");
  }
  // The heuristic's algorithm for the layouts as they are when it is called.
  auto heuristic = [&]() {
    cublasLtMatmulHeuristicResult_t res;
    int n = 0;
    lt_check(cublasLtMatmulAlgoGetHeuristic(static_cast<cublasLtHandle_t>(handle_), p->op, p->a, p->b, p->c, p->c,
                                            pref.get(), 1, &res, &n),
             "AlgoGetHeuristic");
    if (n == 0)
      throw CudaError("cuBLASLt found no algorithm for a " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                      std::to_string(K) + " product");
    return res.algo;
  };
  // Before the batch attributes: the algorithm a run alone gets for this product (see
  // pin_batched_to_single), the same query with the same preference as its own plan makes.
  cublasLtMatmulAlgo_t single{};
  const bool pin = batched && pin_batched_;
  if (pin) single = heuristic();
  if (batched) {  // the swapped operands: layout a is row-major B, layout b is row-major A
    const int32_t count = batch.count;
    const std::pair<cublasLtMatrixLayout_t, int64_t> strided[] = {{p->a, batch.stride_b}, {p->b, batch.stride_a},
                                                                  {p->c, batch.stride_c}};
    for (const auto& [layout, stride] : strided) {
      lt_check(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
               "batch count");
      lt_check(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                sizeof stride),
               "batch stride");
    }
  }
  bool pinned = false;
  if (pin) {
    cublasLtMatmulHeuristicResult_t check{};
    pinned = cublasLtMatmulAlgoCheck(static_cast<cublasLtHandle_t>(handle_), p->op, p->a, p->b, p->c, p->c, &single,
                                     &check) == CUBLAS_STATUS_SUCCESS &&
             check.workspaceSize <= ws_bytes_;
  }
  if (pinned) {
    p->algo = single;
    ++batched_plans_.pinned;
  } else if (pin) {
    p->loop = true;  // run() calls the single product's own plan once per product
    ++batched_plans_.looped;
  } else {
    p->algo = heuristic();
    if (batched) ++batched_plans_.heuristic;
  }
  auto& ref = *p;
  plans_.emplace(key, std::move(p));
  return ref;
}

void Gemm::pin_batched_to_single(bool on) {
  if (!plans_.empty()) throw CudaError("Gemm::pin_batched_to_single after the first product was planned");
  pin_batched_ = on;
}

void Gemm::set_bf16_shadow(const float* base, size_t n) {
  if (mode_ != MatmulMode::kBf16) return;
  DeviceWideLock device_wide;
  cudaFree(shadow_);
  shadow_ = nullptr;
  CUDA_CHECK(cudaMalloc(&shadow_, n * 2));
  shadow_base_ = base;
  shadow_n_ = n;
}

void* Gemm::bf16_shadow_of(const float* base) const {
  return mode_ == MatmulMode::kBf16 && shadow_ && base == shadow_base_ ? shadow_ : nullptr;
}

void Gemm::refresh_bf16_shadow(cudaStream_t s) {
  if (mode_ == MatmulMode::kBf16 && shadow_) to_bf16(shadow_base_, shadow_, shadow_n_, s);
}

const void* Gemm::operand(const float* p, size_t n, int slot, cudaStream_t s, const void* mirror) {
  if (mode_ != MatmulMode::kBf16) return p;
  if (mirror) {
    if (reinterpret_cast<uintptr_t>(mirror) % 16 != 0) throw CudaError("bf16 GEMM: a bf16 operand is not 16-byte aligned");
    return mirror;
  }
  if (shadow_ && p >= shadow_base_ && p + n <= shadow_base_ + shadow_n_) {
    const void* q = static_cast<const char*>(shadow_) + 2 * size_t(p - shadow_base_);
    if (reinterpret_cast<uintptr_t>(q) % 16 == 0) return q;  // else: an aligned copy below
  }
  if (scratch_n_[slot] < n) grow_scratch(slot, n, s);
  to_bf16(p, scratch_[slot], n, s);
  return scratch_[slot];
}

// A graph captured earlier holds the old buffer's address: the generation tells its owner.
void Gemm::grow_scratch(int slot, size_t n, cudaStream_t s) {
  cudaStreamCaptureStatus cap;
  CUDA_CHECK(cudaStreamIsCapturing(s, &cap));
  if (cap != cudaStreamCaptureStatusNone)
    throw CudaError("bf16 GEMM: an operand outgrew its scratch buffer during graph capture");
  CUDA_CHECK(cudaStreamSynchronize(s));
  DeviceWideLock device_wide;
  cudaFree(scratch_[slot]);
  scratch_[slot] = nullptr;
  CUDA_CHECK(cudaMalloc(&scratch_[slot], n * 2));
  scratch_n_[slot] = n;
  ++scratch_generation_;
}

void Gemm::reserve_scratch(size_t n, cudaStream_t s) {
  if (mode_ != MatmulMode::kBf16) return;
  for (int slot = 0; slot < 3; ++slot)
    if (scratch_n_[slot] < n) grow_scratch(slot, n, s);
}

// The floats from a batched operand's first element to its last (size: one product's).
static size_t span(size_t size, int count, long long stride) { return size + size_t(count - 1) * size_t(stride); }

void Gemm::matmul(bool ta, bool tb, int M, int N, int K, const float* A, const float* B, float* C, const float* cin,
                  float beta, cudaStream_t s, const void* a_bf16, GemmBatch batch) {
  const void* a = operand(A, span(size_t(M) * K, batch.count, batch.stride_a), 0, s, a_bf16);
  const void* b = operand(B, span(size_t(K) * N, batch.count, batch.stride_b), 1, s);
  run(ta, tb, M, N, K, a, b, C, cin, beta, s, batch);
}

void Gemm::linear_bwd(const float* dy, const float* x, const float* W, float* dx, float* dW, int rows, int in, int out,
                      cudaStream_t s, const void* dy_bf16, const void* x_bf16, int runs, size_t w_stride) {
  const long long dy_stride = (long long)rows * out, x_stride = (long long)rows * in, ws = (long long)w_stride;
  const void* dy_op = operand(dy, span(size_t(rows) * out, runs, dy_stride), 0, s, dy_bf16);
  if (dx)
    run(false, false, rows, in, out, dy_op, operand(W, span(size_t(out) * in, runs, ws), 1, s), dx, nullptr, 0.f, s,
        GemmBatch{runs, dy_stride, ws, x_stride});
  run(true, false, out, in, rows, dy_op, operand(x, span(size_t(rows) * in, runs, x_stride), 2, s, x_bf16), dW, nullptr,
      0.f, s, GemmBatch{runs, dy_stride, x_stride, ws});
}

void Gemm::run(bool ta, bool tb, int M, int N, int K, const void* A, const void* B, float* C, const float* cin,
               float beta, cudaStream_t s, const GemmBatch& batch) {
  Plan& p = plan(ta, tb, M, N, K, batch);
  if (p.loop) {
    // Operands are bf16 in bf16 mode, else fp32; C and cin always fp32. Strides count elements.
    const size_t in_bytes = mode_ == MatmulMode::kBf16 ? 2 : 4;
    for (int i = 0; i < batch.count; ++i)
      run(ta, tb, M, N, K, static_cast<const char*>(A) + i * batch.stride_a * in_bytes,
          static_cast<const char*>(B) + i * batch.stride_b * in_bytes, C + i * batch.stride_c,
          cin ? cin + i * batch.stride_c : nullptr, beta, s, GemmBatch{});
    return;
  }
  const float alpha = 1.f;
  lt_check(cublasLtMatmul(static_cast<cublasLtHandle_t>(handle_), p.op, &alpha, B, p.a, A, p.b, &beta,
                          cin ? cin : C, p.c, C, p.c, &p.algo, workspace_, ws_bytes_, s),
           "cublasLtMatmul");
}

}  // namespace popebench::cuda
