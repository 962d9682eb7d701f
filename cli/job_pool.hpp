// The run lists of `reproduce` and `extrapolate`: jobs taken in order by `concurrent` threads
// (on a GPU each run has its own stream, graph and buffers, so runs overlap on the device).
#pragma once
#include <atomic>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/files.hpp"
#include "models/trainer.hpp"

namespace popebench::cli {

// Runs job(0..n-1). A job that stops early on purpose (RunInterrupted: time limit, signal) is
// reported and the others go on; returns false when any did. The first job that failed is
// rethrown, named by label(k), after every thread has finished.
inline bool run_jobs(size_t n, int concurrent, const std::function<void(size_t)>& job,
                     const std::function<std::string(size_t)>& label) {
  std::vector<std::string> errors(n);
  std::atomic<size_t> next{0};
  std::atomic<bool> interrupted{false};
  std::mutex log_mu;
  auto worker = [&]() {
    for (size_t k = next++; k < n; k = next++) {
      try {
        job(k);
      } catch (const RunInterrupted& e) {
        interrupted = true;
        std::lock_guard<std::mutex> g(log_mu);
        std::fprintf(stderr, "popebench: %s: %s\n", label(k).c_str(), e.what());
      } catch (const std::exception& e) {
        errors[k] = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min<int>(concurrent, static_cast<int>(n)); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (size_t k = 0; k < n; ++k)
    if (!errors[k].empty()) throw UserError(label(k) + ": " + errors[k]);
  return !interrupted;
}

}  // namespace popebench::cli
