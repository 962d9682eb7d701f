// Which backend trains a run: the GPU when asked for or (auto) when one is usable and its
// kernels cover the config, else the CPU reference.
#include <cstdio>

#include "common/error.hpp"
#include "kernels/device.hpp"
#include "backend/backend.hpp"
#include "backend/device_factories.hpp"

namespace popebench {

std::unique_ptr<Backend> make_backend(const RunConfig& cfg, DeviceChoice device) {
  if (device == DeviceChoice::kCpu) return make_cpu_backend(cfg);
  DeviceInfo info = query_device();
  bool usable = info.cuda_built && info.cuda_devices > 0;
  if (device == DeviceChoice::kCuda && !usable) throw UserError("--device cuda: no usable GPU (" + info.error + ")");
#ifdef POPEBENCH_HAVE_CUDA_BACKEND
  const std::string why_not = cuda_backend_cannot_run(cfg);
  if (usable && !why_not.empty()) {
    if (device == DeviceChoice::kCuda) throw UserError("--device cuda: " + why_not);
    usable = false;
    info.error = why_not;
  }
  if (usable) return make_cuda_backend(cfg);
#else
  if (usable) info.error = "this build has no CUDA training backend";
  if (device == DeviceChoice::kCuda) throw UserError("--device cuda: " + info.error);
#endif
  // The backend trains, evaluates and inspects: the notice names the device, not the task.
  if (info.cuda_built) std::fprintf(stderr, "popebench: using the CPU (%s)\n", info.error.c_str());
  return make_cpu_backend(cfg);
}

}  // namespace popebench
