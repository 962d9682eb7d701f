#include "kernels/device.hpp"
namespace popebench {
DeviceInfo query_device() {
  DeviceInfo d;
  d.name = "cpu";
  d.error = "this build has no CUDA backend";
  return d;
}
}  // namespace popebench
