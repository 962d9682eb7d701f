// The GPU side of tests/test_cuda_wgmma.cpp: one warpgroup computes S = A B^T (A, B K-major in
// sw128 shared-memory tiles, mma_ss) and O = P V (P from registers, V MN-major, mma_rs_mn) with
// the wrappers of kernels/cuda/wgmma_bf16.cuh, as the flash kernels use them.
#include "tests/cuda_wgmma_check.hpp"

#include <cuda_bf16.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/mma_bf16.cuh"
#include "kernels/cuda/wgmma_bf16.cuh"

namespace popebench::test {
namespace {

using bf16 = __nv_bfloat16;
namespace wg = cuda::wgmma;

// Row-major (R, W) bf16 from global into an sw128 tile.
__device__ void to_sw128(unsigned char* tile, const bf16* src, int R, int W) {
  for (int i = threadIdx.x; i < R * W; i += blockDim.x)
    *reinterpret_cast<bf16*>(tile + wg::sw128_offset(R, i / W, i % W)) = src[i];
}

// The warp's accumulators (rows 16 w.., N columns) into row-major (64, N) fp32.
template <int N>
__device__ void store_rows(const float (&d)[N / 2], float* dst) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, c2 = 2 * (lane & 3);
#pragma unroll
  for (int i = 0; i < N / 8; ++i) {
    dst[(16 * w + g) * N + 8 * i + c2] = d[4 * i];
    dst[(16 * w + g) * N + 8 * i + c2 + 1] = d[4 * i + 1];
    dst[(16 * w + g + 8) * N + 8 * i + c2] = d[4 * i + 2];
    dst[(16 * w + g + 8) * N + 8 * i + c2 + 1] = d[4 * i + 3];
  }
}

// A (64, KS), B (NS, KS), P (64, KO), V (KO, NO): row-major bf16. S (64, NS), O (64, NO): fp32.
template <int NS, int KS, int KO, int NO>
__global__ void __launch_bounds__(128) wgmma_check_kernel(const bf16* A, const bf16* B, const bf16* P, const bf16* V,
                                                          float* S, float* O) {
  extern __shared__ unsigned char smem_raw[];
  // sw128 tiles start at multiples of 1024 bytes (the swizzle's repeat).
  unsigned char* tA = wg::align_1024(smem_raw);
  unsigned char* tB = tA + 64 * KS * 2;  // (64, KS)
  unsigned char* tV = tB + NS * KS * 2;  // (NS, KS), then V (KO, NO)
  to_sw128(tA, A, 64, KS);
  to_sw128(tB, B, NS, KS);
  to_sw128(tV, V, KO, NO);
  wg::fence_proxy_async();
  __syncthreads();

  // S = A B^T: KS / 16 instructions, each 16 k of both K-major tiles (32 bytes into a column
  // block of the tile's rows x 128 bytes).
  float s[NS / 2];
#pragma unroll
  for (int i = 0; i < NS / 2; ++i) s[i] = 0.f;
  wg::fence();
#pragma unroll
  for (int kk = 0; kk < KS / 16; ++kk) {
    const int blk = 16 * kk / 64, in = 16 * kk % 64;
    const uint64_t da = wg::sw128_desc(tA + blk * 64 * 128 + in * 2, 16, 1024);
    const uint64_t db = wg::sw128_desc(tB + blk * NS * 128 + in * 2, 16, 1024);
    wg::mma_ss<NS>(s, da, db, 1);
  }
  wg::commit();
  wg::wait<0>();
  wg::fence_operands(s);
  store_rows<NS>(s, S);

  // O = P V: P's 16 k of the warp's rows in mma.sync's A layout, V MN-major from row 16 kk (its
  // column blocks KO x 128 bytes apart).
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, c2 = 2 * (lane & 3);
  auto p = [&](int r, int c) { return __bfloat162float(P[(16 * w + r) * KO + c]); };
  float o[NO / 2];
#pragma unroll
  for (int i = 0; i < NO / 2; ++i) o[i] = 0.f;
  uint32_t a[KO / 16][4];
#pragma unroll
  for (int kk = 0; kk < KO / 16; ++kk) {
    const int c = 16 * kk + c2;
    a[kk][0] = cuda::mma::pack_bf16(p(g, c), p(g, c + 1));
    a[kk][1] = cuda::mma::pack_bf16(p(g + 8, c), p(g + 8, c + 1));
    a[kk][2] = cuda::mma::pack_bf16(p(g, c + 8), p(g, c + 9));
    a[kk][3] = cuda::mma::pack_bf16(p(g + 8, c + 8), p(g + 8, c + 9));
  }
  wg::fence();
#pragma unroll
  for (int kk = 0; kk < KO / 16; ++kk)
    wg::mma_rs_mn<NO>(o, a[kk], wg::sw128_desc(tV + 16 * kk * 128, KO * 128, 1024), 1);
  wg::commit();
  wg::wait<0>();
  wg::fence_operands(o);
  store_rows<NO>(o, O);
}

template <int NS, int KS, int KO, int NO>
void launch(const bf16* A, const bf16* B, const bf16* P, const bf16* V, float* S, float* O) {
  const int bytes = 1024 + 2 * (64 * KS + NS * KS + KO * NO);
  CUDA_CHECK(cudaFuncSetAttribute(wgmma_check_kernel<NS, KS, KO, NO>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  bytes));
  wgmma_check_kernel<NS, KS, KO, NO><<<1, 128, bytes>>>(A, B, P, V, S, O);
  CUDA_CHECK_LAUNCH("wgmma_check_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

bool wgmma_supported() { return wg::device_runs_wgmma(); }

void wgmma_check_products(const WgmmaCheckShape& x, const uint16_t* A, const uint16_t* B, const uint16_t* P,
                          const uint16_t* V, float* S, float* O) {
  const auto* a = reinterpret_cast<const bf16*>(A);
  const auto* b = reinterpret_cast<const bf16*>(B);
  const auto* p = reinterpret_cast<const bf16*>(P);
  const auto* v = reinterpret_cast<const bf16*>(V);
  const auto is = [&](int ns, int ks, int ko, int no) { return x.NS == ns && x.KS == ks && x.KO == ko && x.NO == no; };
  // The flash kernels' shapes: S = Q K^T and O = P V over 64-row tiles (the forward and dQ
  // kernels), S^T = K Q^T over 32 queries and dV = P^T dO, dK' = dS^T Q (the dK dV kernel).
  if (is(64, 64, 64, 64)) return launch<64, 64, 64, 64>(a, b, p, v, S, O);
  if (is(64, 128, 128, 64)) return launch<64, 128, 128, 64>(a, b, p, v, S, O);
  if (is(128, 64, 64, 128)) return launch<128, 64, 64, 128>(a, b, p, v, S, O);
  if (is(128, 128, 128, 128)) return launch<128, 128, 128, 128>(a, b, p, v, S, O);
  if (is(32, 64, 32, 64)) return launch<32, 64, 32, 64>(a, b, p, v, S, O);
  if (is(32, 128, 32, 128)) return launch<32, 128, 32, 128>(a, b, p, v, S, O);
  throw cuda::CudaError("wgmma_check_products: no such shape instantiated (tests/cuda_wgmma_check.cu)");
}

}  // namespace popebench::test
