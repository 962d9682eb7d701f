// Device and pinned host buffers owned as one pool and freed together: a backend allocates its
// dozens of buffers through one of these instead of listing every pointer again in a destructor.
// Also the stream the backend's work runs on, owned the same way.
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/cuda/capture_lock.hpp"
#include "kernels/cuda/cuda_check.cuh"

namespace popebench::cuda {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory() {
    DeviceWideLock device_wide;  // cudaFree synchronises the device (capture_lock.hpp)
    for (void* p : device_) cudaFree(p);
    for (void* p : pinned_) cudaFreeHost(p);
  }

  // n elements of T on the current device (n = 0 gets one, so the pointer is never null).
  // Running out of memory is the user's to fix (a smaller batch or model), so it says so in one
  // line rather than as a failed call.
  template <typename T>
  T* device(size_t n) {
    void* p = nullptr;
    const size_t bytes = (n == 0 ? 1 : n) * sizeof(T);
    DeviceWideLock device_wide;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear it: the error is reported, not sticky
      // UserError, as before this pool: `popebench: error: ...`, exit 2, not an internal error.
      throw UserError("out of GPU memory allocating " + std::to_string(bytes >> 20) + " MiB");
    }
    CUDA_CHECK(e);
    device_.push_back(p);
    return static_cast<T*>(p);
  }

  // n elements of T in page-locked host memory, for asynchronous copies a graph can capture.
  template <typename T>
  T* pinned(size_t n) {
    void* p = nullptr;
    DeviceWideLock device_wide;
    CUDA_CHECK(cudaMallocHost(&p, (n == 0 ? 1 : n) * sizeof(T)));
    pinned_.push_back(p);
    return static_cast<T*>(p);
  }

 private:
  std::vector<void*> device_, pinned_;
};

// A non-blocking stream, synchronised and destroyed with its owner: also when the owner's
// constructor throws (out of memory) after the stream was made, which a raw handle leaked.
// Declare it after the DeviceMemory whose buffers its work uses, so that it is synchronised
// before they are freed.
class OwnedStream {
 public:
  OwnedStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  ~OwnedStream() {
    cudaStreamSynchronize(s_);
    cudaStreamDestroy(s_);
  }
  operator cudaStream_t() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace popebench::cuda
