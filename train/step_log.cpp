#include "train/step_log.hpp"

#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/files.hpp"

namespace popebench {

std::string step_log_path(const std::string& out_json) {
  const std::string ext = ".json";
  const bool json = out_json.size() > ext.size() && out_json.compare(out_json.size() - ext.size(), ext.size(), ext) == 0;
  return (json ? out_json.substr(0, out_json.size() - ext.size()) : out_json) + ".steps.csv";
}

StepLog::StepLog(const std::string& path, int64_t every, int64_t resume_step) : every_(every), path_(path) {
  if (every_ <= 0) return;
  std::string kept = std::string(kStepLogHeader) + "\n";
  if (resume_step >= 0 && file_exists(path)) {
    std::istringstream in(read_file(path));
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const long long step = std::strtoll(line.c_str(), nullptr, 10);
      if (step > resume_step) break;  // rows are in step order: the rest came after the checkpoint
      kept += line + "\n";
    }
  }
  write_file_atomic(path, kept);
  f_ = std::fopen(path.c_str(), "a");
  if (!f_) throw UserError("cannot append to " + path + ": " + std::strerror(errno));
}

StepLog::~StepLog() {
  if (f_) std::fclose(f_);
}

void StepLog::add(int64_t step, double lr, double loss, double grad_norm, double acc) {
  if (!f_ || step % every_ != 0) return;
  // %.9g: a float's value exactly, so that a resumed run's rows equal an uninterrupted one's.
  if (std::fprintf(f_, "%lld,%.9g,%.9g,%.9g,%.9g\n", static_cast<long long>(step), lr, loss, grad_norm, acc) < 0 ||
      std::fflush(f_) != 0)
    throw UserError("cannot write " + path_ + ": " + std::strerror(errno));
}

}  // namespace popebench
