// The fused attention kernels (both families: the whole-sequence kernels for T <= 64, the tiled
// ones beyond; fp32 and TF32 products) against the CPU reference computed in double, on awkward
// shapes, with fresh random inputs and NaN-poisoned outputs.
//
// Tolerances (normwise relative error, ||gpu - ref|| / ||ref||):
// - fp32 kernels: 1e-4. fp32 rounding is 6e-8 per operation; the longest sums here (4100 keys x
//   256 channels) give a typical relative error of sqrt(n) * 6e-8 ~ 6e-5, and __expf / sincosf
//   add a few ulp. An indexing or masking bug gives errors of order 1.
// - TF32 products: below, beside their constants.
#include <catch2/catch.hpp>

#include "kernels/cpu/attention.hpp"
#include "kernels/cpu/pope.hpp"
#include "kernels/cpu/rope.hpp"
#include "kernels/cuda/kernels.hpp"
#include "model/pe/pe_alibi.hpp"
#include "model/pe/pe_pope.hpp"
#include "model/pe/pe_rope.hpp"
#include "tests/attention_reference.hpp"
#include "tests/cuda_testing.hpp"
#include "tests/gradcheck.hpp"

using namespace popebench;
using namespace popebench::test;

namespace {
constexpr double kFp32Tol = 1e-4;
// Attention with its products on TF32 tensor cores (--gpu-attention tf32): every product's
// operands rounded to 10 mantissa bits. tests/tf32_attention_error.py emulates exactly that on
// these tests' cases (B rows of 2 heads; masked pads and learned temperatures) and measures each
// error as the checks below do. Its worst over 30 draws per case: output 4.1e-4, dqkv 6.5e-4,
// PoPE's delta gradient 3.9e-3 (2.8e-3 at T = 1 against its floor), the log-temperature
// gradient 9.3e-3 (5.6e-4 at T = 1): `python3 tests/tf32_attention_error.py 30`. The limits are
// about 3x those. The two summed gradients cancel: d log-temperature is sum_ts dS_ts S_ts with
// each row of dS summing to 0, so the exact value is often a small part of its terms' size
// (sqrt(D) |dqkv|), and as a plain relative error it is heavy-tailed. Its check therefore floors
// the scale at 1e-2 of that size (kTf32AttnTempFloor x the default 1e-3), where the model's
// errors stay under 1e-2; a wrong formula still errs by O(|reference|) whenever the reference is
// above that floor. At T = 1
// both sums are exactly 0 and the floor is 200 x the default. A wrong tile, k-range or
// transpose errs by O(1). On the H200 (5046a6d) the earlier limit of 6e-3 on the temperature
// gradient without the 1e-2 floor failed twice (8.1e-3 and 9.9e-3, masked pads with
// temperatures at T 16 and 7, D 64): inside the model's spread, which then did not model
// temperatures.
constexpr double kTf32AttnTol = 2e-3, kTf32AttnDeltaTol = 1.2e-2, kTf32AttnTempTol = 3e-2;
constexpr double kTf32AttnT1Floor = 200, kTf32AttnTempFloor = 10;
uint64_t g_seed = 5000;  // fresh inputs for every case (other seeds than test_cuda_kernels.cpp's)
std::vector<double> rnd(size_t n, double scale = 1.0) { return randn(n, g_seed++, scale); }

// n_rot 0: the full head dim; alibi: the ALiBi slopes of an H-head model (alibi_half: of H/2).
// A small gradient (d delta, d log-temperature) against its reference: at T = 1 the softmax has
// one key, so these are exactly 0 and a relative error is meaningless; the error is measured
// against the scale of the same call's other gradients (dqkv) instead.
// floor_mult scales that floor for a gradient whose natural size is not dqkv's (below).
double small_grad_err(const std::vector<float>& got, const std::vector<double>& ref, const std::vector<double>& dqkv,
                      double floor_mult = 1.0) {
  double scale = 0, d2 = 0, ref2 = 0;
  for (double x : dqkv) scale += x * x;
  for (size_t i = 0; i < got.size(); ++i) d2 += (got[i] - ref[i]) * (got[i] - ref[i]);
  for (double x : ref) ref2 += x * x;
  return std::sqrt(d2) / std::max(std::sqrt(ref2), 1e-3 * floor_mult * std::sqrt(scale));
}

void check_attention(int B, int T, int H, int D, cuda::PEKind pe, int n_rot = 0, bool alibi = false,
                     bool alibi_half = false, const AttnExtras& ex = {}, bool tf32 = false) {
  const int C = H * D;
  if (n_rot == 0) n_rot = D;
  std::vector<double> slopes = alibi ? alibi_slopes(H, alibi_half) : std::vector<double>{};
  auto qkv = rnd(size_t(B) * T * 3 * C), dout = rnd(size_t(B) * T * C);
  std::vector<double> delta(size_t(H) * D);
  Pcg32 r(g_seed++, 3);
  // Mostly inside [-2 pi, 0], some outside, to exercise the clamp and its zero gradient.
  for (auto& d : delta) d = -7.0 + 8.0 * r.uniform01();
  AttnRef ref = attention_reference(B, T, H, D, pe, n_rot, slopes, qkv, delta, dout, ex);
  auto th = pe == cuda::PEKind::kPope ? pope_thetas(D, 10000) : rope_thetas(n_rot, 10000);
  DevBuf<float> d_qkv(to_float(qkv)), d_dout(to_float(dout)), d_delta(to_float(delta)), d_out(size_t(B) * T * C),
      d_lse(size_t(B) * H * T), d_dqkv(size_t(B) * T * 3 * C), d_ddp(size_t(B) * T * C), d_dd(size_t(H) * D);
  DevBuf<double> d_th(th);
  DevBuf<float> d_slopes(to_float(alibi ? slopes : std::vector<double>(H, 0.0)));
  const bool temp = !ex.log_temp.empty(), masked = !ex.key_start.empty();
  DevBuf<float> d_lt(to_float(temp ? ex.log_temp : std::vector<double>(H, 0.0))), d_dtp(size_t(B) * T * H), d_dt(H);
  DevBuf<int32_t> d_ks(masked ? ex.key_start : std::vector<int32_t>(B, 0));
  cuda::AttentionArgs a{B, T, H, D, pe, d_th.p, pe == cuda::PEKind::kPope ? d_delta.p : nullptr,
                        float(1.0 / std::sqrt(double(D))), n_rot, alibi ? d_slopes.p : nullptr,
                        masked ? d_ks.p : nullptr, temp ? d_lt.p : nullptr};
  a.tf32_products = tf32;
  cuda::attention_fwd(a, d_qkv.p, d_out.p, d_lse.p, nullptr);
  cuda::attention_bwd(a, d_qkv.p, d_out.p, d_dout.p, d_lse.p, d_dqkv.p, pe == cuda::PEKind::kPope ? d_ddp.p : nullptr, nullptr,
                      temp ? d_dtp.p : nullptr);
  if (pe == cuda::PEKind::kPope) cuda::column_sum(d_ddp.p, d_dd.p, B * T, C, nullptr);
  if (temp) cuda::column_sum(d_dtp.p, d_dt.p, B * T, H, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  INFO("B=" << B << " T=" << T << " H=" << H << " D=" << D << " pe=" << int(pe) << " n_rot=" << n_rot
              << " alibi=" << alibi << " half=" << alibi_half << " masked=" << masked << " temp=" << temp
              << " tf32=" << tf32);
  // Beyond the whole-sequence kernels (T > 64) the flag runs the fp32 tiled kernels: fp32 limits.
  const bool rounded = tf32 && cuda::attention_has_tf32_form(T, D);
  const double tol = rounded ? kTf32AttnTol : kFp32Tol;
  const double delta_tol = rounded ? kTf32AttnDeltaTol : kFp32Tol, temp_tol = rounded ? kTf32AttnTempTol : kFp32Tol;
  const double t1_floor = rounded ? kTf32AttnT1Floor : 10.0;
  CHECK(rel_err(d_out.download(), ref.out) < tol);
  CHECK(rel_err(d_dqkv.download(), ref.dqkv) < tol);
  // d delta at T = 1: every row has one key, so the exact gradient is 0 and the GPU returns the
  // roundoff of ds = dp - rowsum(dO o O) carried through q' and k'. Measured on the H200 (e31e3d6;
  // masked-pad draws at D 64 and 128): 1.1-1.4e-7 of |dqkv|, about one fp32 epsilon, just over
  // the default floor's 1e-3 x 1e-4 = 1e-7. At T = 1 the floor is ten times that (a limit of 1e-6
  // of |dqkv|, ~8 epsilons); a wrong formula cannot show there anyway (ds is 0), and at T > 1,
  // where it can, the check is unchanged.
  if (pe == cuda::PEKind::kPope)
    CHECK(small_grad_err(d_dd.download(), ref.ddelta, ref.dqkv, T == 1 ? t1_floor : 1.0) < delta_tol);
  // d log-temperature_h is a sum over query rows of dq'.q' (D-long dot products): its natural size
  // is dq's (part of dqkv) times |q'| ~ rms(qkv) sqrt(D) = sqrt(D) here (unit normal inputs), so
  // its floor is dqkv's times sqrt(D). Measured on the H200 at T = 1, where it is exactly 0 and
  // the GPU returns fp32 roundoff: 1.1-2.4e-4 of the dqkv-only floor (over the limit), so
  // 1.3-2.5e-5 of this one (the same errors divided by sqrt(D), D 32-128; D 16 added later); at T > 1 the
  // reference itself is the scale and the floor does not apply.
  const double temp_floor = !rounded ? 1.0 : T == 1 ? t1_floor : kTf32AttnTempFloor;
  if (temp) CHECK(small_grad_err(d_dt.download(), ref.dtemp, ref.dqkv, std::sqrt(double(D)) * temp_floor) < temp_tol);
}

// The angle table (AttentionArgs::angle_scratch, attention_angles.cu) holds what the kernels
// compute without it, so every output must keep its bits: the forward's out and lse, the
// backward's dqkv and its delta and temperature terms. Batches of `runs` runs of `rows` rows,
// each run its own delta and log-temperatures (at an awkward parameter stride), as a batched model
// lays them out; `extras` adds masked left pads and learned temperatures.
void check_angle_table_bits(int runs, int rows, int T, int H, int D, cuda::PEKind pe, int n_rot, bool tf32,
                            bool extras) {
  const int B = runs * rows, C = H * D;
  const bool pope = pe == cuda::PEKind::kPope;
  const size_t stride = size_t(H) * D + H + 5;  // a run's delta (H, D), then its log-temperatures (H)
  auto qkv = to_float(rnd(size_t(B) * T * 3 * C)), dout = to_float(rnd(size_t(B) * T * C));
  std::vector<float> params(runs * stride);
  Pcg32 r(g_seed++, 7);
  for (int run = 0; run < runs; ++run) {
    for (int i = 0; i < H * D; ++i) params[run * stride + i] = float(-7.0 + 8.0 * r.uniform01());
    for (int h = 0; h < H; ++h) params[run * stride + H * D + h] = float(0.6 * r.uniform01() - 0.3);
  }
  std::vector<int32_t> key_start(B);
  for (int b = 0; b < B; ++b) key_start[b] = (b * 5) % T;
  auto th = pope ? pope_thetas(D, 10000) : rope_thetas(n_rot, 10000);
  DevBuf<float> d_qkv(qkv), d_dout(dout), d_params(params);
  DevBuf<double> d_th(th);
  DevBuf<int32_t> d_ks(key_start);
  cuda::AttentionArgs a{B, T, H, D, pe, d_th.p, pope ? d_params.p : nullptr, float(1.0 / std::sqrt(double(D))), n_rot,
                        nullptr, extras ? d_ks.p : nullptr, extras ? d_params.p + H * D : nullptr};
  a.runs = runs > 1 ? cuda::RunStride{rows, stride} : cuda::RunStride{};
  a.tf32_products = tf32;
  const size_t need = cuda::attention_angle_floats(T, D, H, pe, n_rot, runs);
  struct Outputs {
    std::vector<float> out, lse, dqkv, ddelta_part, dtemp_part;
  };
  // kNoTable: every block computes its angles; kEachCall: the forward and the backward each fill
  // the table; kBackwardReads: the backward reads the forward's table (angle_table_filled), as the
  // model's step does.
  enum class Table { kNoTable, kEachCall, kBackwardReads };
  auto run_once = [&](Table table) {
    DevBuf<float> out(size_t(B) * T * C), lse(size_t(B) * H * T), dqkv(size_t(B) * T * 3 * C),
        ddp(size_t(B) * T * C), dtp(size_t(B) * T * H), scratch(need);
    cuda::AttentionArgs b = a;
    if (table != Table::kNoTable) b.angle_scratch = scratch.p, b.angle_scratch_floats = need;
    cuda::attention_fwd(b, d_qkv.p, out.p, lse.p, nullptr);
    b.angle_table_filled = table == Table::kBackwardReads;
    cuda::attention_bwd(b, d_qkv.p, out.p, d_dout.p, lse.p, dqkv.p, pope ? ddp.p : nullptr, nullptr,
                        extras ? dtp.p : nullptr);
    return Outputs{out.download(), lse.download(), dqkv.download(), ddp.download(), dtp.download()};
  };
  const Outputs without = run_once(Table::kNoTable);
  for (Table table : {Table::kEachCall, Table::kBackwardReads}) {
    const Outputs with = run_once(table);
    INFO("runs=" << runs << " rows=" << rows << " T=" << T << " H=" << H << " D=" << D << " pe=" << int(pe)
                 << " n_rot=" << n_rot << " tf32=" << tf32 << " extras=" << extras << " table floats=" << need
                 << " backward reads the forward's table=" << (table == Table::kBackwardReads));
    CHECK(count_differing_bits(with.out, without.out) == 0);
    CHECK(count_differing_bits(with.lse, without.lse) == 0);
    CHECK(count_differing_bits(with.dqkv, without.dqkv) == 0);
    CHECK(count_differing_bits(with.ddelta_part, without.ddelta_part) == 0);
    CHECK(count_differing_bits(with.dtemp_part, without.dtemp_part) == 0);
  }
}
}  // namespace

// T <= 64 at head dims 16, 32 and 64 runs the whole-sequence kernels (attention_short.cu), the rest
// the tiled ones: the lengths straddle that switch (64, 65) and the short kernels' padding of T
// to a multiple of 16 (1, 7, 16, 33, 48).
TEST_CASE("fused attention matches the CPU reference at T 1 to 97 and head dims 16 32 64 128", "[cuda][attention]") {
  for (auto pe : {cuda::PEKind::kNone, cuda::PEKind::kRope, cuda::PEKind::kPope})
    for (int D : {16, 32, 64, 128})
      for (int T : {1, 7, 16, 33, 48, 64, 65, 97}) check_attention(3, T, 2, D, pe);
}

TEST_CASE("fused attention with RoPE on half the channels and with ALiBi matches the CPU", "[cuda][attention]") {
  for (int D : {16, 32, 64, 128})
    for (int T : {1, 7, 48, 64, 65, 97}) {
      check_attention(3, T, 2, D, cuda::PEKind::kRope, D / 2);
      check_attention(3, T, 4, D, cuda::PEKind::kNone, 0, true);
      check_attention(3, T, 4, D, cuda::PEKind::kNone, 0, true, true);
    }
  // Long T: ALiBi's bias reaches slope * 1024 = 256 for the steepest head, so most weights are
  // exp(-large) = 0 and a sign error in the bias would show at once.
  check_attention(1, 1025, 4, 64, cuda::PEKind::kNone, 0, true);
  check_attention(1, 1025, 2, 64, cuda::PEKind::kRope, 32);
}

// Masked left pads and learned temperatures (the screen's --pad-attention masked and --attn-temp
// learned), in both kernel families: rows with no pads, a few, more than one 32-key tile of them
// (the tiled forward skips whole tiles), and all but the last position.
TEST_CASE("fused attention with masked pads and learned temperatures matches the CPU", "[cuda][attention]") {
  for (auto pe : {cuda::PEKind::kNone, cuda::PEKind::kRope, cuda::PEKind::kPope})
    for (int D : {16, 32, 64, 128})
      for (int T : {1, 7, 33, 48, 64, 65, 97}) {
        AttnExtras ex;
        ex.key_start = {0, std::min(3, T - 1), std::min(40, T - 1), T - 1};
        ex.log_temp = {0.3, -0.5};
        check_attention(4, T, 2, D, pe, 0, false, false, ex);
        check_attention(4, T, 2, D, pe, 0, false, false, AttnExtras{ex.key_start, {}});
        check_attention(4, T, 2, D, pe, 0, false, false, AttnExtras{{}, ex.log_temp});
      }
  AttnExtras ex{{0, 5, 100}, {0.2, -0.1, 0.4, 0.0}};
  check_attention(3, 129, 4, 64, cuda::PEKind::kNone, 0, true, false, ex);  // with ALiBi
}

// --gpu-attention tf32: the whole-sequence kernels with their products on TF32 tensor cores, at
// every T and head dim they take (the padding of T to 16 included), every PE, ALiBi, masked pads
// and learned temperatures; beyond T 64 the flag must change nothing (the tiled fp32 kernels).
TEST_CASE("fused attention on TF32 tensor cores matches the CPU reference within TF32's rounding", "[cuda][attention][tf32]") {
  for (auto pe : {cuda::PEKind::kNone, cuda::PEKind::kRope, cuda::PEKind::kPope})
    for (int D : {16, 32, 64})
      for (int T : {1, 7, 16, 33, 48, 64}) {
        check_attention(3, T, 2, D, pe, 0, false, false, {}, true);
        AttnExtras ex;
        ex.key_start = {0, std::min(3, T - 1), std::min(40, T - 1), T - 1};
        ex.log_temp = {0.3, -0.5};
        check_attention(4, T, 2, D, pe, 0, false, false, ex, true);
      }
  for (int D : {16, 64}) {
    check_attention(3, 47, 2, D, cuda::PEKind::kRope, D / 2, false, false, {}, true);
    check_attention(3, 47, 4, D, cuda::PEKind::kNone, 0, true, false, {}, true);
  }
  check_attention(2, 65, 2, 64, cuda::PEKind::kPope, 0, false, false, {}, true);  // tiled: the fp32 tolerance holds
}

// The angle table in every form the whole-sequence kernels take: RoPE on all and on half the
// channels, PoPE, fp32 and TF32 products, one run and batches of runs, T on either side of the
// padding to 16, and beyond the short kernels (T 65: the table is not used, nothing changes).
TEST_CASE("the attention angle table changes no bit of the outputs", "[cuda][attention]") {
  for (auto pe : {cuda::PEKind::kRope, cuda::PEKind::kPope})
    for (int D : {16, 32, 64})
      for (int T : {1, 7, 33, 48, 64}) {
        check_angle_table_bits(1, 3, T, 2, D, pe, D, false, false);
        check_angle_table_bits(3, 2, T, 2, D, pe, D, false, true);
        check_angle_table_bits(3, 2, T, 2, D, pe, D, true, true);
        if (pe == cuda::PEKind::kRope) check_angle_table_bits(2, 3, T, 2, D, pe, D / 2, false, true);
      }
  check_angle_table_bits(2, 2, 47, 8, 64, cuda::PEKind::kPope, 64, false, false);  // the paper's shape, 8 heads
  check_angle_table_bits(2, 2, 65, 2, 64, cuda::PEKind::kPope, 64, false, true);   // tiled kernels
  check_angle_table_bits(2, 2, 7, 2, 64, cuda::PEKind::kNone, 64, false, true);    // no PE: no table
}

// The table's size: none where nothing is computed; a scratch smaller than the call's table is
// refused before any kernel runs.
TEST_CASE("the attention angle table's size, and too small a scratch refused", "[cuda][attention]") {
  CHECK(cuda::attention_angle_floats(48, 64, 8, cuda::PEKind::kNone, 64, 4) == 0);
  CHECK(cuda::attention_angle_floats(65, 64, 8, cuda::PEKind::kPope, 64, 4) == 0);   // tiled kernels
  CHECK(cuda::attention_angle_floats(48, 128, 8, cuda::PEKind::kPope, 128, 4) == 0); // D 128: tiled
  CHECK(cuda::attention_angle_floats(48, 64, 8, cuda::PEKind::kRope, 32, 4) == 2 * 48 * 16);
  CHECK(cuda::attention_angle_floats(48, 64, 8, cuda::PEKind::kPope, 64, 4) == 2 * (48 * 64 + 4 * 8 * 48 * 64));
  // The flash kernels' table: the query angles at any T, PoPE's keys turned by delta in the kernel.
  CHECK(cuda::attention_angle_floats(4100, 128, 8, cuda::PEKind::kPope, 128, 4, true) == 2 * 4100 * 128);
  CHECK(cuda::attention_angle_floats(4100, 64, 8, cuda::PEKind::kRope, 32, 4, true) == 2 * 4100 * 16);
  CHECK(cuda::attention_angle_floats(4100, 64, 8, cuda::PEKind::kNone, 64, 4, true) == 0);
  CHECK_FALSE(cuda::attention_angles_hold_params(cuda::PEKind::kPope, true));
  DevBuf<double> th(pope_thetas(64, 10000));
  DevBuf<float> delta(size_t(8) * 64), scratch(16);
  cuda::AttentionArgs a{2, 48, 8, 64, cuda::PEKind::kPope, th.p, delta.p, 0.125f, 64};
  a.angle_scratch = scratch.p;
  a.angle_scratch_floats = 16;
  CHECK_THROWS_WITH(cuda::attention_fwd(a, nullptr, nullptr, nullptr, nullptr), Catch::Contains("angle scratch holds 16"));
  CHECK_THROWS_WITH(cuda::attention_bwd(a, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
                    Catch::Contains("angle scratch holds 16"));
  a.angle_table_filled = true;  // a table said to be filled is still checked for size
  CHECK_THROWS_WITH(cuda::attention_bwd(a, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
                    Catch::Contains("angle scratch holds 16"));
}

// angle_table_filled makes a call read the table as it finds it: with the forward's table
// overwritten by NaNs, a backward told the table is filled returns NaNs (so it did not refill it:
// the fill the model's step saves is really skipped), and one not told so refills it and matches
// the backward after an intact forward table bit for bit. A table filled up front by
// attention_fill_angles and read by every call (RoPE's, in the model) gives the same bits too.
TEST_CASE("a call told the angle table is filled reads it without filling it, and a table filled up front serves every call", "[cuda][attention]") {
  const int B = 2, T = 33, H = 2, D = 64, C = H * D;
  for (auto pe : {cuda::PEKind::kRope, cuda::PEKind::kPope}) {
    const bool pope = pe == cuda::PEKind::kPope;
    auto qkv = to_float(rnd(size_t(B) * T * 3 * C)), dout = to_float(rnd(size_t(B) * T * C));
    std::vector<float> delta(size_t(H) * D);
    for (size_t i = 0; i < delta.size(); ++i) delta[i] = float(-0.05 * double(i % 97));
    DevBuf<float> d_qkv(qkv), d_dout(dout), d_delta(delta), out(size_t(B) * T * C), lse(size_t(B) * H * T),
        ddp(size_t(B) * T * C);
    DevBuf<double> th(pope ? pope_thetas(D, 10000) : rope_thetas(D, 10000));
    const size_t need = cuda::attention_angle_floats(T, D, H, pe, D, 1);
    REQUIRE(need > 0);
    DevBuf<float> scratch(need);
    cuda::AttentionArgs a{B, T, H, D, pe, th.p, pope ? d_delta.p : nullptr, 0.125f, D};
    a.angle_scratch = scratch.p;
    a.angle_scratch_floats = need;
    auto backward = [&](bool filled, bool poison) {
      cuda::attention_fwd(a, d_qkv.p, out.p, lse.p, nullptr);
      if (poison) CUDA_CHECK(cudaMemset(scratch.p, 0xff, need * sizeof(float)));  // 0xffffffff: a NaN
      cuda::AttentionArgs b = a;
      b.angle_table_filled = filled;
      DevBuf<float> dqkv(size_t(B) * T * 3 * C);
      cuda::attention_bwd(b, d_qkv.p, out.p, d_dout.p, lse.p, dqkv.p, pope ? ddp.p : nullptr, nullptr);
      return dqkv.download();
    };
    INFO("pe=" << int(pe));
    const auto intact = backward(true, false), refilled = backward(false, true), stale = backward(true, true);
    CHECK(count_differing_bits(refilled, intact) == 0);
    size_t nan = 0;
    for (float x : stale) nan += std::isnan(x) ? 1 : 0;
    CHECK(nan > stale.size() / 2);  // queries and keys both read the poisoned angles
    // The model's form for RoPE (whose table holds no parameter): attention_fill_angles once,
    // then every call told the table is filled; the same bits as the forward filling it.
    const auto out_ref = out.download();
    CUDA_CHECK(cudaMemset(scratch.p, 0xff, need * sizeof(float)));
    cuda::attention_fill_angles(a, nullptr);
    cuda::AttentionArgs f = a;
    f.angle_table_filled = true;
    DevBuf<float> out2(size_t(B) * T * C), lse2(size_t(B) * H * T), dqkv2(size_t(B) * T * 3 * C);
    cuda::attention_fwd(f, d_qkv.p, out2.p, lse2.p, nullptr);
    cuda::attention_bwd(f, d_qkv.p, out2.p, d_dout.p, lse2.p, dqkv2.p, pope ? ddp.p : nullptr, nullptr);
    CHECK(count_differing_bits(out2.download(), out_ref) == 0);
    CHECK(count_differing_bits(dqkv2.download(), intact) == 0);
    CHECK(cuda::attention_angles_hold_params(pe) == pope);
  }
}

// The whole-sequence kernels' blocks per SM at the paper's shape (T 47, D 64), which their shared
// memory layouts and register caps are built for (bench/log/024-pope-s-backward-in-75-kb.md and
// bench/log/025-pope-s-forward-in-50-kb.md): the backward 3 for PoPE (2 before its buffers were reused), 4 for
// RoPE and no PE (3 before); every forward 4 (PoPE's 3 before). The counts hold for an SM of
// 228 KB of shared memory and 64K registers (Hopper); elsewhere the case is skipped
// (skip_test_case).
TEST_CASE("the whole-sequence attention kernels fit their designed blocks per SM", "[cuda][attention]") {
  int dev = 0;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  if (prop.sharedMemPerMultiprocessor < 228 * 1024 || prop.regsPerMultiprocessor != 65536) {
    test::skip_test_case("blocks per SM not checked: this GPU's SM has " +
                         std::to_string(prop.sharedMemPerMultiprocessor / 1024) + " KB of shared memory, the counts assume 228");
    return;
  }
  for (auto pe : {cuda::PEKind::kNone, cuda::PEKind::kRope, cuda::PEKind::kPope}) {
    cuda::AttentionArgs a{64, 47, 8, 64, pe, nullptr, nullptr, 0.125f, 64};
    const auto occ = cuda::attention_blocks_per_sm(a);
    REQUIRE(occ.has_value());
    INFO("pe=" << int(pe));
    CHECK(occ->fwd_blocks_per_sm == 4);
    CHECK(occ->bwd_blocks_per_sm == (pe == cuda::PEKind::kPope ? 3 : 4));
  }
  cuda::AttentionArgs tiled{64, 65, 8, 64, cuda::PEKind::kPope, nullptr, nullptr, 0.125f, 64};
  CHECK_FALSE(cuda::attention_blocks_per_sm(tiled).has_value());
}

TEST_CASE("fused attention refuses rope without a valid n_rot", "[cuda][attention]") {
  cuda::AttentionArgs a{1, 4, 1, 64, cuda::PEKind::kRope, nullptr, nullptr, 0.125f};  // n_rot left 0
  CHECK_THROWS_WITH(cuda::attention_fwd(a, nullptr, nullptr, nullptr, nullptr), Catch::Contains("even n_rot"));
  a.n_rot = 65;
  CHECK_THROWS_WITH(cuda::attention_bwd(a, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
                    Catch::Contains("even n_rot"));
}

TEST_CASE("fused attention matches at T = 1025", "[cuda][attention]") {
  for (auto pe : {cuda::PEKind::kRope, cuda::PEKind::kPope}) check_attention(1, 1025, 2, 64, pe);
}

TEST_CASE("fused PoPE attention keeps precision at long positions (T = 4100)", "[cuda][attention]") {
  // t * theta reaches 4099 rad: in fp32 the angle alone would be off by ~2.4e-4 rad; the kernel
  // forms angles in double, so the error stays at fp32 rounding of the result.
  check_attention(1, 4100, 1, 64, cuda::PEKind::kPope);
}
