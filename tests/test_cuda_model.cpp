// The whole model on the GPU against the CPU reference: loss and every parameter's gradient of a
// tiny config for each PE, ten training steps, and run-to-run determinism.
#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <thread>

#include "cli/job_pool.hpp"
#include "kernels/device.hpp"
#include "backend/backend.hpp"
#include "model/pe/pe_registry.hpp"
#include "kernels/cpu/pope.hpp"
#include "model/transformer.hpp"
#include "train/schedule.hpp"
#include "tests/cuda_testing.hpp"
#include "tests/test_configs.hpp"

using namespace popebench;
using namespace popebench::test;

namespace {
RunConfig tiny(const std::string& pe, const std::string& matmul, int d_model = 64) {
  return tiny_gpu_run_config(pe, matmul, d_model);
}
Batch batch_of(const RunConfig& c, const Dataset& d, size_t first, int n, int pad_to) {
  std::vector<size_t> idx;
  for (int i = 0; i < n; ++i) idx.push_back(first + i);
  return make_training_batch(d, idx, pad_to, c);  // with c's loss fields, as the trainer's
}
}  // namespace

TEST_CASE("GPU loss and gradients equal the CPU reference for every PE", "[cuda][model]") {
  // fp32 GEMMs: every op is fp32 against a double reference, so per-parameter-block gradients
  // agree to ~1e-5; 1e-4 leaves room for the long reductions. TF32: inputs of each product are
  // rounded to 2^-11, which the backward compounds over 2 layers: 2e-2.
  // Every PE kind, plus RoPE with a test-time scaling (PI, NTK) and a model built for longer
  // sequences than the batch (max_len > T: learned and sinusoidal tables longer than used).
  // The screen's model-level options too (tests/test_screen_options.cpp): increasing
  // frequencies, other attention temperatures, a context crop and left padding (the task's
  // inputs run to 18 tokens, so a context of 9 crops most of them).
  struct Variant {
    std::string pe, scaling;
    int extra_len;
    std::string option = "";                      // for the message
    std::function<void(RunConfig&)> tweak = nullptr;
  };
  std::vector<Variant> variants;
  for (const PEKindInfo& kind : pe_kinds())  // every PE the registry describes for the GPU
    if (kind.gpu) variants.push_back({kind.name, "none", 0});
  variants.push_back({"rope", "pi", 0});
  variants.push_back({"rope-half", "ntk", 0});
  variants.push_back({"rope", "yarn", 0});
  variants.push_back({"learned", "none", 17});
  variants.push_back({"sinusoidal", "none", 17});
  variants.push_back({"pope", "none", 0, "freqs increasing", [](RunConfig& c) { c.pe.freqs = FreqOrder::kIncreasing; }});
  variants.push_back({"rope-half", "none", 0, "freqs increasing", [](RunConfig& c) { c.pe.freqs = FreqOrder::kIncreasing; }});
  variants.push_back({"pope", "none", 0, "attn qk_dim", [](RunConfig& c) { c.model.attn_scale = "qk_dim"; }});
  variants.push_back({"rope", "none", 0, "attn 0.3", [](RunConfig& c) { c.model.attn_scale = "0.3"; }});
  variants.push_back({"rope", "none", 0, "context 9", [](RunConfig& c) { c.input.context = 9; }});
  variants.push_back({"pope", "none", 0, "pad left", [](RunConfig& c) { c.input.pad = PadSide::kLeft; }});
  // tests/test_model_options.cpp's: tied embeddings, the scaled-embedding init, a learned
  // absolute position embedding on top of the PE.
  variants.push_back({"pope", "none", 0, "tied embeddings", [](RunConfig& c) { c.model.tied_embeddings = true; }});
  variants.push_back({"rope", "none", 0, "init scaled-embedding", [](RunConfig& c) { c.model.init = ModelInit::kScaledEmbedding; }});
  variants.push_back({"pope", "none", 0, "abs-pos learned", [](RunConfig& c) { c.model.abs_pos = AbsPos::kLearned; }});
  variants.push_back({"pope", "none", 0, "loss all", [](RunConfig& c) { c.train.loss = TrainLoss::kAll; }});
  variants.push_back({"rope", "none", 0, "loss all, fields 0 and 2", [](RunConfig& c) {
                        c.train.loss = TrainLoss::kAll;
                        c.train.loss_fields = {0, 2};
                      }});
  variants.push_back({"pope", "none", 0, "delta shared", [](RunConfig& c) { c.pe.delta_shared = true; }});
  variants.push_back({"rope", "none", 0, "bias", [](RunConfig& c) { c.model.bias = true; }});
  variants.push_back({"rope", "none", 0, "loss all, pad left", [](RunConfig& c) {
                        c.train.loss = TrainLoss::kAll;
                        c.input.pad = PadSide::kLeft;
                      }});
  variants.push_back({"rope", "none", 0, "abs-pos learned, tied, pad left", [](RunConfig& c) {
                        c.model.abs_pos = AbsPos::kLearned;
                        c.model.tied_embeddings = true;
                        c.input.pad = PadSide::kLeft;
                      }});
  variants.push_back({"learned", "none", 0, "context 9, pad left", [](RunConfig& c) {
                        c.input.context = 9;
                        c.input.pad = PadSide::kLeft;
                      }});
  // tests/test_attention_options.cpp's: learned temperatures and masked left pads.
  variants.push_back({"pope", "none", 0, "attn-temp learned", [](RunConfig& c) { c.model.attn_temp = AttnTemp::kLearned; }});
  variants.push_back({"rope-half", "none", 0, "attn-temp learned", [](RunConfig& c) { c.model.attn_temp = AttnTemp::kLearned; }});
  variants.push_back({"pope", "none", 0, "pad left masked", [](RunConfig& c) {
                        c.input.pad = PadSide::kLeft;
                        c.input.pad_attention = PadAttention::kMasked;
                      }});
  variants.push_back({"alibi", "none", 0, "pad left masked, attn-temp learned, loss all", [](RunConfig& c) {
                        c.input.pad = PadSide::kLeft;
                        c.input.pad_attention = PadAttention::kMasked;
                        c.model.attn_temp = AttnTemp::kLearned;
                        c.train.loss = TrainLoss::kAll;
                      }});
  // --gpu-attention tf32 (attention's products on TF32 tensor cores: the whole model then meets
  // the tf32 tolerances even with fp32 matrix products) and bf16 (the flash kernels, whose bf16
  // operands round as bf16 matrix products do).
  for (std::string mode : {"tf32", "bf16"}) {
    for (std::string pe : {"pope", "rope", "rope-half", "alibi"})
      variants.push_back({pe, "none", 0, "gpu-attention " + mode, [mode](RunConfig& c) { c.train.gpu_attention = choices::kGpuAttention.parse(mode); }});
    variants.push_back({"pope", "none", 0, "gpu-attention " + mode + ", pad left masked, attn-temp learned",
                        [mode](RunConfig& c) {
                          c.train.gpu_attention = choices::kGpuAttention.parse(mode);
                          c.input.pad = PadSide::kLeft;
                          c.input.pad_attention = PadAttention::kMasked;
                          c.model.attn_temp = AttnTemp::kLearned;
                        }});
  }
  // Head dims 32 and 64 (2 heads of d_model 64, 128) and 16 (4 heads of 64: the short kernels'
  // one-float-per-thread widths and the tiled kernels' half-idle lanes).
  const std::pair<int, int> shapes[] = {{64, 2}, {128, 2}, {64, 4}};  // (d_model, heads)
  for (std::string mm : {"fp32", "tf32", "bf16"})
    for (const auto& var : variants)
      for (auto [dm, heads] : shapes) {
        const std::string& pe = var.pe;
        RunConfig c = tiny(pe, mm, dm);
        c.model.n_head = heads;
        if (var.scaling != "none") {
          c.pe.rope_scaling = choices::kRopeScaling.parse(var.scaling);
          c.pe.rope_factor = 3;
          c.pe.rope_train_len = 7;  // YaRN's ramp then falls inside the head's frequencies
        }
        c.model.max_len += var.extra_len;
        if (var.tweak) var.tweak(c);
        // Before the backend exists, so that an exception from it (a cuBLASLt error) names the variant.
        INFO("pe=" << pe << " scaling=" << var.scaling << " max_len+" << var.extra_len << " matmul=" << mm
                    << " d_model=" << dm << " heads=" << heads << " " << var.option);
        auto be = make_backend(c, DeviceChoice::kCuda);
        Dataset d = generate_split(c.task, 0, Split::kTrain);
        Batch b = batch_of(c, d, 3, c.train.batch, be->static_len());
        Transformer<double> ref(c.model, c.pe);
        std::vector<float> p32, m, v, g;
        be->get_state(p32, m, v);
        std::vector<double> p(p32.begin(), p32.end()), gref(p.size(), 0.0);
        double lref = ref.forward(p.data(), b, c.train.loss == TrainLoss::kAll);
        ref.backward(p.data(), gref.data());
        double loss = cuda_loss_and_grad(c, p32, b, g);
        // bf16 rounds inputs to 2^-8, 8x TF32's 2^-11: 8x its tolerances. TF32 attention products
        // with fp32 matrix products round like tf32 ones (the same 2^-11, on fewer products); bf16
        // attention products round like bf16 ones whatever the matrix products do.
        const std::string prec = c.train.gpu_attention == GpuAttention::kBf16                         ? "bf16"
                                 : mm == "fp32" && c.train.gpu_attention == GpuAttention::kTf32 ? "tf32"
                                                                                     : mm;
        const double tol = prec == "fp32" ? 1e-4 : prec == "tf32" ? 2e-2 : 1.6e-1;
        CHECK(loss == Approx(lref).epsilon(prec == "fp32" ? 1e-5 : prec == "tf32" ? 2e-3 : 1.6e-2));
        for (const auto& view : ref.layout().views) {
          std::vector<double> gr(gref.begin() + view.offset, gref.begin() + view.offset + view.size());
          std::vector<float> gg(g.begin() + view.offset, g.begin() + view.offset + view.size());
          INFO("param " << view.name);
          CHECK(rel_err(gg, gr) < tol);
        }
      }
}

