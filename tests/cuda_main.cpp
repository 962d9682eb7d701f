// Test runner of the GPU tests. Without a usable GPU it exits 77, which CTest reports as
// skipped (SKIP_RETURN_CODE), so the same test command runs on CPU-only CI and on the GPU box.
// A test case that cannot run on this GPU (two GPUs needed, another SM size) calls
// skip_test_case (tests/cuda_testing.hpp) instead of passing: when every test case a run started
// was skipped so, the run exits 77 too, so that CTest, which runs one case a process, reports
// that case skipped rather than passed. A run of many cases (the whole binary, as the GPU gate
// runs it) still exits 0 and lists the skipped ones at the end.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include <cuda_runtime.h>

#include "tests/cuda_testing.hpp"

namespace popebench::test {
namespace {
std::set<std::string>& skipped_cases() {
  static std::set<std::string> s;
  return s;
}
}  // namespace
int started_cases = 0;

void skip_test_case(const std::string& why) {
  const std::string name = Catch::getResultCapture().getCurrentTestName();
  if (skipped_cases().insert(name).second) std::printf("SKIPPED: %s: %s\n", name.c_str(), why.c_str());
}
}  // namespace popebench::test

// Counts the test cases a run starts (the registration macro takes an unqualified name).
struct CudaTestCaseCounter : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const&) override { ++popebench::test::started_cases; }
};
CATCH_REGISTER_LISTENER(CudaTestCaseCounter)

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing |= std::strncmp(argv[i], "--list", 6) == 0;
  int n = 0;
  if (!listing && (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)) {
    std::printf("no usable CUDA device: GPU test skipped\n");
    return 77;
  }
  const int rc = Catch::Session().run(argc, argv);
  const auto& skipped = popebench::test::skipped_cases();
  for (const auto& name : skipped) std::printf("skipped on this machine: %s\n", name.c_str());
  if (rc == 0 && !skipped.empty() && int(skipped.size()) == popebench::test::started_cases) return 77;
  return rc;
}
