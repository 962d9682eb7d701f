// Small Indirect Indexing configs for tests (the CPU training tests and the GPU model tests use
// different sizes on purpose; the model's vocabulary and length always follow the task).
#pragma once
#include <string>

#include "config/config.hpp"

namespace popebench::test {

struct SmallTask {
  int min_len, max_len, max_shift, alphabet;
};

inline RunConfig small_run_config(const std::string& pe, SmallTask t, int d_model, int n_head, uint64_t n_train) {
  RunConfig c;
  auto& ii = c.task.as<IndirectIndexingConfig>();
  ii.min_len = t.min_len;
  ii.max_len = t.max_len;
  ii.max_shift = t.max_shift;
  ii.alphabet = t.alphabet;
  c.task.n_train = n_train;
  c.model.n_layer = 2;
  c.model.d_model = d_model;
  c.model.n_head = n_head;
  c.size_model_for_task();
  c.pe.kind = pe;
  return c;
}

// The GPU model tests' config: two layers of d_model (64: head dim 32, the smallest the kernels
// take), an odd batch, an evaluation batch of another size, matmul mode as given.
inline RunConfig tiny_gpu_run_config(const std::string& pe, const std::string& matmul, int d_model = 64) {
  RunConfig c = small_run_config(pe, {6, 12, 3, 20}, d_model, /*n_head=*/2, /*n_train=*/256);
  c.model.init_std = 0.1;
  c.train.batch = 9;  // odd
  c.train.eval_batch = 13;
  c.train.device = DeviceChoice::kCuda;
  c.train.gpu_matmul = choices::kGpuMatmul.parse(matmul);
  c.optim.lr = 1e-3;
  c.optim.warmup_steps = 2;
  return c;
}

}  // namespace popebench::test