TEST_CASE("ten GPU training steps follow the CPU backend", "[cuda][model]") {
  // "+groups" also checks the optimizer's groups: weight decay on every 2-D tensor and PoPE's
  // delta on its own learning rate (AdamWGroups on the GPU, ParamView::lr_mult on the CPU).
  // "+project": delta (shared by the layers) projected after each update, at a learning rate
  // that pushes it out of [-2 pi, 0]; "+accum": three micro-batches per step (grad_accum) and a tied head;
  // "+heads16": 4 heads of 16; "+delta2pi": delta drawn from [0, 2 pi), so clamped and frozen.
  for (std::string pe : {"rope", "pope", "alibi-half", "learned", "pope+groups", "learned+groups", "pope+project",
                         "rope+accum", "pope+lossall", "pope+bias", "pope+temp", "rope+masked", "pope+heads16",
                         "rope+heads16", "pope+delta2pi"}) {
    const std::string extra = pe.find('+') != std::string::npos ? pe.substr(pe.find('+') + 1) : "";
    RunConfig c = tiny(extra.empty() ? pe : pe.substr(0, pe.find('+')), "fp32");
    if (extra == "groups") {
      c.optim.weight_decay = 0.3;
      c.optim.weight_decay_on = WeightDecayOn::kAll2d;
      c.optim.pe_lr_mult = 3;
    }
    if (extra == "project") {
      c.pe.delta_bound = DeltaBound::kProject;
      c.pe.delta_shared = true;  // projected once per layer: must stay idempotent
      c.optim.pe_lr_mult = 300;  // steps of ~0.3 rad: many deltas reach a bound within ten steps
    }
    if (extra == "lossall") c.train.loss = TrainLoss::kAll;
    if (extra == "delta2pi") c.pe.delta_init = DeltaInit::kUniformPositive;  // clamped to 0 in the forward: no gradient
    if (extra == "heads16") c.model.n_head = 4;  // head dim 16 (Indirect Indexing at 10x's 4 heads of 16)
    if (extra == "bias") c.model.bias = true;  // zero at init: the ten steps make them non-zero
    if (extra == "temp") c.model.attn_temp = AttnTemp::kLearned;  // likewise the log-temperatures
    if (extra == "masked") {
      c.input.pad = PadSide::kLeft;
      c.input.pad_attention = PadAttention::kMasked;
    }
    if (extra == "accum") {
      c.train.grad_accum = 3;
      c.model.tied_embeddings = true;
    }
    auto gpu = make_backend(c, DeviceChoice::kCuda);
    auto cpu = make_backend(c, DeviceChoice::kCpu);
    Dataset d = generate_split(c.task, 0, Split::kTrain);
    for (long s = 1; s <= 10; ++s) {
      std::vector<Batch> micro;
      for (int k = 0; k < c.train.grad_accum; ++k)
        micro.push_back(batch_of(c, d, s * 11 + k * 37, c.train.batch, gpu->static_len()));
      double lr = lr_at(c.optim, s - 1, 10);
      StepResult rg = gpu->train_step(micro, lr, s), rc = cpu->train_step(micro, lr, s);
      INFO("pe=" << pe << " step " << s);
      CHECK(rg.loss == Approx(rc.loss).epsilon(1e-4));
      CHECK(rg.grad_norm == Approx(rc.grad_norm).epsilon(1e-3));
    }
    std::vector<float> pg, pc, m, v;
    gpu->get_state(pg, m, v);
    cpu->get_state(pc, m, v);
    CHECK(rel_err(pg, pc) < 1e-4);
    if (extra == "delta2pi") {  // every delta in (0, 2 pi) is where it started, bit for bit
      std::vector<float> p0;
      make_backend(c, DeviceChoice::kCpu)->get_state(p0, m, v);
      Transformer<float> host(c.model, c.pe);
      for (const auto& view : host.layout().views)
        if (view.kind == ParamKind::kPeParam)
          for (size_t i = view.offset; i < view.offset + view.size(); ++i) {
            CHECK(p0[i] >= 0.f);
            CHECK(pg[i] == p0[i]);
          }
    }
    if (extra == "project") {  // every delta inside the interval, some on its bounds
      Transformer<float> host(c.model, c.pe);
      int on_bound = 0;
      for (const auto& view : host.layout().views)
        if (view.kind == ParamKind::kPeParam)
          for (size_t i = view.offset; i < view.offset + view.size(); ++i) {
            CHECK(double(pg[i]) >= -2 * M_PI);
            CHECK(pg[i] <= 0.f);
            on_bound += pg[i] == 0.f || pg[i] == cpu::pope_delta_min_float();
          }
      CHECK(on_bound > 0);
    }
  }
}

