// CudaBackend's benchmark harness (popebench bench) and the tests' loss-and-gradient hook, and the
// functions backend/backend.hpp declares for them: each builds its own backend from a config, so
// that no caller reaches into a Backend it was handed.
// The class and what each file of it holds: backend/cuda/cuda_backend.cuh.
#include <algorithm>
#include <functional>
#include <memory>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/event_timer.hpp"
#include "backend/cuda/cuda_backend.cuh"

namespace popebench {

// For tests: the gradient of one batch's loss (no update), copied to the host (slot 0).
double CudaBackend::loss_and_grad(const Batch& b, std::vector<float>& g) {
  const Span sp{b.B, 0, 1};
  stage_batch(train_host_, b, every_token_, 0);
  upload_batch(train_host_, sp, every_token_);
  forward(sp, true, every_token_);
  backward(sp, every_token_);
  g.resize(total_);
  const int rows = train_rows(b.B);
  CUDA_CHECK(cudaMemcpyAsync(h_loss_rows_, loss_rows_, rows * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaMemcpyAsync(h_correct_, correct_, rows * sizeof(int32_t), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  CUDA_CHECK(cudaMemcpy(g.data(), grads_, total_ * sizeof(float), cudaMemcpyDeviceToHost));
  int correct = 0;
  return read_step_loss(0, b.B, correct);
}

// Benchmark (popebench bench): median milliseconds, CUDA events around each repetition, after
// warm-up. The full step is the captured graph; the parts run eagerly on the same buffers.
// Every slot trains on b (R = 1: the run alone; R > 1: the step of a batch of R runs).
void CudaBackend::build_step_graph(const Batch& b, int steps) {
  for (int i = 0; i < std::max(steps, 3); ++i) {  // the first step is eager, the second captures
    for (int r = 0; r < R_; ++r) stage(r, &b, 1e-4, i + 1);
    step_all();
  }
}

void CudaBackend::launch_step_graph() {
  if (!graph_exec_) throw std::logic_error("CUDA backend: launch_step_graph before build_step_graph");
  CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream_));
}

nlohmann::json CudaBackend::benchmark(const Batch& b, int warmup, int iters) {
  build_step_graph(b, warmup);
  const Span sp = all_runs();
  auto time = [&](const std::function<void()>& f) { return cuda::median_event_ms(stream_, warmup, iters, f); };
  nlohmann::json r;
  r["runs"] = R_;
  r["step_graph_ms"] = time([&] { CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream_)); });
  r["forward_ms"] = time([&] { forward(sp, true, every_token_); });
  r["forward_backward_ms"] = time([&] { forward(sp, true, every_token_); backward(sp, every_token_); });
  r["optimizer_ms"] = time([&] { optimizer_update(); });
  r["gemms_ms"] = time([&] {  // every matrix product of one step, alone (values: whatever the
    for (int l = 0; l < L_; ++l)  // buffers hold; only the time counts)
      for (Product p : {Product::kQkv, Product::kOut, Product::kFc, Product::kProj}) layer_product_fwd(p, l, sp);
    for (int l = L_ - 1; l >= 0; --l)
      for (Product p : {Product::kProj, Product::kFc, Product::kOut, Product::kQkv}) layer_product_bwd(p, l, sp);
  });
  r["attention_ms"] = time([&] {  // fused attention forward and backward of every layer
    for (int l = 0; l < L_; ++l) {
      Layer& a = layers_[l];
      cuda::attention_fwd(attn_args(sp, l), a.qkv, a.att, a.lse, stream_);
      cuda::attention_bwd(attn_args(sp, l, true), a.qkv, a.att, datt_, a.lse, dqkv_,
                          pe_ == cuda::PEKind::kPope ? ddelta_part_ : nullptr, stream_, dtemp_part_);
    }
  });
  forward(sp, true, every_token_);  // leave consistent activations behind
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  return r;
}

nlohmann::json cuda_benchmark_step(const RunConfig& cfg, int runs, const Batch& b, int warmup, int iters,
                                   bool batch_heuristic_products) {
  CudaBackend be(cfg, runs);
  if (batch_heuristic_products) be.use_batch_heuristic_products();
  for (int r = 1; r < runs; ++r) {  // each slot its own seed, as a batch of a sweep's seeds
    RunConfig c = cfg;
    c.train.seed = cfg.train.seed + r;
    be.init_run(r, c);
  }
  nlohmann::json r = be.benchmark(b, warmup, iters);
  r.update(be.describe());
  return r;
}

nlohmann::json cuda_benchmark_streams(const RunConfig& cfg, int runs, const Batch& b, int warmup, int iters) {
  std::vector<std::unique_ptr<CudaBackend>> alone;  // (runs) one backend of one run each
  for (int r = 0; r < runs; ++r) {
    RunConfig c = cfg;
    c.train.seed = cfg.train.seed + r;
    alone.push_back(std::make_unique<CudaBackend>(c, 1));
    alone.back()->build_step_graph(b, warmup);
  }
  cuda::OwnedStream timing;
  std::vector<cudaEvent_t> done(runs + 1);  // done[0]: the fork; done[1 + r]: run r's last step
  for (auto& e : done) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  // One repetition is kStepsPerRep steps of every run: a fork and join per step would stall the
  // streams at every step boundary, which runs trained apart never do; the steps are launched
  // round-robin so that every stream has work queued from the start.
  constexpr int kStepsPerRep = 10;
  const double ms = cuda::median_event_ms(timing, warmup > 0 ? 1 : 0, iters, [&] {
    CUDA_CHECK(cudaEventRecord(done[0], timing));
    for (auto& be : alone) CUDA_CHECK(cudaStreamWaitEvent(be->stream(), done[0], 0));
    for (int k = 0; k < kStepsPerRep; ++k)
      for (auto& be : alone) be->launch_step_graph();
    for (int r = 0; r < runs; ++r) {
      CUDA_CHECK(cudaEventRecord(done[1 + r], alone[r]->stream()));
      CUDA_CHECK(cudaStreamWaitEvent(timing, done[1 + r], 0));
    }
  });
  for (auto& e : done) cudaEventDestroy(e);
  return {{"runs", runs}, {"steps_per_repetition", kStepsPerRep}, {"ms_per_step_of_all_runs", ms / kStepsPerRep}};
}

CapturedRun cuda_train_invalidating_captures(const RunConfig& cfg, const std::vector<Batch>& batches, double lr,
                                             int invalidate) {
  CudaBackend be(cfg);
  be.invalidate_next_captures(invalidate);
  CapturedRun run;
  for (size_t s = 0; s < batches.size(); ++s) run.losses.push_back(be.train_step(batches[s], lr, long(s) + 1).loss);
  std::vector<float> m, v;
  be.get_state(run.params, m, v);
  run.invalidated = be.invalidated_captures();
  run.graph = be.has_step_graph();
  return run;
}

double cuda_loss_and_grad(const RunConfig& cfg, const std::vector<float>& params, const Batch& b, std::vector<float>& g) {
  CudaBackend be(cfg);
  std::vector<float> zero(params.size(), 0.f);
  be.set_state(params, zero, zero);
  return be.loss_and_grad(b, g);
}

}  // namespace popebench
