#include <cuda_runtime.h>

#include <string>

#include "kernels/device.hpp"

namespace popebench {
DeviceInfo query_device() {
  DeviceInfo d;
  d.cuda_built = true;
  d.name = "cpu";
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    // Without a driver the runtime says "driver version is insufficient", which reads like a
    // version problem; say what it means on a machine with no GPU.
    d.error = (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice)
                  ? std::string("no NVIDIA GPU or driver found")
                  : std::string("CUDA: ") + cudaGetErrorString(e);
    cudaGetLastError();  // clear the sticky "no device" error
    return d;
  }
  d.cuda_devices = n;
  if (n > 0) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) d.name = p.name;
  } else {
    d.error = "no CUDA device found";
  }
  return d;
}
}  // namespace popebench
