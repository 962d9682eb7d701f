// Which accelerator this process can use. Implemented by kernels/cuda/device.cu when the CUDA
// backend is built and by kernels/cuda/device_none.cpp otherwise, so callers never need #ifdefs.
#pragma once
#include <string>

namespace popebench {

struct DeviceInfo {
  bool cuda_built = false;     // this binary has the CUDA backend
  int cuda_devices = 0;        // usable devices found at run time
  std::string name;            // e.g. "NVIDIA H200"; "cpu" when none
  std::string error;           // why no device is usable, when none is
};
DeviceInfo query_device();
// Makes CUDA device `index` the calling thread's device (every backend built on this thread
// afterwards lives there). A UserError when the index is not a usable device.
void use_device(int index);

}  // namespace popebench
