// Asynchronous global -> shared copies (PTX cp.async, sm_80 and later): a thread starts a 16-byte
// copy and goes on; the copies a thread started are grouped by commit, and wait<N> blocks until
// at most N of its groups are still in flight. Other threads' copies are visible only after a
// __syncthreads that follows each thread's wait. The flash kernels use them to load the next key
// tile while the current one is in the tensor cores (FlashAttention-2's double buffer).
#pragma once

namespace popebench::cuda::async_copy {

// dst (shared) and src (global) 16-byte aligned. .cg: through L2 only; the tiles are read once
// per block, so L1 would only be evicted by them.
__device__ __forceinline__ void copy16(void* dst, const void* src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// The block's NThreads threads copy Rows rows of W elements of T (W * sizeof(T) a multiple of 16)
// from src (rows contiguous) to dst (row stride LD elements, 16-byte aligned). Every count is a
// template parameter so that the loop unrolls into straight-line copies at constant offsets:
// with the counts at run time (as first written) the compiler kept a loop with signed divisions
// and a remainder, ~16 instructions a 16-byte copy, ~2 of the forward's ~20 PTX instructions an
// mma at D 64 (bench/log/036).
template <int W, int LD, int Rows, int NThreads, typename T>
__device__ __forceinline__ void copy_rows(T* dst, const T* src) {
  static_assert(W * sizeof(T) % 16 == 0 && LD * sizeof(T) % 16 == 0, "rows of whole 16-byte chunks");
  constexpr int kPer = 16 / sizeof(T), kChunks = W / kPer, kTotal = Rows * kChunks;
  const unsigned t = threadIdx.x;
  if constexpr (NThreads % kChunks == 0 && kTotal % NThreads == 0) {
    // Each thread keeps one column chunk and steps down the rows.
    constexpr int kRowStep = NThreads / kChunks;
    const unsigned r0 = t / kChunks, c = t % kChunks * kPer;
#pragma unroll
    for (int j = 0; j < kTotal / NThreads; ++j) {
      const unsigned r = r0 + j * kRowStep;
      copy16(dst + r * LD + c, src + size_t(r) * W + c);
    }
  } else {
#pragma unroll
    for (int j = 0; j < (kTotal + NThreads - 1) / NThreads; ++j) {
      const unsigned i = t + j * NThreads;
      if (i < unsigned(kTotal)) {
        const unsigned r = i / kChunks, c = i % kChunks * kPer;
        copy16(dst + r * LD + c, src + size_t(r) * W + c);
      }
    }
  }
}

}  // namespace popebench::cuda::async_copy
