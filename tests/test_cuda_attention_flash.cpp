// The bf16 tensor-core attention (AttentionArgs::bf16_flash, kernels/cuda/attention_flash.cu),
// forward and backward, against the double CPU reference, on awkward T (1 to 4100, across its
// 64-row, 32- and 64-key tiles; and the forward's last rows at T 16,500), head dims 16, 32, 64 and
// 128, every PE kind, ALiBi, masked left pads, learned temperatures, with and without the angle
// table.
//
// Tolerance (flash-attention's rule): the kernel's error against the double reference may be at
// most twice the error of the same attention computed naively in bf16 against the same reference,
// on the same inputs. "Naively": the transformed queries (times the score's multiplier), keys and
// the values rounded to bf16 once, scores summed exactly, the softmax in double, the probabilities
// rounded to bf16 before the product with V, normalised by the unrounded sum. That is the rounding
// the kernel cannot avoid; what it adds (fp32 sums, the online softmax's rescaling of P against a
// running max) is of the same order, so 2x holds for a correct kernel. A wrong tile, mask or
// transpose errs by O(1), far above it. A small floor (1e-6) keeps a case whose naive error is
// near 0 from demanding exactness. The backward's naive form, likewise: dO rounded to bf16, P
// recomputed from the rounded operands and the lse, dP and dS exact, then P and dS rounded to
// bf16 for their products (dV = P^T dO, dK = dS^T Q, dQ = dS K), the PE's backward in double.
// PoPE's delta gradient and the log-temperature gradient are small sums that cancel (see
// test_cuda_attention.cpp): their errors are measured against a floor of 1e-3 of |dqkv| (times
// sqrt(D) for the temperature, whose natural size is dq's times |q'|).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cuda/attention_flash.hpp"
#include "kernels/cuda/attention_flash_wgmma.hpp"
#include "model/pe/pe_alibi.hpp"
#include "tests/attention_reference.hpp"
#include "tests/cuda_testing.hpp"
#include "tests/gradcheck.hpp"

using namespace popebench;
using namespace popebench::test;