TEST_CASE("the same seed on the GPU gives bit-identical results twice (graph replay)", "[cuda][model]") {
  RunConfig c = tiny("pope", "tf32");
  Dataset d = generate_split(c.task, 0, Split::kTrain);
  std::vector<double> losses[2];
  std::vector<float> params[2], m, v;
  for (int run = 0; run < 2; ++run) {
    auto be = make_backend(c, DeviceChoice::kCuda);
    for (long s = 1; s <= 6; ++s)
      losses[run].push_back(be->train_step(batch_of(c, d, s * 7, c.train.batch, be->static_len()), 1e-3, s).loss);
    be->get_state(params[run], m, v);
  }
  CHECK(losses[0] == losses[1]);
  CHECK(params[0] == params[1]);
}

TEST_CASE("GPU evaluation equals CPU evaluation", "[cuda][model]") {
  // With the loss on every next token too: evaluation still scores the answer only.
  RunConfig c = tiny("pope", "fp32");
  c.train.loss = GENERATE(TrainLoss::kAnswer, TrainLoss::kAll);
  auto gpu = make_backend(c, DeviceChoice::kCuda);
  auto cpu = make_backend(c, DeviceChoice::kCpu);
  Dataset d = generate_split(c.task, 0, Split::kTrain);
  Batch b = batch_of(c, d, 0, 13, gpu->static_len());
  std::vector<int32_t> cg, cc;
  double lg = gpu->eval_batch(b, cg), lc = cpu->eval_batch(b, cc);
  CHECK(lg == Approx(lc).epsilon(1e-5));
  CHECK(cg == cc);
}

