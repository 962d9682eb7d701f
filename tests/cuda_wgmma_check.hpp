// The GPU kernel of the wgmma layout test (tests/cuda_wgmma_check.cu), callable from the Catch2
// test (tests/test_cuda_wgmma.cpp). Device pointers; bf16 as its 16 bits.
#pragma once
#include <cstdint>

namespace popebench::test {

// Whether the current device runs wgmma (compute capability 9.0, sm_90a's instructions).
bool wgmma_supported();
// S = A B^T and O = P V on one warpgroup: A (64, KS), B (NS, KS), P (64, KO), V (KO, NO) row-major
// bf16; S (64, NS), O (64, NO) row-major fp32. The shapes the flash kernels use (NS, KS, KO, NO):
// (64, 64, 64, 64), (64, 128, 128, 64), (128, 64, 64, 128), (128, 128, 128, 128), (32, 64, 32,
// 64), (32, 128, 32, 128); another is an error.
struct WgmmaCheckShape {
  int NS, KS, KO, NO;
};
void wgmma_check_products(const WgmmaCheckShape& x, const uint16_t* A, const uint16_t* B, const uint16_t* P,
                          const uint16_t* V, float* S, float* O);

}  // namespace popebench::test
