// The per-step training log beside a run JSON (RUN.steps.csv): every N steps one row with the
// step, its learning rate, the step's loss, gradient norm (before clipping) and accuracy on its
// batch, for curves finer than the run JSON's evaluation points. Rows are flushed as written;
// a resumed run first drops the rows past its checkpoint (written after it by a run that was
// then killed), so the file of a stopped and resumed run is the file of an uninterrupted one.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace popebench {

// RUN.json -> RUN.steps.csv (any other name: NAME.steps.csv).
std::string step_log_path(const std::string& out_json);
// The file's first line, without its line break; `export --steps` checks it.
inline constexpr const char* kStepLogHeader = "step,lr,loss,grad_norm,train_acc";

class StepLog {
 public:
  // every <= 0: no log, no file. resume_step >= 0: continue the file, keeping its rows of steps
  // <= resume_step; < 0: a new file (an existing one is replaced).
  StepLog(const std::string& path, int64_t every, int64_t resume_step);
  ~StepLog();
  StepLog(const StepLog&) = delete;
  StepLog& operator=(const StepLog&) = delete;
  // Writes a row when step is a multiple of every. acc: hits / examples of the step's batch.
  void add(int64_t step, double lr, double loss, double grad_norm, double acc);

 private:
  int64_t every_;
  std::FILE* f_ = nullptr;
  std::string path_;
};

}  // namespace popebench
