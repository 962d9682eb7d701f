// The attention reference of the GPU attention tests (tests/test_cuda_attention.cpp, the fp32
// and TF32 kernels; tests/test_cuda_attention_flash.cpp, the bf16 tensor-core forward): the PE and
// causal attention computed in double by the CPU twins (kernels/cpu/).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/attention.hpp"
#include "kernels/cpu/pope.hpp"
#include "kernels/cpu/rope.hpp"
#include "kernels/cuda/kernels.hpp"
#include "model/pe/pe_pope.hpp"
#include "model/pe/pe_rope.hpp"

namespace popebench::test {

// Reference attention with PE in double: qkv (B, T, 3, H, D) -> out (B, T, H, D) and, given
// dout, dqkv (B, T, 3, H, D) and ddelta (H, D).
struct AttnRef {
  std::vector<double> out, dqkv, ddelta, dtemp;
};
// The attention options of the screen: masked left pads (key_start, (B)) and learned per-head
// log-temperatures (log_temp, (H)); empty: off.
struct AttnExtras {
  std::vector<int32_t> key_start;
  std::vector<double> log_temp;
};
// The heads of qkv (B, T, 3, H, D) in (B, H, T, D) order, and q and k through the PE in double:
// qp, kp (B, H, T, DQ), DQ = 2 D for PoPE. rope rotates n_rot channels (D: RoPE, D/2: RoPE half).
struct HeadsRef {
  int DQ = 0;
  std::vector<double> q, k, v, qp, kp;
};
inline HeadsRef heads_through_pe(int B, int T, int H, int D, cuda::PEKind pe, int n_rot, const std::vector<double>& qkv,
                                 const std::vector<double>& delta) {
  const int C = H * D;
  const size_t nh = size_t(B) * H * T;
  HeadsRef r;
  r.DQ = pe == cuda::PEKind::kPope ? 2 * D : D;
  r.q.resize(nh * D), r.k.resize(nh * D), r.v.resize(nh * D), r.qp.resize(nh * r.DQ), r.kp.resize(nh * r.DQ);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t)
        for (int c = 0; c < D; ++c) {
          const size_t o = ((size_t(b) * H + h) * T + t) * D + c, g = (size_t(b) * T + t) * 3 * C + size_t(h) * D + c;
          r.q[o] = qkv[g];
          r.k[o] = qkv[g + C];
          r.v[o] = qkv[g + 2 * C];
        }
  if (pe == cuda::PEKind::kNone) {
    r.qp = r.q;
    r.kp = r.k;
  } else if (pe == cuda::PEKind::kRope) {
    const auto th = rope_thetas(n_rot, 10000);
    cpu::rope_fwd(r.q.data(), r.qp.data(), B * H, T, D, n_rot, th.data());
    cpu::rope_fwd(r.k.data(), r.kp.data(), B * H, T, D, n_rot, th.data());
  } else {
    const auto th = pope_thetas(D, 10000);
    cpu::pope_fwd(r.q.data(), r.qp.data(), B, H, T, D, th.data(), static_cast<const double*>(nullptr));
    cpu::pope_fwd(r.k.data(), r.kp.data(), B, H, T, D, th.data(), delta.data());
  }
  return r;
}

// The gradients of the transformed q and k (dqp, dkp, (B, H, T, DQ)) and of v (dv, (B, H, T, D))
// back through the PE into dqkv (B, T, 3, H, D), and PoPE's delta gradient into ddelta (H, D).
inline void heads_backward(int B, int T, int H, int D, cuda::PEKind pe, int n_rot, const HeadsRef& in,
                           const std::vector<double>& delta, const std::vector<double>& dqp,
                           const std::vector<double>& dkp, const std::vector<double>& dv, std::vector<double>& dqkv,
                           std::vector<double>& ddelta) {
  const int C = H * D;
  const size_t nh = size_t(B) * H * T;
  std::vector<double> dq(nh * D), dk(nh * D);
  ddelta.assign(size_t(H) * D, 0.0);
  if (pe == cuda::PEKind::kNone) {
    dq = dqp;
    dk = dkp;
  } else if (pe == cuda::PEKind::kRope) {
    const auto th = rope_thetas(n_rot, 10000);
    cpu::rope_bwd(dqp.data(), dq.data(), B * H, T, D, n_rot, th.data());
    cpu::rope_bwd(dkp.data(), dk.data(), B * H, T, D, n_rot, th.data());
  } else {
    const auto th = pope_thetas(D, 10000);
    cpu::pope_bwd(dqp.data(), in.q.data(), dq.data(), B, H, T, D, th.data(), static_cast<const double*>(nullptr),
                  static_cast<double*>(nullptr));
    cpu::pope_bwd(dkp.data(), in.k.data(), dk.data(), B, H, T, D, th.data(), delta.data(), ddelta.data());
  }
  dqkv.assign(size_t(B) * T * 3 * C, 0.0);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t)
        for (int c = 0; c < D; ++c) {
          const size_t o = ((size_t(b) * H + h) * T + t) * D + c, g = (size_t(b) * T + t) * 3 * C + size_t(h) * D + c;
          dqkv[g] = dq[o];
          dqkv[g + C] = dk[o];
          dqkv[g + 2 * C] = dv[o];
        }
}

// slopes (H) or empty: ALiBi.
inline AttnRef attention_reference(int B, int T, int H, int D, cuda::PEKind pe, int n_rot, const std::vector<double>& slopes,
                                   const std::vector<double>& qkv, const std::vector<double>& delta,
                                   const std::vector<double>& dout, const AttnExtras& ex = {}) {
  const int C = H * D;
  const size_t nh = size_t(B) * H * T;
  const HeadsRef in = heads_through_pe(B, T, H, D, pe, n_rot, qkv, delta);
  const int DQ = in.DQ;
  cpu::AttentionShape s{B, H, T, DQ, D};
  std::vector<double> oh(nh * D), P(size_t(B) * H * T * T);
  const double scale = 1.0 / std::sqrt(double(D));
  const double* lt = ex.log_temp.empty() ? nullptr : ex.log_temp.data();
  cpu::attention_fwd(in.qp.data(), in.kp.data(), in.v.data(), oh.data(), P.data(), s, scale,
                     slopes.empty() ? nullptr : slopes.data(), ex.key_start.empty() ? nullptr : ex.key_start.data(), lt);
  std::vector<double> doh(nh * D), dqp(nh * DQ), dkp(nh * DQ), dv(nh * D);
  AttnRef r;
  r.out.resize(size_t(B) * T * C);
  r.dtemp.assign(H, 0.0);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t)
        for (int c = 0; c < D; ++c) {
          const size_t o = ((size_t(b) * H + h) * T + t) * D + c, g = (size_t(b) * T + t) * C + size_t(h) * D + c;
          r.out[g] = oh[o];
          doh[o] = dout[g];
        }
  cpu::attention_bwd(doh.data(), in.qp.data(), in.kp.data(), in.v.data(), P.data(), dqp.data(), dkp.data(), dv.data(), s,
                     scale, lt, lt ? r.dtemp.data() : nullptr);
  heads_backward(B, T, H, D, pe, n_rot, in, delta, dqp, dkp, dv, r.dqkv, r.ddelta);
  return r;
}

}  // namespace popebench::test
