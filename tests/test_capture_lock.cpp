// The lock between graph captures and device-wide CUDA calls (kernels/cuda/capture_lock.hpp):
// plain C++, so its rules are checked here on every machine; what it protects (captures that no
// other thread's cudaMalloc or cudaFree invalidates) is tested on the GPU in
// tests/test_cuda_model.cpp. Another thread probes the mutex with try_lock, so that no check
// depends on timing.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <thread>

#include "kernels/cuda/capture_lock.hpp"

using popebench::cuda::CaptureLock;
using popebench::cuda::DeviceWideLock;

namespace {
// What another thread can take right now: the lock exclusively (a device-wide call) or shared (a capture).
bool other_thread_can_lock(bool exclusive) {
  bool got = false;
  std::thread([&] {
    auto& m = popebench::cuda::detail::capture_mutex();
    got = exclusive ? m.try_lock() : m.try_lock_shared();
    if (got) exclusive ? m.unlock() : m.unlock_shared();
  }).join();
  return got;
}
}  // namespace

TEST_CASE("device-wide sections nest within a thread and hold off every other thread until the outermost ends", "[capture_lock]") {
  {
    DeviceWideLock outer;
    {
      DeviceWideLock inner;  // a second acquisition by the same thread must not wait for itself
      CHECK_FALSE(other_thread_can_lock(false));
    }
    CHECK_FALSE(other_thread_can_lock(false));  // the inner section's end does not release the outer
    CHECK_FALSE(other_thread_can_lock(true));
  }
  CHECK(other_thread_can_lock(true));
}

TEST_CASE("a capture lets other threads capture, holds off their device-wide calls, and does not wait for its own", "[capture_lock]") {
  {
    CaptureLock capture;
    CHECK(other_thread_can_lock(false));        // captures on several threads at once
    CHECK_FALSE(other_thread_can_lock(true));   // another thread's cudaMalloc or cudaFree waits
    {
      DeviceWideLock own;  // this thread's own device-wide call inside its capture: no wait
      CHECK_FALSE(other_thread_can_lock(true));
    }
    CHECK(other_thread_can_lock(false));  // and it took nothing that outlives it
  }
  CHECK(other_thread_can_lock(true));
  DeviceWideLock after;  // a device-wide section after the capture locks again
  CHECK_FALSE(other_thread_can_lock(false));
}

TEST_CASE("a capture started inside a device-wide section is refused instead of waiting for itself", "[capture_lock]") {
  {
    DeviceWideLock section;
    CHECK_THROWS_AS(CaptureLock(), std::logic_error);
    CHECK_FALSE(other_thread_can_lock(false));  // the section still holds
  }
  CHECK(other_thread_can_lock(true));
}
