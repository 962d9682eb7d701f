#include "kernels/cuda/gemm.hpp"

#include <cublasLt.h>

#include "kernels/cuda/cuda_check.cuh"

namespace popebench::cuda {

static void lt_check(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS) throw CudaError(std::string("cuBLASLt error in ") + what + ": status " + std::to_string(int(st)));
}

MatmulMode parse_matmul_mode(const std::string& s) {
  if (s == "fp32") return MatmulMode::kFp32;
  if (s == "tf32") return MatmulMode::kTf32;
  throw CudaError("unknown GPU matmul mode '" + s + "' (known: fp32, tf32)");
}

struct Gemm::Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  ~Plan() {
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

Gemm::Gemm(MatmulMode mode, size_t ws) : mode_(mode), ws_bytes_(ws) {
  cublasLtHandle_t h;
  lt_check(cublasLtCreate(&h), "cublasLtCreate");
  handle_ = h;
  CUDA_CHECK(cudaMalloc(&workspace_, ws_bytes_));
}

Gemm::~Gemm() {
  plans_.clear();
  if (handle_) cublasLtDestroy(static_cast<cublasLtHandle_t>(handle_));
  if (workspace_) cudaFree(workspace_);
}

// Row-major C (M x N) = op(A) op(B) is column-major C^T (N x M) = op(B)^T op(A)^T: cuBLASLt is
// called with the operands swapped, each row-major buffer read as its column-major transpose.
Gemm::Plan& Gemm::plan(bool ta, bool tb, int M, int N, int K) {
  Key key{ta, tb, M, N, K};
  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;
  auto p = std::make_unique<Plan>();
  cublasComputeType_t ct = mode_ == MatmulMode::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  lt_check(cublasLtMatmulDescCreate(&p->op, ct, CUDA_R_32F), "MatmulDescCreate");
  cublasOperation_t opa = tb ? CUBLAS_OP_T : CUBLAS_OP_N, opb = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  lt_check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa), "TRANSA");
  lt_check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb), "TRANSB");
  // first operand: row-major B, (K x N) or (N x K); second: row-major A, (M x K) or (K x M)
  lt_check(cublasLtMatrixLayoutCreate(&p->a, CUDA_R_32F, tb ? K : N, tb ? N : K, tb ? K : N), "layout B");
  lt_check(cublasLtMatrixLayoutCreate(&p->b, CUDA_R_32F, ta ? M : K, ta ? K : M, ta ? M : K), "layout A");
  lt_check(cublasLtMatrixLayoutCreate(&p->c, CUDA_R_32F, N, M, N), "layout C");
  cublasLtMatmulPreference_t pref;
  lt_check(cublasLtMatmulPreferenceCreate(&pref), "PreferenceCreate");
  lt_check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes_, sizeof ws_bytes_),
           "pref workspace");
  cublasLtMatmulHeuristicResult_t res;
  int n = 0;
  cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(static_cast<cublasLtHandle_t>(handle_), p->op, p->a, p->b, p->c,
                                                      p->c, pref, 1, &res, &n);
  cublasLtMatmulPreferenceDestroy(pref);
  lt_check(st, "AlgoGetHeuristic");
  if (n == 0) throw CudaError("cuBLASLt found no algorithm for a " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " product");
  p->algo = res.algo;
  auto& ref = *p;
  plans_.emplace(key, std::move(p));
  return ref;
}

void Gemm::matmul(bool ta, bool tb, int M, int N, int K, const float* A, const float* B, float* C, const float* cin,
                  float beta, cudaStream_t s) {
  Plan& p = plan(ta, tb, M, N, K);
  const float alpha = 1.f;
  lt_check(cublasLtMatmul(static_cast<cublasLtHandle_t>(handle_), p.op, &alpha, B, p.a, A, p.b, &beta,
                          cin ? cin : C, p.c, C, p.c, &p.algo, workspace_, ws_bytes_, s),
           "cublasLtMatmul");
}

}  // namespace popebench::cuda
