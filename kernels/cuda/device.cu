#include <cuda_runtime.h>

#include <string>

#include "common/error.hpp"
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

void use_device(int index) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    n = 0;
  }
  if (index < 0 || index >= n)
    throw UserError("GPU " + std::to_string(index) + " requested, but " + std::to_string(n) + " CUDA device" +
                    (n == 1 ? " is" : "s are") + " visible");
  cudaError_t e = cudaSetDevice(index);
  if (e != cudaSuccess) throw UserError("GPU " + std::to_string(index) + ": " + cudaGetErrorString(e));
}
}  // namespace popebench
