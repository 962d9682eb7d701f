// popebench bench: the training step of the paper model (RoPE and PoPE) and the fused attention
// kernels alone, timed with CUDA events (medians after warm-up), written as JSON. The PyTorch
// reference (bench/torch_ref.py) times the same model and shapes; bench/run_bench.sh runs both.
#include <chrono>
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/command_line.hpp"
#include "common/files.hpp"
#include "kernels/cuda/kernels.hpp"
#include "kernels/device.hpp"
#include "backend/backend.hpp"
#ifdef POPEBENCH_HAVE_CUDA_BACKEND
#include "bench/attention_bench.hpp"
#include "common/environment.hpp"
#endif

namespace popebench::cli {

Runner register_bench(CLI::App& app) {
  struct State {
    std::string out, pes = "rope,pope";
    int iters = 50, warmup = 10;
    std::string matmul = "bf16";  // TrainConfig's default
    std::string attention = "fp32";  // TrainConfig's default
    std::vector<int> lengths = {48, 512, 1024, 4096};
    std::vector<int> head_dims = {64};
    std::vector<int> batch_runs;  // R of the batched steps to time (--batch-runs); empty: none
    std::vector<int> stream_runs;  // R of the runs on streams to time (--stream-runs); empty: none
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand("bench", "Time the training step and the attention kernels on the GPU (JSON out)");
  cmd->add_option("--out", st->out, "Write the benchmark JSON here")->check(non_empty());
  cmd->add_option("--iters", st->iters, "Timed repetitions (median reported)")->default_val(50)->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", st->warmup, "Untimed repetitions first")->default_val(10)->check(CLI::Range(0, 100000));
  cmd->add_option("--gpu-matmul", st->matmul, "The training step's matrix products: " + choices::kGpuMatmul.help())
      ->default_val("bf16")->check(CLI::IsMember(choices::kGpuMatmul.names()));
  cmd->add_option("--gpu-attention", st->attention, "The training step's attention products: " + choices::kGpuAttention.help())
      ->default_val("fp32")->check(CLI::IsMember(choices::kGpuAttention.names()));
  cmd->add_option("--attention-lengths", st->lengths, "Sequence lengths for the attention benchmark")->default_val(st->lengths);
  cmd->add_option("--attention-head-dims", st->head_dims, "Head dims for the attention benchmark (8 heads each)")
      ->default_val(st->head_dims)->check(CLI::IsMember({16, 32, 64, 128}));
  // Comma lists parsed as every other list of the CLI (parse_int_list: an empty item is an error),
  // then each R checked against the batch's limit.
  auto run_counts = [](std::vector<int>* dst, const std::string& what) {
    return [dst, what](const std::string& v) {
      *dst = parse_int_list(v, what);
      for (int R : *dst)
        if (R < 1 || R > 64) throw CLI::ValidationError(what, "each R must be from 1 to 64, not " + std::to_string(R));
    };
  };
  cmd->add_option_function<std::string>("--batch-runs", run_counts(&st->batch_runs, "--batch-runs"),
                  "Also time the step of R runs batched as one model (sweep --batch-runs), for each R listed, e.g. 1,2,4,8");
  cmd->add_option_function<std::string>("--stream-runs", run_counts(&st->stream_runs, "--stream-runs"),
                  "Also time R runs trained alone at once, each on its own CUDA stream (sweep --concurrent R --batch-runs 1), "
                  "for each R listed: what --batch-runs R is compared with");
  return [st](const std::string& command) -> int {  // explicit: in a CPU-only build the body is a throw alone
#ifndef POPEBENCH_HAVE_CUDA_BACKEND
    (void)command;
    throw UserError("bench needs a build with the CUDA backend and a GPU");
#else
    DeviceInfo dev = query_device();
    if (dev.cuda_devices == 0) throw UserError("bench needs a GPU (" + dev.error + ")");
    nlohmann::json out = {{"schema", "popebench.bench"}, {"schema_version", 1},
                          {"environment", environment_json(dev.name, 1, command)},
                          {"iters", st->iters}, {"warmup", st->warmup}, {"gpu_matmul", st->matmul},
                          {"gpu_attention", st->attention}, {"complete", false}};
    // The JSON is rewritten (atomically) after every measurement, "complete" false until the last:
    // a bench stopped by a command's time limit keeps what it measured (the whole --batch-runs
    // curve takes longer than a lent GPU's 10-minute command, and a cut one used to leave a log
    // only). A partial file says so in "complete".
    auto save = [&](bool complete) {
      std::fflush(stdout);  // the printed line of the measurement too, before a limit can cut it
      if (st->out.empty()) return;
      out["complete"] = complete;
      write_file_atomic(st->out, out.dump(2) + "\n");
    };
    RunConfig base;
    base.train.gpu_matmul = choices::kGpuMatmul.parse(st->matmul);
    base.train.gpu_attention = choices::kGpuAttention.parse(st->attention);
    base.task.n_train = 4096;
    base.task.n_val = base.task.n_test = 64;
    base.size_model_for_task();
    const int T = base.task.width() - 1, B = base.train.batch, C = base.model.d_model, L = base.model.n_layer;
    // Counts first (docs/measuring.md): matmul FLOPs of a step = 6 x matmul weights x tokens, plus the
    // head on B rows; attention adds 4 B H T^2 (D_qk + D) / 2 over fwd+bwd (small at T = 47).
    const double matmul_w = 12.0 * L * C * C, tokens = double(B) * T;
    const double step_flops = 6.0 * matmul_w * tokens + 6.0 * base.model.vocab_size * C * B;
    out["model"] = {{"params_matmul", matmul_w}, {"tokens_per_step", tokens}, {"flops_per_step", step_flops},
                    {"floor_ms_at_790_tflops", step_flops / 790e12 * 1e3}};
    Dataset d = generate_split(base.task, 0, Split::kTrain);
    // The paper model with one PE on the GPU, and the first B training examples padded to its
    // static length: what every timed step below trains on.
    auto config_for = [&](const std::string& pe) {
      RunConfig c = base;
      c.pe.kind = pe;
      c.train.device = DeviceChoice::kCuda;
      return c;
    };
    auto first_batch = [&](const RunConfig& c) {
      std::vector<size_t> idx;
      for (int i = 0; i < B; ++i) idx.push_back(i);
      return make_batch(d, idx, c.input_len());  // the backend's static length
    };
    // R runs' steps in `ms`: aggregate run-steps/s and the share of the bf16 FLOP floor (R x the
    // one-run FLOPs in the measured time).
    auto add_rates = [&](nlohmann::json& r, int R, double ms) {
      r["run_steps_per_s"] = R * 1e3 / ms;
      r["floor_share"] = R * step_flops / 790e12 * 1e3 / ms;
    };
    for (const auto& pe : {std::string("rope"), std::string("pope")}) {
      const RunConfig c = config_for(pe);
      auto be = make_backend(c, DeviceChoice::kCuda);
      nlohmann::json r = cuda_benchmark_step(c, 1, first_batch(c), st->warmup, st->iters);
      // End to end as the trainer runs it: batch assembly, upload, graph, sync, readback.
      Pcg32 sampler(0, 0);
      auto t0 = std::chrono::steady_clock::now();
      const int n = std::max(st->iters, 100);
      std::vector<size_t> idx(static_cast<size_t>(B));
      for (int i = 0; i < n; ++i) {
        for (auto& x : idx) x = sampler.bounded(static_cast<uint32_t>(d.size()));
        be->train_step(make_batch(d, idx, be->static_len()), 1e-4, 100 + i);
      }
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      r["trainer_ms_per_step"] = 1e3 * s / n;
      r["achieved_tflops"] = step_flops / (r["step_graph_ms"].get<double>() * 1e-3) * 1e-12;
      out["step"][pe] = r;
      save(false);
      std::printf("step %-4s graph %.3f ms  trainer %.3f ms  (fwd %.3f, fwd+bwd %.3f, gemms %.3f, attention %.3f, optimizer %.3f)\n",
                  pe.c_str(), r["step_graph_ms"].get<double>(), r["trainer_ms_per_step"].get<double>(),
                  r["forward_ms"].get<double>(), r["forward_backward_ms"].get<double>(), r["gemms_ms"].get<double>(),
                  r["attention_ms"].get<double>(), r["optimizer_ms"].get<double>());
    }
    // Batches of runs: one step trains R runs. Each R > 1 twice: the batched products
    // on a run alone's algorithms (what training uses: a batched run can then repeat the run
    // alone bit for bit), and on cuBLASLt's choice for the batch (kernels/cuda/gemm.hpp).
    for (int R : st->batch_runs)
      for (const auto& pe : {std::string("rope"), std::string("pope")})
        for (bool heuristic : {false, true}) {
          if (heuristic && R == 1) continue;  // a single product has no batch to choose for
          const RunConfig c = config_for(pe);
          nlohmann::json r = cuda_benchmark_step(c, R, first_batch(c), st->warmup, st->iters, heuristic);
          const double ms = r["step_graph_ms"].get<double>();
          r["pe"] = pe;
          r["products"] = heuristic ? "batch_heuristic" : "as_run_alone";
          add_rates(r, R, ms);
          out["batched"].push_back(r);
          save(false);
          std::printf("batch of %2d %-4s %-15s step %.3f ms  %.1f run-steps/s  %.1f%% of the bf16 floor  (fwd %.3f, gemms %.3f, attention %.3f, optimizer %.3f)\n",
                      R, pe.c_str(), heuristic ? "batch heuristic" : "as run alone", ms,
                      r["run_steps_per_s"].get<double>(), 100 * r["floor_share"].get<double>(),
                      r["forward_ms"].get<double>(), r["gemms_ms"].get<double>(), r["attention_ms"].get<double>(),
                      r["optimizer_ms"].get<double>());
        }
    // The same R runs trained apart, each on its own stream, as sweep --concurrent R --batch-runs 1 trains them
    // without --batch-runs; counted as the batches are. Graph replays only, like the batch's
    // step_graph_ms: neither includes the host's batch assembly.
    for (int R : st->stream_runs)
      for (const auto& pe : {std::string("rope"), std::string("pope")}) {
        const RunConfig c = config_for(pe);
        nlohmann::json r = cuda_benchmark_streams(c, R, first_batch(c), st->warmup, st->iters);
        const double ms = r["ms_per_step_of_all_runs"].get<double>();
        r["pe"] = pe;
        add_rates(r, R, ms);
        out["streams"].push_back(r);
        save(false);
        std::printf("%2d runs on streams %-4s step of all %.3f ms  %.1f run-steps/s  %.1f%% of the bf16 floor\n", R,
                    pe.c_str(), ms, r["run_steps_per_s"].get<double>(), 100 * r["floor_share"].get<double>());
      }
    // Every (D, T) pair, the lengths at B T = 32,768 tokens (B 64 at the training lengths).
    std::vector<std::pair<int, int>> shapes;
    for (int D : st->head_dims)
      for (int Tl : st->lengths) shapes.push_back({D, Tl});
    for (auto [D, Tl] : shapes) {
      int Bl = Tl <= 48 ? 64 : std::max(1, 32768 / Tl);
      ModelConfig heads;  // the bench's 8 heads of D
      heads.n_head = 8;
      heads.d_model = 8 * D;
      for (const auto& [name, gpe] : gpu_attention_paths(heads)) {
        auto r = cuda_benchmark_attention(Bl, Tl, 8, D, gpe, st->warmup, st->iters);
        r["pe"] = name;
        out["attention"].push_back(r);
        save(false);
        std::printf("attention %-9s B %3d T %5d H 8 D %3d: fwd %.3f ms  bwd %.3f ms", name.c_str(), Bl, Tl, D,
                    r["fwd_ms"].get<double>(), r["bwd_ms"].get<double>());
        if (r.contains("without_angle_table"))
          std::printf("  (without the angle table: fwd %.3f ms  bwd %.3f ms)",
                      r["without_angle_table"]["fwd_ms"].get<double>(), r["without_angle_table"]["bwd_ms"].get<double>());
        if (r.contains("tf32"))
          std::printf("  (tf32 products: fwd %.3f ms  bwd %.3f ms)", r["tf32"]["fwd_ms"].get<double>(),
                      r["tf32"]["bwd_ms"].get<double>());
        if (r.contains("bf16_flash"))
          std::printf("  (bf16 flash: fwd %.3f ms  bwd %.3f ms)", r["bf16_flash"]["fwd_ms"].get<double>(),
                      r["bf16_flash"]["bwd_ms"].get<double>());
        if (r.contains("bf16_flash_wgmma"))
          std::printf("  (wgmma: fwd %.3f ms  bwd %.3f ms)", r["bf16_flash_wgmma"]["fwd_ms"].get<double>(),
                      r["bf16_flash_wgmma"]["bwd_ms"].get<double>());
        if (r.contains("bf16_flash_wgmma_2g"))
          std::printf("  (wgmma two groups: fwd %.3f ms)", r["bf16_flash_wgmma_2g"]["fwd_ms"].get<double>());
        if (r.contains("bf16_flash_wgmma_ov"))
          std::printf("  (wgmma overlapped: fwd %.3f ms)", r["bf16_flash_wgmma_ov"]["fwd_ms"].get<double>());
        if (r.contains("bf16_flash_wgmma_kv"))
          std::printf("  (wgmma dK dV too: bwd %.3f ms)", r["bf16_flash_wgmma_kv"]["bwd_ms"].get<double>());
        if (r.contains("bf16_flash_dispatch"))
          std::printf("  (as --gpu-attention bf16 runs it: fwd %.3f ms  bwd %.3f ms)",
                      r["bf16_flash_dispatch"]["fwd_ms"].get<double>(), r["bf16_flash_dispatch"]["bwd_ms"].get<double>());
        std::printf("\n");
      }
    }
    save(true);
    return 0;
#endif
  };
}

}  // namespace popebench::cli
