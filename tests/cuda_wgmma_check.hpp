// The GPU kernel of the wgmma layout test (tests/cuda_wgmma_check.cu), callable from the Catch2
// test (tests/test_cuda_wgmma.cpp). Device pointers; bf16 as its 16 bits.
#pragma once
#include <cstdint>

namespace popebench::test {

// Whether the current device runs wgmma (compute capability 9.0, sm_90a's instructions).
bool wgmma_supported();
// S = A B^T and O = P V on one warpgroup: A (64, K), B (N, K), P (64, K), V (K, N) row-major bf16;
// S, O (64, N) row-major fp32. N, K in {64, 128}.
void wgmma_check_products(int N, int K, const uint16_t* A, const uint16_t* B, const uint16_t* P, const uint16_t* V,
                          float* S, float* O);

}  // namespace popebench::test
