// Stop requests for a whole command. SIGINT and SIGTERM (Ctrl-C, `timeout`, Slurm preemption)
// set one process-wide flag that every run in flight polls after each step (it checkpoints and
// stops) and that keeps a sweep's job pool from starting another run. The handlers are installed
// by the outermost StopSignalScope and restored when it ends, never by a single run, so a run
// that finishes cannot put back the default handler while other runs still train.
#pragma once
#include <stdexcept>

namespace popebench {

// Thrown when a run stops early on purpose (stop_at, deadline, SIGINT/SIGTERM) after saving its
// checkpoint and a partial run JSON.
struct RunInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Thrown by evaluate() when a stop was asked for (SIGINT / SIGTERM under a StopSignalScope)
// between two of its batches: an evaluation of a large split can take minutes on a CPU, and a
// stop means stop. Callers outside a run see it as an interrupted run (the job pools do).
struct EvalInterrupted : RunInterrupted {
  using RunInterrupted::RunInterrupted;
};

class StopSignalScope {
 public:
  StopSignalScope();   // the outermost one installs the handlers and clears the flag
  ~StopSignalScope();  // the outermost one restores the previous handlers
  StopSignalScope(const StopSignalScope&) = delete;
  StopSignalScope& operator=(const StopSignalScope&) = delete;
};

// The signal that asked to stop (SIGINT, SIGTERM), or 0.
int stop_signal();

// Exit codes of a command that stopped before every run finished (README, "Exit codes"): 75
// (EX_TEMPFAIL) when the stop was asked for by --stop-at or --time-limit, 128 + the signal number
// after SIGINT (130) or SIGTERM (143), as a shell reports a process ended by that signal. Finished
// work is saved either way: rerun the same command to continue.
constexpr int kExitStoppedToResume = 75;
int stopped_exit_code();

}  // namespace popebench