namespace {
uint64_t g_seed = 9000;  // fresh inputs for every case (other seeds than the other attention tests')
std::vector<double> rnd(size_t n) { return randn(n, g_seed++, 1.0); }

struct FlashRef {
  std::vector<double> out, lse;  // (B, T, H, D) and (B, H, T)
  std::vector<double> dqkv, ddelta, dtemp;  // (B, T, 3, H, D), (H, D), (H): given dout
};
// The forward in double, and the backward given dout; bf16: with the naive bf16 rounding the
// header describes. rows_from > 0 (forward only): the query rows from there on, the rest left 0.
FlashRef flash_reference(int B, int T, int H, int D, cuda::PEKind pe, int n_rot, const std::vector<double>& slopes,
                         const std::vector<double>& qkv, const std::vector<double>& delta, const AttnExtras& ex,
                         bool bf16, const std::vector<double>* dout = nullptr, int rows_from = 0) {
  const int C = H * D;
  const size_t nh = size_t(B) * H * T;
  HeadsRef in = heads_through_pe(B, T, H, D, pe, n_rot, qkv, delta);
  const int DQ = in.DQ;
  const std::vector<double>& qp = in.qp;
  std::vector<double>& kp = in.kp;
  std::vector<double>& v = in.v;
  if (bf16) {  // the keys and values are rounded once, as the kernel rounds each tile it loads
    for (auto& x : kp) x = round_bf16(x);
    for (auto& x : v) x = round_bf16(x);
  }
  std::vector<double> qsc(nh * DQ);  // (B, H, T, DQ) the scaled queries as the products see them
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const double mul = (1.0 / std::sqrt(double(D))) * (ex.log_temp.empty() ? 1.0 : std::exp(ex.log_temp[h]));
      const size_t bh = (size_t(b) * H + h) * T;
      for (size_t i = bh * DQ; i < (bh + T) * DQ; ++i) qsc[i] = bf16 ? round_bf16(qp[i] * mul) : qp[i] * mul;
    }
  FlashRef r;
  r.out.assign(size_t(B) * T * C, 0.0);
  r.lse.assign(nh, 0.0);
  std::vector<double> s(T), qs(DQ);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const size_t bh = (size_t(b) * H + h) * T;
      for (int t = rows_from; t < T; ++t) {
        const int ks = ex.key_start.empty() ? 0 : ex.key_start[b], lo = t < ks ? t : ks;
        for (int c = 0; c < DQ; ++c) qs[c] = qsc[(bh + t) * DQ + c];
        double mx = -std::numeric_limits<double>::infinity();
        for (int j = lo; j <= t; ++j) {
          double acc = 0;
          for (int c = 0; c < DQ; ++c) acc += qs[c] * kp[(bh + j) * DQ + c];
          s[j] = acc - (slopes.empty() ? 0.0 : slopes[h] * double(t - j));
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (int j = lo; j <= t; ++j) sum += std::exp(s[j] - mx);
        r.lse[bh + t] = mx + std::log(sum);
        double* o = r.out.data() + (size_t(b) * T + t) * C + size_t(h) * D;
        for (int j = lo; j <= t; ++j) {
          const double p = bf16 ? round_bf16(std::exp(s[j] - mx)) : std::exp(s[j] - mx);
          for (int c = 0; c < D; ++c) o[c] += p * v[(bh + j) * D + c];
        }
        for (int c = 0; c < D; ++c) o[c] /= sum;
      }
    }
  if (!dout || rows_from > 0) return r;
  // The backward (the naive bf16 form when bf16; the exact one otherwise).
  std::vector<double> dqp(nh * DQ, 0.0), dkp(nh * DQ, 0.0), dv(nh * D, 0.0), dob(D);
  r.dtemp.assign(H, 0.0);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const double mul = (1.0 / std::sqrt(double(D))) * (ex.log_temp.empty() ? 1.0 : std::exp(ex.log_temp[h]));
      const size_t bh = (size_t(b) * H + h) * T;
      for (int t = 0; t < T; ++t) {
        const int ks = ex.key_start.empty() ? 0 : ex.key_start[b], lo = t < ks ? t : ks;
        const double* g = dout->data() + (size_t(b) * T + t) * C + size_t(h) * D;
        const double* o = r.out.data() + (size_t(b) * T + t) * C + size_t(h) * D;
        double di = 0;
        for (int c = 0; c < D; ++c) {
          di += g[c] * o[c];
          dob[c] = bf16 ? round_bf16(g[c]) : g[c];
        }
        const double* q = qsc.data() + (bh + t) * DQ;
        std::vector<double> dq(DQ, 0.0);
        for (int j = lo; j <= t; ++j) {
          const double* kj = kp.data() + (bh + j) * DQ;
          const double* vj = v.data() + (bh + j) * D;
          double sc = 0, dp = 0;
          for (int c = 0; c < DQ; ++c) sc += q[c] * kj[c];
          for (int c = 0; c < D; ++c) dp += dob[c] * vj[c];
          const double p = std::exp(sc - (slopes.empty() ? 0.0 : slopes[h] * double(t - j)) - r.lse[bh + t]);
          const double ds = bf16 ? round_bf16(p * (dp - di)) : p * (dp - di), pb = bf16 ? round_bf16(p) : p;
          for (int c = 0; c < D; ++c) dv[(bh + j) * D + c] += pb * dob[c];
          for (int c = 0; c < DQ; ++c) {
            dkp[(bh + j) * DQ + c] += ds * q[c];
            dq[c] += ds * kj[c];
          }
        }
        double dt = 0;
        for (int c = 0; c < DQ; ++c) {
          dqp[(bh + t) * DQ + c] = dq[c] * mul;  // the gradient of the unscaled transformed query
          dt += dq[c] * mul * qp[(bh + t) * DQ + c];
        }
        r.dtemp[h] += dt;
      }
    }
  heads_backward(B, T, H, D, pe, n_rot, in, delta, dqp, dkp, dv, r.dqkv, r.ddelta);
  return r;
}

// A small summed gradient's error (PoPE's delta, the log-temperatures) against a floor of
// 1e-3 x floor_mult of |dqkv| (the header says why).
double small_err(const std::vector<float>& got, const std::vector<double>& ref, const std::vector<double>& dqkv,
                 double floor_mult) {
  double d2 = 0, r2 = 0, s2 = 0;
  for (size_t i = 0; i < ref.size(); ++i) d2 += (got[i] - ref[i]) * (got[i] - ref[i]);
  for (double x : ref) r2 += x * x;
  for (double x : dqkv) s2 += x * x;
  return std::sqrt(d2) / std::max(std::sqrt(r2), 1e-3 * floor_mult * std::sqrt(s2));
}
std::vector<float> as_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

