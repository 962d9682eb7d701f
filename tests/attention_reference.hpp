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
// rope rotates n_rot channels (D: RoPE, D/2: RoPE half); slopes (H) or empty: ALiBi.
inline AttnRef attention_reference(int B, int T, int H, int D, cuda::PEKind pe, int n_rot, const std::vector<double>& slopes,
                            const std::vector<double>& qkv, const std::vector<double>& delta,
                            const std::vector<double>& dout, const AttnExtras& ex = {}) {
  const int C = H * D, DQ = pe == cuda::PEKind::kPope ? 2 * D : D;
  const size_t nh = size_t(B) * H * T;
  std::vector<double> q(nh * D), k(nh * D), v(nh * D);
  auto idx = [&](int b, int t, int which, int h) { return ((size_t(b) * T + t) * 3 + which) * C + size_t(h) * D; };
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t)
        for (int c = 0; c < D; ++c) {
          size_t o = ((size_t(b) * H + h) * T + t) * D + c;
          q[o] = qkv[idx(b, t, 0, h) + c];
          k[o] = qkv[idx(b, t, 1, h) + c];
          v[o] = qkv[idx(b, t, 2, h) + c];
        }
  std::vector<double> qp(nh * DQ), kp(nh * DQ);
  auto rth = rope_thetas(n_rot, 10000), pth = pope_thetas(D, 10000);
  if (pe == cuda::PEKind::kNone) {
    qp = q;
    kp = k;
  } else if (pe == cuda::PEKind::kRope) {
    cpu::rope_fwd(q.data(), qp.data(), B * H, T, D, n_rot, rth.data());
    cpu::rope_fwd(k.data(), kp.data(), B * H, T, D, n_rot, rth.data());
  } else {
    cpu::pope_fwd(q.data(), qp.data(), B, H, T, D, pth.data(), static_cast<const double*>(nullptr));
    cpu::pope_fwd(k.data(), kp.data(), B, H, T, D, pth.data(), delta.data());
  }
  cpu::AttentionShape s{B, H, T, DQ, D};
  std::vector<double> oh(nh * D), P(size_t(B) * H * T * T);
  const double scale = 1.0 / std::sqrt(double(D));
  const double* lt = ex.log_temp.empty() ? nullptr : ex.log_temp.data();
  cpu::attention_fwd(qp.data(), kp.data(), v.data(), oh.data(), P.data(), s, scale,
                     slopes.empty() ? nullptr : slopes.data(), ex.key_start.empty() ? nullptr : ex.key_start.data(), lt);
  std::vector<double> doh(nh * D), dqp(nh * DQ), dkp(nh * DQ), dv(nh * D), dq(nh * D), dk(nh * D);
  AttnRef r;
  r.out.resize(size_t(B) * T * C);
  r.dqkv.resize(size_t(B) * T * 3 * C);
  r.ddelta.assign(size_t(H) * D, 0.0);
  r.dtemp.assign(H, 0.0);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t)
        for (int c = 0; c < D; ++c) {
          size_t o = ((size_t(b) * H + h) * T + t) * D + c, g = (size_t(b) * T + t) * C + size_t(h) * D + c;
          r.out[g] = oh[o];
          doh[o] = dout[g];
        }
  cpu::attention_bwd(doh.data(), qp.data(), kp.data(), v.data(), P.data(), dqp.data(), dkp.data(), dv.data(), s, scale,
                     lt, lt ? r.dtemp.data() : nullptr);
  if (pe == cuda::PEKind::kNone) {
    dq = dqp;
    dk = dkp;
  } else if (pe == cuda::PEKind::kRope) {
    cpu::rope_bwd(dqp.data(), dq.data(), B * H, T, D, n_rot, rth.data());
    cpu::rope_bwd(dkp.data(), dk.data(), B * H, T, D, n_rot, rth.data());
  } else {
    cpu::pope_bwd(dqp.data(), q.data(), dq.data(), B, H, T, D, pth.data(), static_cast<const double*>(nullptr),
                  static_cast<double*>(nullptr));
    cpu::pope_bwd(dkp.data(), k.data(), dk.data(), B, H, T, D, pth.data(), delta.data(), r.ddelta.data());
  }
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t)
        for (int c = 0; c < D; ++c) {
          size_t o = ((size_t(b) * H + h) * T + t) * D + c;
          r.dqkv[idx(b, t, 0, h) + c] = dq[o];
          r.dqkv[idx(b, t, 1, h) + c] = dk[o];
          r.dqkv[idx(b, t, 2, h) + c] = dv[o];
        }
  return r;
}

}  // namespace popebench::test