TEST_CASE("GPU every-token evaluation equals CPU's (the text task's bits per byte)", "[cuda][model]") {
  // Any task's batch works: every position predicts the next input token, the answer the target.
  // Relative 1e-5 on a sum of ~150 cross-entropies: fp32 products and attention on both sides,
  // the same order of ~1e-7 relative error per term as the answer-only comparison above.
  RunConfig c = tiny("pope", "fp32");
  c.train.loss = TrainLoss::kAll;
  auto gpu = make_backend(c, DeviceChoice::kCuda);
  auto cpu = make_backend(c, DeviceChoice::kCpu);
  Dataset d = generate_split(c.task, 0, Split::kTrain);
  Batch b = batch_of(c, d, 0, 13, gpu->static_len());
  std::vector<int32_t> gc, kc, ac;
  const TokenLoss g = gpu->eval_every_token(b, gc), k = cpu->eval_every_token(b, kc);
  CHECK(g.tokens == k.tokens);
  CHECK(g.tokens > 13);
  CHECK(g.nats == Approx(k.nats).epsilon(1e-5));
  // The answers from the same pass: what the answer-only evaluation gives.
  const double answer_loss = gpu->eval_batch(b, ac);
  CHECK(g.answer_nats / b.B == Approx(answer_loss).epsilon(1e-5));
  CHECK(g.answer_nats == Approx(k.answer_nats).epsilon(1e-5));
  CHECK(gc == ac);
  CHECK(gc == kc);
  // A run trained on the answer alone has no buffers for it: refused in words, not a crash.
  c.train.loss = TrainLoss::kAnswer;
  CHECK_THROWS_AS(make_backend(c, DeviceChoice::kCuda)->eval_every_token(b, gc), UserError);
}

