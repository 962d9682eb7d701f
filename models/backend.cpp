// Which backend trains a run: the GPU when asked for or (auto) when one is usable and its
// kernels cover the config, else the CPU reference.
#include <cstdio>

#include "common/error.hpp"
#include "kernels/device.hpp"
#include "models/backend.hpp"
#include "models/run_batch.hpp"

namespace popebench {

std::unique_ptr<Backend> make_cpu_backend(const RunConfig& cfg);  // models/cpu_backend.cpp
std::unique_ptr<Backend> make_cuda_backend(const RunConfig& cfg);  // models/cuda/factory.cu, when built
#ifdef POPEBENCH_HAVE_CUDA_BACKEND
std::string cuda_backend_cannot_run(const RunConfig& cfg);        // the same file: "" or why not
std::unique_ptr<BatchEngine> make_cuda_batch_engine(const RunConfig& cfg, int runs);  // likewise
#endif

std::unique_ptr<Backend> make_backend(const RunConfig& cfg, const std::string& device) {
  if (device == "cpu") return make_cpu_backend(cfg);
  DeviceInfo info = query_device();
  bool usable = info.cuda_built && info.cuda_devices > 0;
  if (device == "cuda" && !usable) throw UserError("--device cuda: no usable GPU (" + info.error + ")");
#ifdef POPEBENCH_HAVE_CUDA_BACKEND
  const std::string why_not = cuda_backend_cannot_run(cfg);
  if (usable && !why_not.empty()) {
    if (device == "cuda") throw UserError("--device cuda: " + why_not);
    usable = false;
    info.error = why_not;
  }
  if (usable) return make_cuda_backend(cfg);
#else
  if (usable) info.error = "this build has no CUDA training backend";
  if (device == "cuda") throw UserError("--device cuda: " + info.error);
#endif
  // The backend trains, evaluates and inspects: the notice names the device, not the task.
  if (info.cuda_built) std::fprintf(stderr, "popebench: using the CPU (%s)\n", info.error.c_str());
  return make_cpu_backend(cfg);
}

void require_batch_device(const RunConfig& cfg) {
  if (cfg.train.device == "cpu") throw UserError("--batch-runs needs the GPU (--device cuda or auto)");
  const DeviceInfo info = query_device();
  if (!info.cuda_built || info.cuda_devices == 0) throw UserError("--batch-runs needs a usable GPU (" + info.error + ")");
}

bool runs_batch_on_gpu(const RunConfig& cfg) {
  if (cfg.train.device == "cpu") return false;
  const DeviceInfo info = query_device();
  if (!info.cuda_built || info.cuda_devices == 0) return false;
#ifdef POPEBENCH_HAVE_CUDA_BACKEND
  return cuda_backend_cannot_run(cfg).empty();
#else
  return false;
#endif
}

std::unique_ptr<BatchEngine> make_batch_engine(const RunConfig& cfg, int runs) {
  require_batch_device(cfg);
#ifdef POPEBENCH_HAVE_CUDA_BACKEND
  return make_cuda_batch_engine(cfg, runs);
#else
  (void)runs;
  throw UserError("--batch-runs: this build has no CUDA training backend");
#endif
}

}  // namespace popebench
