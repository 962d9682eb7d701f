// The backends each build provides, for the code that picks one (backend.cpp: a run's backend;
// run_batch.cpp: a batch's engine). Defined in backend/cpu_backend.cpp and, in CUDA builds,
// backend/cuda/factory.cu.
#pragma once
#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace popebench {

class BatchEngine;  // backend/run_batch.hpp

std::unique_ptr<Backend> make_cpu_backend(const RunConfig& cfg);
#ifdef POPEBENCH_HAVE_CUDA_BACKEND
std::unique_ptr<Backend> make_cuda_backend(const RunConfig& cfg);
std::string cuda_backend_cannot_run(const RunConfig& cfg);  // "" or why the CUDA backend cannot train cfg
std::unique_ptr<BatchEngine> make_cuda_batch_engine(const RunConfig& cfg, int runs);
#endif

}  // namespace popebench
