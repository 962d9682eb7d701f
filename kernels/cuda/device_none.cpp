#include "kernels/device.hpp"

#include "common/error.hpp"
namespace popebench {
DeviceInfo query_device() {
  DeviceInfo d;
  d.name = "cpu";
  d.error = "this build has no CUDA backend";
  return d;
}
void use_device(int index) {
  throw UserError("GPU " + std::to_string(index) + " requested, but this build has no CUDA backend");
}
}  // namespace popebench
