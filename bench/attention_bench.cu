// Times the fused attention kernels alone (forward, backward) at one shape, with CUDA events,
// median of `iters` after warm-up, on random inputs (never zeros: see docs/measuring.md).
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/rng.hpp"
#include "bench/attention_bench.hpp"
#include "kernels/cuda/attention_flash.hpp"
#include "kernels/cuda/attention_flash_wgmma.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/event_timer.hpp"
#include "kernels/cuda/kernels.hpp"
#include "model/pe/pe_rope.hpp"

namespace popebench {

nlohmann::json cuda_benchmark_attention(int B, int T, int H, int D, const GpuPE& gpe, int warmup, int iters) {
  const cuda::PEKind pe = gpe.attention;
  const int n_rot = pe == cuda::PEKind::kRope ? gpe.n_rot : D;
  if (!gpe.slopes.empty() && int(gpe.slopes.size()) != H)  // before any allocation: nothing to free
    throw std::invalid_argument("attention bench: one ALiBi slope a head");
  const size_t C = size_t(H) * D, n_qkv = size_t(B) * T * 3 * C, n_out = size_t(B) * T * C;
  std::vector<float> h(n_qkv);
  Pcg32 rng(1, 1);
  for (auto& x : h) x = float(rng.normal());
  float *qkv, *out, *dout, *lse, *dqkv, *ddp, *delta;
  double* theta;
  CUDA_CHECK(cudaMalloc(&qkv, n_qkv * 4));
  CUDA_CHECK(cudaMalloc(&dqkv, n_qkv * 4));
  CUDA_CHECK(cudaMalloc(&out, n_out * 4));
  CUDA_CHECK(cudaMalloc(&dout, n_out * 4));
  CUDA_CHECK(cudaMalloc(&ddp, n_out * 4));
  CUDA_CHECK(cudaMalloc(&lse, size_t(B) * H * T * 4));
  CUDA_CHECK(cudaMalloc(&delta, C * 4));
  CUDA_CHECK(cudaMemcpy(qkv, h.data(), n_qkv * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dout, h.data(), n_out * 4, cudaMemcpyHostToDevice));
  std::vector<float> dl(C);
  for (auto& x : dl) x = float(-6.28 * rng.uniform01());
  CUDA_CHECK(cudaMemcpy(delta, dl.data(), C * 4, cudaMemcpyHostToDevice));
  // The PE's frequencies (none: RoPE's, unread) and ALiBi's slopes, as the model uploads them.
  const std::vector<double> th = gpe.thetas.empty() ? rope_thetas(D, 10000) : gpe.thetas;
  CUDA_CHECK(cudaMalloc(&theta, th.size() * 8));
  CUDA_CHECK(cudaMemcpy(theta, th.data(), th.size() * 8, cudaMemcpyHostToDevice));
  float* slopes = nullptr;
  if (!gpe.slopes.empty()) {
    const std::vector<float> sl(gpe.slopes.begin(), gpe.slopes.end());
    CUDA_CHECK(cudaMalloc(&slopes, H * 4));
    CUDA_CHECK(cudaMemcpy(slopes, sl.data(), H * 4, cudaMemcpyHostToDevice));
  }
  // The angle table's scratch (AttentionArgs::angle_scratch), as the model gives it: where the
  // table holds parameters (PoPE) the forward's time includes filling it and the backward reads
  // the table the forward left; otherwise (RoPE) it is filled once here and every call reads it
  // (AttentionArgs::angle_table_filled, attention_fill_angles). None where no table is computed.
  // The flash kernels' table (the query angles alone) is sized on its own.
  const size_t angle_floats = cuda::attention_angle_floats(T, D, H, pe, n_rot, 1),
               flash_angle_floats = cuda::attention_angle_floats(T, D, H, pe, n_rot, 1, true);
  float* angles = nullptr;
  if (std::max(angle_floats, flash_angle_floats) > 0)
    CUDA_CHECK(cudaMalloc(&angles, std::max(angle_floats, flash_angle_floats) * 4));
  // The flash kernels' copies (AttentionArgs::flash_scratch), as the model gives them.
  const size_t flash_bytes = cuda::attention_flash_scratch_bytes(B, T, H, D, pe);
  void* flash_scratch = nullptr;
  CUDA_CHECK(cudaMalloc(&flash_scratch, flash_bytes));
  cuda::AttentionArgs a{B, T, H, D, pe, theta, delta, float(1.0 / std::sqrt(double(D))), n_rot, slopes};
  a.flash_scratch = flash_scratch;
  a.flash_scratch_bytes = flash_bytes;
  auto time = [&](const std::function<void()>& f) { return cuda::median_event_ms(nullptr, warmup, iters, f); };
  auto fwd_bwd = [&](bool tf32, bool table) {
    a.tf32_products = tf32;
    a.angle_scratch = table ? angles : nullptr;
    a.angle_scratch_floats = table ? angle_floats : 0;
    const bool once = table && !cuda::attention_angles_hold_params(pe);
    if (once) cuda::attention_fill_angles(a, nullptr);
    a.angle_table_filled = once;
    double f = time([&] { cuda::attention_fwd(a, qkv, out, lse, nullptr); });
    a.angle_table_filled = table;  // the forward just timed left its table in the scratch
    double b = time([&] { cuda::attention_bwd(a, qkv, out, dout, lse, dqkv, pe == cuda::PEKind::kPope ? ddp : nullptr, nullptr); });
    return std::make_pair(f, b);
  };
  const auto [fwd, bwd] = fwd_bwd(false, true);
  // Each block computing its own angles (before the table; bench/log/029-the-angle-table.md).
  const auto [fwd_no_table, bwd_no_table] = angle_floats > 0 ? fwd_bwd(false, false) : std::make_pair(0.0, 0.0);
  // The same products on TF32 tensor cores (--gpu-attention tf32), where that form exists.
  const bool has_tf32 = cuda::attention_has_tf32_form(T, D);
  const auto [fwd_tf32, bwd_tf32] = has_tf32 ? fwd_bwd(true, true) : std::make_pair(0.0, 0.0);
  // The flash kernels on bf16 tensor cores (AttentionArgs::bf16_flash), with the angle table as
  // the model gives it (filled once: it holds no parameter). Both families are called directly,
  // so that each is timed on a GPU that runs both: the mma.sync kernels (attention_flash.cu) and,
  // where this GPU runs them, the warpgroup ones (attention_flash_wgmma_*.cu, bench/log/037), which
  // are what attention_fwd / attention_bwd run there.
  a.bf16_flash = true;
  a.angle_scratch = flash_angle_floats > 0 ? angles : nullptr;
  a.angle_scratch_floats = flash_angle_floats;
  a.angle_table_filled = false;
  cuda::attention_fill_angles(a, nullptr);
  a.angle_table_filled = true;
  const double fwd_flash = time([&] { cuda::attn::attention_fwd_flash(a, qkv, out, lse, nullptr); });
  const double bwd_flash = time([&] {
    cuda::attn::attention_bwd_flash(a, qkv, out, dout, lse, dqkv, pe == cuda::PEKind::kPope ? ddp : nullptr, nullptr,
                                    nullptr);
  });
  const bool has_wgmma = cuda::attn::flash_wgmma_runs(a);
  const double fwd_wgmma =
      has_wgmma ? time([&] { cuda::attn::attention_fwd_flash_wgmma(a, qkv, out, lse, nullptr, cuda::attn::WgFwdKernel::kOneGroup); }) : 0.0;
  // The forward with two warpgroups a block sharing each key tile (bench/log/039).
  const double fwd_wgmma_2g =
      has_wgmma ? time([&] { cuda::attn::attention_fwd_flash_wgmma(a, qkv, out, lse, nullptr, cuda::attn::WgFwdKernel::kTwoGroups); }) : 0.0;
  // The one-group forward with each tile's softmax under the products (bench/log/040).
  const double fwd_wgmma_ov =
      has_wgmma ? time([&] { cuda::attn::attention_fwd_flash_wgmma(a, qkv, out, lse, nullptr, cuda::attn::WgFwdKernel::kOverlapped); }) : 0.0;
  const double bwd_wgmma = has_wgmma ? time([&] {
    cuda::attn::attention_bwd_flash_wgmma(a, qkv, out, dout, lse, dqkv, pe == cuda::PEKind::kPope ? ddp : nullptr,
                                          nullptr, nullptr);
  })
                                     : 0.0;
  // The backward with its dK, dV kernel on warpgroup products too (bench/log/038).
  const double bwd_wgmma_kv = has_wgmma ? time([&] {
    cuda::attn::attention_bwd_flash_wgmma_kv(a, qkv, out, dout, lse, dqkv, pe == cuda::PEKind::kPope ? ddp : nullptr,
                                             nullptr, nullptr);
  })
                                        : 0.0;
  // What `--gpu-attention bf16` runs: attention_fwd / attention_bwd, which pick among the variants
  // above by the GPU, D and PE (fwd_kernel in attention_flash_wgmma_fwd.cu), called as the model
  // calls them, so that the ratio to PyTorch is the one a user gets, not the best variant's.
  const double fwd_dispatch = time([&] { cuda::attention_fwd(a, qkv, out, lse, nullptr); });
  const double bwd_dispatch = time([&] {
    cuda::attention_bwd(a, qkv, out, dout, lse, dqkv, pe == cuda::PEKind::kPope ? ddp : nullptr, nullptr);
  });
  a.bf16_flash = false;
  for (void* p : {(void*)qkv, (void*)out, (void*)dout, (void*)lse, (void*)dqkv, (void*)ddp, (void*)delta, (void*)theta,
                  (void*)angles, (void*)slopes, flash_scratch})
    cudaFree(p);
  // FLOPs of causal attention (half the T x T square): QK^T over the width the dot product
  // sees (2D for PoPE) and PV over D; backward ~2.5x forward (recompute + 4 products).
  const int DQ = pe == cuda::PEKind::kPope ? 2 * D : D;
  const double fwd_flops = 2.0 * B * H * (double(T) * (T + 1) / 2) * (DQ + D);
  nlohmann::json r = {{"B", B}, {"T", T}, {"H", H}, {"D", D}, {"fwd_ms", fwd}, {"bwd_ms", bwd},
                      {"fwd_tflops", fwd_flops / fwd * 1e-9}, {"bwd_tflops", 2.5 * fwd_flops / bwd * 1e-9}};
  // Blocks an SM holds of each kernel at this shape (bench/log/024-pope-s-backward-in-75-kb.md).
  auto blocks = [&](bool tf32) {
    a.tf32_products = tf32;
    const auto occ = cuda::attention_blocks_per_sm(a);
    return occ ? nlohmann::json{{"fwd", occ->fwd_blocks_per_sm}, {"bwd", occ->bwd_blocks_per_sm}} : nlohmann::json();
  };
  r["blocks_per_sm"] = blocks(false);
  if (angle_floats > 0) r["without_angle_table"] = {{"fwd_ms", fwd_no_table}, {"bwd_ms", bwd_no_table}};
  if (has_tf32) r["tf32"] = {{"fwd_ms", fwd_tf32}, {"bwd_ms", bwd_tf32}, {"blocks_per_sm", blocks(true)}};
  r["bf16_flash"] = {{"fwd_ms", fwd_flash}, {"bwd_ms", bwd_flash}, {"fwd_tflops", fwd_flops / fwd_flash * 1e-9},
                     {"bwd_tflops", 2.5 * fwd_flops / bwd_flash * 1e-9}};
  r["bf16_flash_dispatch"] = {{"fwd_ms", fwd_dispatch}, {"bwd_ms", bwd_dispatch},
                              {"fwd_tflops", fwd_flops / fwd_dispatch * 1e-9},
                              {"bwd_tflops", 2.5 * fwd_flops / bwd_dispatch * 1e-9}};
  if (has_wgmma)
    r["bf16_flash_wgmma"] = {{"fwd_ms", fwd_wgmma}, {"fwd_tflops", fwd_flops / fwd_wgmma * 1e-9}, {"bwd_ms", bwd_wgmma},
                             {"bwd_tflops", 2.5 * fwd_flops / bwd_wgmma * 1e-9}};
  if (has_wgmma) {
    r["bf16_flash_wgmma_kv"] = {{"bwd_ms", bwd_wgmma_kv}, {"bwd_tflops", 2.5 * fwd_flops / bwd_wgmma_kv * 1e-9}};
    r["bf16_flash_wgmma_2g"] = {{"fwd_ms", fwd_wgmma_2g}, {"fwd_tflops", fwd_flops / fwd_wgmma_2g * 1e-9}};
    r["bf16_flash_wgmma_ov"] = {{"fwd_ms", fwd_wgmma_ov}, {"fwd_tflops", fwd_flops / fwd_wgmma_ov * 1e-9}};
  }
  return r;
}

}  // namespace popebench