// Normwise relative error of lse, whose values are of order log T: against the reference's norm.
double lse_err(const std::vector<float>& got, const std::vector<double>& ref) { return rel_err(got, ref); }

void check_flash(int B, int T, int H, int D, cuda::PEKind pe, int n_rot = 0, bool alibi = false,
                 const AttnExtras& ex = {}) {
  const int C = H * D;
  if (n_rot == 0) n_rot = D;
  const bool pope = pe == cuda::PEKind::kPope;
  const std::vector<double> slopes = alibi ? alibi_slopes(H, false) : std::vector<double>{};
  const auto qkv = rnd(size_t(B) * T * 3 * C), dout = rnd(size_t(B) * T * C);
  std::vector<double> delta(size_t(H) * D);
  Pcg32 r(g_seed++, 3);
  for (auto& d : delta) d = -7.0 + 8.0 * r.uniform01();  // some outside [-2 pi, 0]: the clamp
  const FlashRef exact = flash_reference(B, T, H, D, pe, n_rot, slopes, qkv, delta, ex, false, &dout);
  const FlashRef naive = flash_reference(B, T, H, D, pe, n_rot, slopes, qkv, delta, ex, true, &dout);
  auto th = pope ? pope_thetas(D, 10000) : rope_thetas(n_rot, 10000);
  DevBuf<float> d_qkv(to_float(qkv)), d_dout(to_float(dout)), d_delta(to_float(delta)), d_out(size_t(B) * T * C),
      d_lse(size_t(B) * H * T), d_dqkv(size_t(B) * T * 3 * C), d_ddp(size_t(B) * T * C), d_dd(size_t(H) * D);
  DevBuf<double> d_th(th);
  DevBuf<float> d_slopes(to_float(alibi ? slopes : std::vector<double>(H, 0.0)));
  const bool temp = !ex.log_temp.empty(), masked = !ex.key_start.empty();
  DevBuf<float> d_lt(to_float(temp ? ex.log_temp : std::vector<double>(H, 0.0))), d_dtp(size_t(B) * T * H), d_dt(H);
  DevBuf<int32_t> d_ks(masked ? ex.key_start : std::vector<int32_t>(B, 0));
  cuda::AttentionArgs a{B, T, H, D, pe, d_th.p, pope ? d_delta.p : nullptr, float(1.0 / std::sqrt(double(D))), n_rot,
                        alibi ? d_slopes.p : nullptr, masked ? d_ks.p : nullptr, temp ? d_lt.p : nullptr};
  a.bf16_flash = true;
  DevBuf<unsigned char> scratch(cuda::attention_flash_scratch_bytes(B, T, H, D, pe));
  a.flash_scratch = scratch.p;
  a.flash_scratch_bytes = scratch.n;
  auto run = [&](DevBuf<float>& o, DevBuf<float>& l, DevBuf<float>& dqkv, DevBuf<float>& ddp, DevBuf<float>& dtp) {
    cuda::attention_fwd(a, d_qkv.p, o.p, l.p, nullptr);
    cuda::attention_bwd(a, d_qkv.p, o.p, d_dout.p, l.p, dqkv.p, pope ? ddp.p : nullptr, nullptr, temp ? dtp.p : nullptr);
  };
  run(d_out, d_lse, d_dqkv, d_ddp, d_dtp);
  if (pope) cuda::column_sum(d_ddp.p, d_dd.p, B * T, C, nullptr);
  if (temp) cuda::column_sum(d_dtp.p, d_dt.p, B * T, H, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> out = d_out.download(), lse = d_lse.download(), dqkv = d_dqkv.download();
  INFO("B=" << B << " T=" << T << " H=" << H << " D=" << D << " pe=" << int(pe) << " n_rot=" << n_rot
            << " alibi=" << alibi << " masked=" << masked << " temp=" << temp);
  const double naive_out = rel_err(naive.out, exact.out), naive_lse = rel_err(naive.lse, exact.lse);
  const double got_out = rel_err(out, exact.out), got_lse = lse_err(lse, exact.lse);
  const double naive_dqkv = rel_err(naive.dqkv, exact.dqkv), got_dqkv = rel_err(dqkv, exact.dqkv);
  INFO("out: kernel " << got_out << ", naive bf16 " << naive_out << "; lse: kernel " << got_lse << ", naive bf16 "
                      << naive_lse << "; dqkv: kernel " << got_dqkv << ", naive bf16 " << naive_dqkv);
  CHECK(got_out <= 2 * naive_out + 1e-6);
  CHECK(got_lse <= 2 * naive_lse + 1e-6);
  CHECK(got_dqkv <= 2 * naive_dqkv + 1e-6);
  if (pope) {
    const double got = small_err(d_dd.download(), exact.ddelta, exact.dqkv, 1.0);
    const double nai = small_err(as_float(naive.ddelta), exact.ddelta, exact.dqkv, 1.0);
    INFO("d delta: kernel " << got << ", naive bf16 " << nai);
    CHECK(got <= 2 * nai + 1e-5);
  }
  if (temp) {
    const double got = small_err(d_dt.download(), exact.dtemp, exact.dqkv, std::sqrt(double(D)));
    const double nai = small_err(as_float(naive.dtemp), exact.dtemp, exact.dqkv, std::sqrt(double(D)));
    INFO("d log-temperature: kernel " << got << ", naive bf16 " << nai);
    CHECK(got <= 2 * nai + 1e-5);
  }
  // attention_fwd / attention_bwd (above) run the warpgroup kernels (attention_flash_wgmma_*.cu)
  // where this GPU runs them (head dims 64 and 128 on compute capability 9.0), the mma.sync kernels
  // (attention_flash.cu) elsewhere. Where both run, the family the dispatch did not take is
  // checked here, called directly, against the same reference and tolerances (their rounding
  // points are the same: bf16 operands, fp32 accumulation, P and dS rounded to bf16), with the
  // forward's same bits on a second call; and the dispatch's bits are the warpgroup kernels'.
  if (cuda::attn::flash_wgmma_runs(a)) {
    // One warpgroup a block and two (bench/log/039; the dispatch takes one of these and the
    // overlapped kernel below by D, PE and ALiBi): each group computes its 64 rows with the same
    // instructions in the same order, so each gives the dispatch's bits.
    DevBuf<float> ow(size_t(B) * T * C), lw(size_t(B) * H * T);
    cuda::attn::attention_fwd_flash_wgmma(a, d_qkv.p, ow.p, lw.p, nullptr, cuda::attn::WgFwdKernel::kOneGroup);
    INFO("one warpgroup a block");
    CHECK(count_differing_bits(ow.download(), out) == 0);
    CHECK(count_differing_bits(lw.download(), lse) == 0);
    DevBuf<float> o2g(size_t(B) * T * C), l2g(size_t(B) * H * T);
    cuda::attn::attention_fwd_flash_wgmma(a, d_qkv.p, o2g.p, l2g.p, nullptr, cuda::attn::WgFwdKernel::kTwoGroups);
    INFO("two warpgroups a block");
    CHECK(count_differing_bits(o2g.download(), out) == 0);
    CHECK(count_differing_bits(l2g.download(), lse) == 0);
    // Each tile's softmax under the products (bench/log/040): O, m and l see the same operations
    // in the same order, so the same bits.
    DevBuf<float> oov(size_t(B) * T * C), lov(size_t(B) * H * T);
    cuda::attn::attention_fwd_flash_wgmma(a, d_qkv.p, oov.p, lov.p, nullptr, cuda::attn::WgFwdKernel::kOverlapped);
    INFO("softmax overlapped with the products");
    CHECK(count_differing_bits(oov.download(), out) == 0);
    CHECK(count_differing_bits(lov.download(), lse) == 0);
    DevBuf<float> om(size_t(B) * T * C), lm(size_t(B) * H * T), om2(size_t(B) * T * C), lm2(size_t(B) * H * T);
    cuda::attn::attention_fwd_flash(a, d_qkv.p, om.p, lm.p, nullptr);
    cuda::attn::attention_fwd_flash(a, d_qkv.p, om2.p, lm2.p, nullptr);
    const std::vector<float> out_m = om.download(), lse_m = lm.download();
    const double m_out = rel_err(out_m, exact.out), m_lse = lse_err(lse_m, exact.lse);
    INFO("mma.sync forward: out " << m_out << ", lse " << m_lse);
    CHECK(m_out <= 2 * naive_out + 1e-6);
    CHECK(m_lse <= 2 * naive_lse + 1e-6);
    CHECK(count_differing_bits(om2.download(), out_m) == 0);
    CHECK(count_differing_bits(lm2.download(), lse_m) == 0);
    DevBuf<float> gm(size_t(B) * T * 3 * C), ddpm(size_t(B) * T * C), dtpm(size_t(B) * T * H), ddm(size_t(H) * D),
        dtm(H);
    cuda::attn::attention_bwd_flash(a, d_qkv.p, om.p, d_dout.p, lm.p, gm.p, pope ? ddpm.p : nullptr,
                                    temp ? dtpm.p : nullptr, nullptr);
    if (pope) cuda::column_sum(ddpm.p, ddm.p, B * T, C, nullptr);
    if (temp) cuda::column_sum(dtpm.p, dtm.p, B * T, H, nullptr);
    const double m_dqkv = rel_err(gm.download(), exact.dqkv);
    INFO("mma.sync backward: dqkv " << m_dqkv);
    CHECK(m_dqkv <= 2 * naive_dqkv + 1e-6);
    if (pope)
      CHECK(small_err(ddm.download(), exact.ddelta, exact.dqkv, 1.0) <=
            2 * small_err(as_float(naive.ddelta), exact.ddelta, exact.dqkv, 1.0) + 1e-5);
    if (temp)
      CHECK(small_err(dtm.download(), exact.dtemp, exact.dqkv, std::sqrt(double(D))) <=
            2 * small_err(as_float(naive.dtemp), exact.dtemp, exact.dqkv, std::sqrt(double(D))) + 1e-5);
    // bench/log/037's backward (dQ on warpgroup products, dK and dV on attention_flash.cu's
    // mma.sync kernel), which bench times against the dispatch's (038: all three on warpgroup
    // products), from the dispatch's forward: the same tolerances, and the same bits on a second
    // call.
    DevBuf<float> gk(size_t(B) * T * 3 * C), gk2(size_t(B) * T * 3 * C), ddpk(size_t(B) * T * C),
        ddpk2(size_t(B) * T * C), dtpk(size_t(B) * T * H), ddk(size_t(H) * D), dtk(H);
    cuda::attn::attention_bwd_flash_wgmma(a, d_qkv.p, d_out.p, d_dout.p, d_lse.p, gk.p, pope ? ddpk.p : nullptr,
                                          temp ? dtpk.p : nullptr, nullptr);
    cuda::attn::attention_bwd_flash_wgmma(a, d_qkv.p, d_out.p, d_dout.p, d_lse.p, gk2.p, pope ? ddpk2.p : nullptr,
                                          temp ? dtpk.p : nullptr, nullptr);
    if (pope) cuda::column_sum(ddpk.p, ddk.p, B * T, C, nullptr);
    if (temp) cuda::column_sum(dtpk.p, dtk.p, B * T, H, nullptr);
    const std::vector<float> dqkv_k = gk.download();
    const double k_dqkv = rel_err(dqkv_k, exact.dqkv);
    INFO("wgmma backward with mma.sync dK dV: dqkv " << k_dqkv);
    CHECK(k_dqkv <= 2 * naive_dqkv + 1e-6);
    CHECK(count_differing_bits(gk2.download(), dqkv_k) == 0);
    if (pope) {
      CHECK(count_differing_bits(ddpk2.download(), ddpk.download()) == 0);
      CHECK(small_err(ddk.download(), exact.ddelta, exact.dqkv, 1.0) <=
            2 * small_err(as_float(naive.ddelta), exact.ddelta, exact.dqkv, 1.0) + 1e-5);
    }
    if (temp)
      CHECK(small_err(dtk.download(), exact.dtemp, exact.dqkv, std::sqrt(double(D))) <=
            2 * small_err(as_float(naive.dtemp), exact.dtemp, exact.dqkv, std::sqrt(double(D))) + 1e-5);
  }
  // Deterministic: the same inputs give the same bits, forward and backward.
  DevBuf<float> o2(size_t(B) * T * C), l2(size_t(B) * H * T), g2(size_t(B) * T * 3 * C), ddp2(size_t(B) * T * C),
      dtp2(size_t(B) * T * H);
  run(o2, l2, g2, ddp2, dtp2);
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(count_differing_bits(o2.download(), out) == 0);
  CHECK(count_differing_bits(l2.download(), lse) == 0);
  CHECK(count_differing_bits(g2.download(), dqkv) == 0);
  if (pope) CHECK(count_differing_bits(ddp2.download(), d_ddp.download()) == 0);
  if (temp) CHECK(count_differing_bits(dtp2.download(), d_dtp.download()) == 0);
  // With the angle table (the query angles, filled by the forward as the model's first call
  // fills it), the same bits as without: the table holds what the kernels compute.
  const size_t table_floats = cuda::attention_angle_floats(T, D, H, pe, n_rot, 1, true);
  if (table_floats > 0) {
    DevBuf<float> table(table_floats);
    a.angle_scratch = table.p;
    a.angle_scratch_floats = table_floats;
    run(o2, l2, g2, ddp2, dtp2);
    CUDA_CHECK(cudaDeviceSynchronize());
    a.angle_scratch = nullptr;
    a.angle_scratch_floats = 0;
    INFO("with the angle table");
    CHECK(count_differing_bits(o2.download(), out) == 0);
    CHECK(count_differing_bits(g2.download(), dqkv) == 0);
    if (pope) CHECK(count_differing_bits(ddp2.download(), d_ddp.download()) == 0);
  }
}
}  // namespace

