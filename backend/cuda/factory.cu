// What the CUDA backend can run (the policy make_backend asks before choosing the GPU) and the
// makers backend/make_backend.cpp and backend/run_batch.cpp call. The class: backend/cuda/cuda_backend.cuh.
#include "common/error.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "backend/cuda/cuda_backend.cuh"
#include "backend/device_factories.hpp"
#include "model/pe/pe_registry.hpp"

namespace popebench {

// What the kernels cover: every PE whose registration describes it for them (GpuPE, mapped onto
// the one attention kernel in the constructor, buffers.cu) at head dims 16, 32, 64 and 128
// (attention.cu's instantiations).
std::string cuda_backend_cannot_run(const RunConfig& cfg) {
  if (!pe_kind(cfg.pe.kind).gpu)
    return "positional embedding " + cfg.pe.kind + " has no GPU kernel (GPU: " + pe_kind_list([](const PEKindInfo& k) { return k.gpu != nullptr; }) + ")";
  const int hd = cfg.model.head_dim();
  if (hd != 16 && hd != 32 && hd != 64 && hd != 128)
    return "head dim " + std::to_string(hd) + " has no GPU kernel (16, 32, 64 or 128)";
  return "";
}

// Called by make_backend (backend/make_backend.cpp) after cuda_backend_cannot_run said yes.
std::unique_ptr<Backend> make_cuda_backend(const RunConfig& cfg) {
  try {
    return std::make_unique<CudaBackend>(cfg);
  } catch (const cuda::CudaError& e) {
    throw UserError(e.what());
  }
}

// The device side of a batch of runs (backend/run_batch.hpp), on the current GPU. Every buffer of
// all R runs is allocated here, before the first step: a batch too large for the GPU fails now,
// with the size it needed, rather than after some runs have trained.
std::unique_ptr<BatchEngine> make_cuda_batch_engine(const RunConfig& cfg, int runs) {
  const std::string why_not = cuda_backend_cannot_run(cfg);
  if (!why_not.empty()) throw UserError("--batch-runs: " + why_not);
  try {
    return std::make_unique<CudaBackend>(cfg, runs);
  } catch (const cuda::CudaError& e) {
    throw UserError(e.what());
  } catch (const UserError& e) {
    throw UserError("a batch of " + std::to_string(runs) + " runs: " + e.what() + " (try a smaller --batch-runs)");
  }
}

}  // namespace popebench