namespace {
// Eight steps of a tiny run on the calling thread's current GPU.
void train_run(const std::string& pe, uint64_t seed, std::vector<double>& losses, std::vector<float>& params,
               int* device_index = nullptr) {
  RunConfig c = tiny(pe, "tf32");
  c.train.seed = seed;
  Dataset d = generate_split(c.task, 0, Split::kTrain);
  auto be = make_backend(c, DeviceChoice::kCuda);
  if (device_index) *device_index = be->device_index();  // what the run JSON records as gpu_index
  for (long s = 1; s <= 8; ++s)
    losses.push_back(be->train_step(batch_of(c, d, s * 5, c.train.batch, be->static_len()), 1e-3, s).loss);
  std::vector<float> m, v;
  be->get_state(params, m, v);
}

// Three runs of different PEs, each trained alone and then all at once on their own threads (each
// its own backend, stream and graph), optionally beside a thread that allocates and frees GPU
// memory all the while: every run must repeat its solo losses and parameters bit for bit.
void check_runs_at_once_equal_alone(bool churn_memory) {
  const std::vector<std::pair<std::string, uint64_t>> runs = {{"rope", 0}, {"pope", 1}, {"alibi", 2}};
  const size_t n = runs.size();
  std::vector<std::vector<double>> solo_loss(n), conc_loss(n);
  std::vector<std::vector<float>> solo_p(n), conc_p(n);
  for (size_t i = 0; i < n; ++i) train_run(runs[i].first, runs[i].second, solo_loss[i], solo_p[i]);
  std::atomic<bool> trained{false};
  std::thread churn;
  if (churn_memory)
    churn = std::thread([&] {
      while (!trained) {
        void* p = nullptr;
        if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
        cudaGetLastError();  // a call refused during another thread's capture: not this test's concern
      }
    });
  std::vector<std::thread> pool;
  for (size_t i = 0; i < n; ++i)
    pool.emplace_back([&, i] { train_run(runs[i].first, runs[i].second, conc_loss[i], conc_p[i]); });
  for (auto& t : pool) t.join();
  trained = true;
  if (churn.joinable()) churn.join();
  for (size_t i = 0; i < n; ++i) {
    INFO("run " << runs[i].first << " seed " << runs[i].second);
    CHECK(conc_loss[i] == solo_loss[i]);
    CHECK(conc_p[i] == solo_p[i]);
  }
}
}  // namespace

