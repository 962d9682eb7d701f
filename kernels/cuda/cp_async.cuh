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

// The block's threads (nthreads of them) copy `rows` rows of W elements of T (W * sizeof(T) a
// multiple of 16) from src (rows contiguous) to dst (row stride LD elements, 16-byte aligned).
template <int W, int LD, typename T>
__device__ __forceinline__ void copy_rows(T* dst, const T* src, int rows, int nthreads) {
  static_assert(W * sizeof(T) % 16 == 0 && LD * sizeof(T) % 16 == 0, "rows of whole 16-byte chunks");
  constexpr int kPer = 16 / sizeof(T), kChunks = W / kPer;
  for (int i = threadIdx.x; i < rows * kChunks; i += nthreads) {
    const int r = i / kChunks, c = (i % kChunks) * kPer;
    copy16(dst + r * LD + c, src + size_t(r) * W + c);
  }
}

}  // namespace popebench::cuda::async_copy