// The double reference of this file against the established one (tests/attention_reference.hpp),
// so that the tolerance's two errors are measured from the right values.
TEST_CASE("the flash test's double reference equals the attention reference", "[cuda][attention][flash]") {
  for (auto pe : {cuda::PEKind::kNone, cuda::PEKind::kRope, cuda::PEKind::kPope}) {
    const int B = 2, T = 9, H = 2, D = 16;
    const auto qkv = rnd(size_t(B) * T * 3 * H * D), dout = rnd(size_t(B) * T * H * D);
    std::vector<double> delta(size_t(H) * D, -1.0);
    AttnExtras ex{{0, 4}, {0.3, -0.2}};
    const auto slopes = alibi_slopes(H, false);
    const AttnRef ref = attention_reference(B, T, H, D, pe, D, slopes, qkv, delta, dout, ex);
    const FlashRef mine = flash_reference(B, T, H, D, pe, D, slopes, qkv, delta, ex, false, &dout);
    CHECK(rel_err(mine.out, ref.out) < 1e-12);
    CHECK(rel_err(mine.dqkv, ref.dqkv) < 1e-12);
    CHECK(rel_err(mine.dtemp, ref.dtemp) < 1e-12);
    if (pe == cuda::PEKind::kPope) CHECK(rel_err(mine.ddelta, ref.ddelta) < 1e-12);
  }
}