TEST_CASE("runs trained at once on one GPU equal the same runs trained alone", "[cuda][model]") {
  // What `sweep --concurrent` relies on: each run has its own stream, graph and buffers, so
  // sharing the GPU must not change a single bit of any run. A run built or freed while another
  // captures its step must not break that capture (kernels/cuda/capture_lock.hpp): this test
  // aborted once so on an H100, beside a training job that shifted the threads' timing.
  check_runs_at_once_equal_alone(false);
}

TEST_CASE("runs trained at once equal the same runs alone beside a thread that allocates and frees GPU memory", "[cuda][model]") {
  // cudaMalloc and cudaFree outside the backend's DeviceWideLock, as a library's or the runtime's
  // own would be: they may invalidate a run's capture at any moment, and the run then recovers
  // (that step eagerly, the capture at the next) without changing a bit.
  check_runs_at_once_equal_alone(true);
}

TEST_CASE("a step whose graph capture was invalidated runs eagerly and changes no bit", "[cuda][model]") {
  // The recovery above, made to happen whatever the timing: the backend invalidates its own
  // captures on purpose (CudaBackend::invalidate_next_captures).
  RunConfig c = tiny("pope", "tf32");
  c.train.seed = 3;
  Dataset d = generate_split(c.task, 0, Split::kTrain);
  auto solo = make_backend(c, DeviceChoice::kCuda);
  std::vector<Batch> batches;
  std::vector<double> solo_loss;
  for (long s = 1; s <= 8; ++s) {
    batches.push_back(batch_of(c, d, s * 5, c.train.batch, solo->static_len()));
    solo_loss.push_back(solo->train_step(batches.back(), 1e-3, s).loss);
  }
  std::vector<float> solo_p, m, v;
  solo->get_state(solo_p, m, v);
  const CapturedRun clean = cuda_train_invalidating_captures(c, batches, 1e-3, 0);
  CHECK(clean.invalidated == 0);  // a run alone captures its step at the first try
  CHECK(clean.graph);
  const CapturedRun hit = cuda_train_invalidating_captures(c, batches, 1e-3, 3);
  CHECK(hit.invalidated == 3);  // the captures of steps 2, 3 and 4: those steps ran eagerly
  CHECK(hit.graph);             // step 5's capture held, and steps 5-8 replayed it
  for (const CapturedRun* r : {&clean, &hit}) {
    CHECK(r->losses == solo_loss);
    CHECK(r->params == solo_p);
  }
}

