// Test runner of the GPU tests. Without a usable GPU it exits 77, which CTest reports as
// skipped (SKIP_RETURN_CODE), so the same test command runs on CPU-only CI and on the GPU box.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing |= std::strncmp(argv[i], "--list", 6) == 0;
  int n = 0;
  if (!listing && (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)) {
    std::printf("no usable CUDA device: GPU test skipped\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
