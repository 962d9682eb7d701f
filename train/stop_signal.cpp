#include "train/stop_signal.hpp"

#include <atomic>
#include <csignal>
#include <mutex>

namespace popebench {

namespace {
std::atomic<int> g_signal{0};
extern "C" void on_stop_signal(int sig) { g_signal = sig; }

std::mutex g_mu;  // guards the depth and the saved handlers (scopes may open on several threads)
int g_depth = 0;
void (*g_old_int)(int) = SIG_DFL;
void (*g_old_term)(int) = SIG_DFL;
}  // namespace

StopSignalScope::StopSignalScope() {
  std::lock_guard<std::mutex> lk(g_mu);
  if (g_depth++ > 0) return;
  g_signal = 0;
  g_old_int = std::signal(SIGINT, on_stop_signal);
  g_old_term = std::signal(SIGTERM, on_stop_signal);
}

StopSignalScope::~StopSignalScope() {
  std::lock_guard<std::mutex> lk(g_mu);
  if (--g_depth > 0) return;
  std::signal(SIGINT, g_old_int);
  std::signal(SIGTERM, g_old_term);
}

int stop_signal() { return g_signal.load(); }

int stopped_exit_code() {
  const int sig = stop_signal();
  return sig ? 128 + sig : kExitStoppedToResume;
}

}  // namespace popebench