// T on both sides of the 64-row query blocks, the 64-key tiles and the backward's 32-query tiles
// (33, 63, 64, 65, 97, 129), and 1 and 7 as the other attention tests.
TEST_CASE("flash attention (bf16 tensor cores) matches the CPU reference, forward and backward", "[cuda][attention][flash]") {
  for (auto pe : {cuda::PEKind::kNone, cuda::PEKind::kRope, cuda::PEKind::kPope})
    for (int D : {16, 32, 64, 128})
      for (int T : {1, 7, 33, 63, 64, 65, 97, 129}) check_flash(3, T, 2, D, pe);
}

TEST_CASE("flash attention with RoPE on half the channels, ALiBi, masked pads and temperatures", "[cuda][attention][flash]") {
  for (int D : {16, 64, 128})
    for (int T : {7, 65, 130}) {
      check_flash(2, T, 2, D, cuda::PEKind::kRope, D / 2);
      check_flash(2, T, 4, D, cuda::PEKind::kNone, 0, true);
      for (auto pe : {cuda::PEKind::kNone, cuda::PEKind::kRope, cuda::PEKind::kPope}) {
        // pads: none, a few, more than one 64-key tile, all but the last position
        AttnExtras ex{{0, std::min(3, T - 1), std::min(70, T - 1), T - 1}, {0.3, -0.5}};
        check_flash(4, T, 2, D, pe, 0, false, ex);
      }
    }
}