TEST_CASE("runs spread over GPUs (--gpus) run on GPU k % n and equal the same runs on GPU 0", "[cuda][model]") {
  int devices = 0;
  REQUIRE(cudaGetDeviceCount(&devices) == cudaSuccess);
  if (devices < 2) {
    popebench::test::skip_test_case("one GPU: nothing to spread over (run on a machine with two or more)");
    return;
  }
  const std::vector<std::pair<std::string, uint64_t>> runs = {{"rope", 0}, {"pope", 1}, {"pope", 2}, {"rope", 3}};
  const size_t n = runs.size();
  std::vector<std::vector<double>> solo_loss(n), spread_loss(n);
  std::vector<std::vector<float>> solo_p(n), spread_p(n);
  std::vector<int> device_of(n, -1), recorded(n, -1);
  popebench::use_device(0);
  for (size_t i = 0; i < n; ++i) train_run(runs[i].first, runs[i].second, solo_loss[i], solo_p[i]);
  const bool finished = cli::run_jobs(
      n, /*concurrent=*/2, /*gpus=*/2,
      [&](size_t k) {
        if (cudaGetDevice(&device_of[k]) != cudaSuccess) device_of[k] = -2;  // no Catch2 macros off the main thread
        train_run(runs[k].first, runs[k].second, spread_loss[k], spread_p[k], &recorded[k]);
      },
      [&](size_t k) { return runs[k].first; });
  CHECK(finished);
  for (size_t i = 0; i < n; ++i) {
    INFO("run " << runs[i].first << " seed " << runs[i].second);
    CHECK(device_of[i] == int(i % 2));
    CHECK(recorded[i] == int(i % 2));
    CHECK(spread_loss[i] == solo_loss[i]);
    CHECK(spread_p[i] == solo_p[i]);
  }
}

TEST_CASE("bf16: an evaluation at a larger batch after the graph capture leaves training intact", "[cuda][model]") {
  // The order of a resumed run: training steps (the graph is captured on the second) and then an
  // evaluation at eval_batch > batch. bf16 scratch buffers once grew at that evaluation and the
  // graph kept reading the freed ones (an illegal address at the next replay, seen on the H200).
  RunConfig c = tiny("rope", "bf16");
  REQUIRE(c.train.eval_batch > c.train.batch);
  Dataset d = generate_split(c.task, 0, Split::kTrain);
  auto run = [&](bool eval_first, std::vector<double>& losses, std::vector<float>& params) {
    auto be = make_backend(c, DeviceChoice::kCuda);
    std::vector<int32_t> correct;
    const Batch eb = batch_of(c, d, 100, c.train.eval_batch, be->static_len());
    if (eval_first) be->eval_batch(eb, correct);
    for (long s = 1; s <= 6; ++s) {
      losses.push_back(be->train_step(batch_of(c, d, s * 5, c.train.batch, be->static_len()), 1e-3, s).loss);
      if (s == 3) be->eval_batch(eb, correct);
    }
    std::vector<float> m, v;
    be->get_state(params, m, v);
  };
  std::vector<double> la, lb;
  std::vector<float> pa, pb;
  run(false, la, pa);
  run(true, lb, pb);
  CHECK(la == lb);
  CHECK(pa == pb);
}

TEST_CASE("a head dim with no GPU kernel is refused on --device cuda and trains on the CPU with auto", "[cuda][model]") {
  RunConfig c = tiny("rope", "fp32");
  c.model.n_head = 8;  // head dim 8: the kernels take 16, 32, 64 and 128
  CHECK_THROWS_WITH(make_backend(c, DeviceChoice::kCuda), Catch::Contains("head dim 8 has no GPU kernel"));
  CHECK(make_backend(c, DeviceChoice::kAuto)->device_index() == -1);  // the CPU backend (after a notice on stderr)
  c.model.n_head = 4;  // head dim 16: on the GPU
  CHECK(make_backend(c, DeviceChoice::kAuto)->device_index() >= 0);
}

TEST_CASE("a PE with no GPU description is refused on --device cuda and trains on the CPU with auto", "[cuda][model]") {
  int cpu_only = 0;
  for (const PEKindInfo& kind : pe_kinds()) {
    if (kind.gpu) continue;
    ++cpu_only;
    INFO("pe " << kind.name);
    RunConfig c = tiny(kind.name, "fp32");
    CHECK_THROWS_WITH(make_backend(c, DeviceChoice::kCuda), Catch::Contains("positional embedding " + kind.name + " has no GPU kernel"));
    CHECK(make_backend(c, DeviceChoice::kAuto)->device_index() == -1);  // the CPU backend (after a notice on stderr)
  }
  CHECK(cpu_only >= 1);  // rope-interleaved (model/pe/pe_rope_interleaved.cpp)
}