// The copies' scratch (AttentionArgs::flash_scratch): its size from its layout (T rounded up to 64
// rows; PoPE's keys and queries twice as wide), and a flash call without it, or with too little,
// refused before anything runs.
TEST_CASE("flash attention needs its scratch of copies", "[cuda][attention][flash]") {
  CHECK(cuda::attention_flash_scratch_bytes(2, 65, 3, 64, cuda::PEKind::kNone) ==
        size_t(2) * 3 * 128 * (2 * (2 * 64 + 2 * 64) + 8));
  CHECK(cuda::attention_flash_scratch_bytes(1, 64, 1, 16, cuda::PEKind::kPope) == size_t(64) * (2 * (2 * 32 + 2 * 16) + 8));
  DevBuf<double> th(pope_thetas(64, 10000));
  DevBuf<float> delta(size_t(8) * 64);
  cuda::AttentionArgs a{2, 48, 8, 64, cuda::PEKind::kPope, th.p, delta.p, 0.125f, 64};
  a.bf16_flash = true;
  CHECK_THROWS_WITH(cuda::attention_fwd(a, nullptr, nullptr, nullptr, nullptr), Catch::Contains("got none"));
  const size_t need = cuda::attention_flash_scratch_bytes(2, 48, 8, 64, cuda::PEKind::kPope);
  DevBuf<unsigned char> small(need - 1);
  a.flash_scratch = small.p;
  a.flash_scratch_bytes = small.n;
  CHECK_THROWS_WITH(cuda::attention_fwd(a, nullptr, nullptr, nullptr, nullptr),
                    Catch::Contains("need a scratch of " + std::to_string(need)));
  CHECK_THROWS_WITH(cuda::attention_bwd(a, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
                    Catch::Contains("need a scratch of " + std::to_string(need)));
}

TEST_CASE("flash attention at long T (1025, and PoPE at 4100)", "[cuda][attention][flash]") {
  for (auto pe : {cuda::PEKind::kNone, cuda::PEKind::kRope, cuda::PEKind::kPope}) check_flash(1, 1025, 2, 64, pe);
  check_flash(1, 1025, 4, 64, cuda::PEKind::kNone, 0, true);  // ALiBi: most weights exp(-large) = 0
  check_flash(1, 4100, 1, 64, cuda::PEKind::kPope);           // angles past 4k positions keep PoPE's precision
}

// Positions past 16k (the angles of large positions are where a reduction in float would lose
// PoPE's precision): the forward of the last 64 queries of T = 16,500, which attend every key,
// against the double reference of those rows; the full reference at that T is ~10^11 operations.
TEST_CASE("flash attention keeps RoPE's and PoPE's precision past 16k positions", "[cuda][attention][flash]") {
  const int B = 1, T = 16500, H = 1, D = 64, from = T - 64;
  for (auto pe : {cuda::PEKind::kRope, cuda::PEKind::kPope}) {
    const bool pope = pe == cuda::PEKind::kPope;
    const auto qkv = rnd(size_t(B) * T * 3 * H * D);
    std::vector<double> delta(size_t(H) * D);
    Pcg32 r(g_seed++, 3);
    for (auto& d : delta) d = -6.28 * r.uniform01();
    const FlashRef exact = flash_reference(B, T, H, D, pe, D, {}, qkv, delta, {}, false, nullptr, from);
    const FlashRef naive = flash_reference(B, T, H, D, pe, D, {}, qkv, delta, {}, true, nullptr, from);
    auto th = pope ? pope_thetas(D, 10000) : rope_thetas(D, 10000);
    DevBuf<float> d_qkv(to_float(qkv)), d_delta(to_float(delta)), d_out(size_t(B) * T * H * D), d_lse(size_t(B) * H * T);
    DevBuf<double> d_th(th);
    cuda::AttentionArgs a{B, T, H, D, pe, d_th.p, pope ? d_delta.p : nullptr, float(1.0 / std::sqrt(double(D))), D};
    a.bf16_flash = true;
    DevBuf<unsigned char> scratch(cuda::attention_flash_scratch_bytes(B, T, H, D, pe));
    a.flash_scratch = scratch.p;
    a.flash_scratch_bytes = scratch.n;
    cuda::attention_fwd(a, d_qkv.p, d_out.p, d_lse.p, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> out = d_out.download(), lse = d_lse.download();
    auto tail = [&](const auto& v, size_t width) {  // the rows from `from` on (B = H = 1)
      return std::vector<double>(v.begin() + size_t(from) * width, v.end());
    };
    const double got_out = rel_err(tail(out, D), tail(exact.out, D)), nai_out = rel_err(tail(naive.out, D), tail(exact.out, D));
    const double got_lse = rel_err(tail(lse, 1), tail(exact.lse, 1)), nai_lse = rel_err(tail(naive.lse, 1), tail(exact.lse, 1));
    INFO("pe=" << int(pe) << " out: kernel " << got_out << ", naive bf16 " << nai_out << "; lse: kernel " << got_lse
               << ", naive bf16 " << nai_lse);
    CHECK(got_out <= 2 * nai_out + 1e-6);
    CHECK(got_lse <= 2 * nai_lse + 1e-6);
  }
}
