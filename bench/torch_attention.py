#!/usr/bin/env python3
"""Causal attention as a PyTorch user runs it today, timed beside `popebench bench`'s kernels
(the long-sequence issue's comparison; bench/log/031 and 032 hold the numbers).

For each length T (B T = 32,768 tokens, B 64 at T <= 48, as `popebench bench`), head dim D and PE, forward and
forward + backward of:
  none   scaled_dot_product_attention on q, k, v;
  rope   RoPE's rotation of q and k (half-split pairs, base 10,000, angles from a cached table),
         then SDPA: what a RoPE model does at every layer;
  rope-half  the same on the first D/2 channels (frequencies of a D/2-wide RoPE, pairs (c, c + D/4)),
         the others as they are, then SDPA;
  alibi  SDPA with ALiBi's bias as its float mask: -m_h (t - s) for keys s <= t, -inf after,
         m_h = 2^(-8 (h + 1) / H), built once in the inputs' dtype (as the models that ship ALiBi in
         PyTorch build it) and read by the memory-efficient kernel, the one that takes a float mask;
  pope   PoPE materialised: mu = softplus(q), softplus(k); the 2D-wide [mu cos, mu sin] of queries
         (angle t theta_c) and keys (t theta_c + delta_hc, delta per head and channel), V
         zero-padded to 2D, SDPA, the first D output channels: the way the paper's PyTorch
         reference and a user without a fused kernel run PoPE.
In bf16 (and fp32 for none). Timing: CUDA events, median of --iters after --warmup (torch_ref.py's
median_ms). FLOPs as popebench counts them: 2 B H T(T+1)/2 (Dqk + D), Dqk = 2D for PoPE.

    python3 bench/torch_attention.py --out FILE [--lengths 1024 4096 16384] [--head-dims 64 128]
"""
import argparse
import json
import math
import os
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("torch_attention.py: needs PyTorch (Debian: apt-get install python3-torch)", file=sys.stderr)
    sys.exit(77)

from torch_ref import median_ms  # the model benchmark's timing: CUDA events, median after warm-up
import provenance  # the JSON's "environment": command, commit, GPU, date

H = 8
SDPA = getattr(F, "scaled_dot_product_attention", None)  # torch >= 2.0


def attend(q, k, v, scale, bias=None):
    """Causal attention: torch's SDPA where there is one (every benchmark), else the same function
    written out (Debian 12's torch 1.13, for --check only). bias (H, T, T): added to the scores,
    the causal mask (-inf after the diagonal) already in it."""
    if SDPA is not None:
        if bias is not None:
            return SDPA(q, k, v, attn_mask=bias, scale=scale)
        return SDPA(q, k, v, is_causal=True, scale=scale)
    T = q.shape[-2]
    s = (q @ k.transpose(-1, -2)) * scale
    if bias is not None:
        return torch.softmax(s + bias, dim=-1) @ v
    s = s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def alibi_bias(Hn, T, dtype, device):
    """(H, T, T): -m_h (t - s) for s <= t, -inf after; m_h = 2^(-8 (h + 1) / H) (popebench's
    alibi_slopes)."""
    m = 2.0 ** (-8.0 * torch.arange(1, Hn + 1, dtype=torch.float64, device=device) / Hn)
    pos = torch.arange(T, dtype=torch.float64, device=device)
    dist = pos[:, None] - pos[None, :]
    bias = (-m[:, None, None] * dist[None]).masked_fill(dist[None] < 0, float("-inf"))
    return bias.to(dtype)


def angles(T, D, device, phase=None):
    """cos and sin of t theta_c (+ phase (H, D)), theta_c = 10000^(-c/D): (T, D) or (H, T, D), fp32,
    reduced in float64 as popebench's kernels reduce them."""
    theta = 10000.0 ** (-torch.arange(D, dtype=torch.float64, device=device) / D)
    a = torch.arange(T, dtype=torch.float64, device=device)[:, None] * theta[None, :]
    if phase is not None:
        a = a[None] + phase[:, None, :].double()
    a = torch.remainder(a, 2 * math.pi)
    return torch.cos(a).float(), torch.sin(a).float()


def rope(x, cos, sin):
    """RoPE on (B, H, T, D), half-split pairs (c, c + D/2), angles (T, D/2)."""
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    c, s = cos.to(x.dtype), sin.to(x.dtype)
    return torch.cat([x1 * c - x2 * s, x1 * s + x2 * c], dim=-1)


def make_attention(pe, q, k, v, D, delta=None):
    """The attention of `pe` on q, k, v (B, H, T, D) as a callable; delta (H, D): PoPE's key phases
    (default: uniform in [-2 pi, 0], as PoPE's init)."""
    T = q.shape[2]
    scale = 1.0 / math.sqrt(D)
    if pe == "none":
        return lambda: attend(q, k, v, scale)
    if pe == "rope":
        cos, sin = angles(T, D // 2, q.device)
        return lambda: attend(rope(q, cos, sin), rope(k, cos, sin), v, scale)
    if pe == "rope-half":
        cos, sin = angles(T, D // 4, q.device)
        half = lambda x: torch.cat([rope(x[..., :D // 2], cos, sin), x[..., D // 2:]], dim=-1)
        return lambda: attend(half(q), half(k), v, scale)
    if pe == "alibi":
        bias = alibi_bias(q.shape[1], T, q.dtype, q.device)
        return lambda: attend(q, k, v, scale, bias)
    if delta is None:
        delta = -2 * math.pi * torch.rand(q.shape[1], D, device=q.device)
    cq, sq = angles(T, D, q.device)
    ck, sk = angles(T, D, q.device, delta)

    def pope():
        mq, mk = F.softplus(q.float()), F.softplus(k.float())
        q2 = torch.cat([mq * cq, mq * sq], dim=-1).to(q.dtype)
        k2 = torch.cat([mk * ck, mk * sk], dim=-1).to(k.dtype)
        v2 = F.pad(v, (0, D))
        return attend(q2, k2, v2, scale)[..., :D]
    return pope


def save(out, path):
    with open(path + ".tmp", "w") as fh:
        json.dump(out, fh, indent=1)
    os.replace(path + ".tmp", path)


def check():
    """Each PE's attention as written here against its scores written directly, in float64 on the
    CPU, with t - s the query's position less the key's:
      pope       s_ts = sum_c mu_q,tc mu_k,sc cos((t - s) theta_c - delta_c) / sqrt(D);
      rope-half  s_ts = (sum over the pairs (c, c + D/4) of the first half of (q_c k_c + q_c' k_c')
                 cos((t - s) theta_c) + (q_c k_c' - q_c' k_c) sin((t - s) theta_c), theta_c =
                 10000^(-c / (D/4)), plus q . k over the second half) / sqrt(D);
      alibi      s_ts = q . k / sqrt(D) - 2^(-8 (h + 1) / H) (t - s).
    Returns {pe: the largest absolute difference of the outputs}."""
    torch.manual_seed(1)
    B, Hc, T, D = 2, 3, 9, 8
    q, k, v = (torch.randn(B, Hc, T, D, dtype=torch.float64) for _ in range(3))
    pos = torch.arange(T, dtype=torch.float64)
    rel = pos[:, None] - pos[None, :]  # (T, T): t - s
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)

    def softmax_out(s):
        return torch.softmax(s.masked_fill(causal, float("-inf")), dim=-1) @ v

    delta = -2 * math.pi * torch.rand(Hc, D, dtype=torch.float64)
    theta = 10000.0 ** (-torch.arange(D, dtype=torch.float64) / D)
    ang = rel[:, :, None] * theta - delta[:, None, None, :]  # (H, T, T, D)
    mq, mk = F.softplus(q), F.softplus(k)
    want = {"pope": softmax_out(torch.einsum("bhtc,bhsc,htsc->bhts", mq, mk, torch.cos(ang)) / math.sqrt(D))}
    got = {"pope": make_attention("pope", q, k, v, D, delta)()}

    n = D // 4
    th = 10000.0 ** (-torch.arange(n, dtype=torch.float64) / n)
    a = rel[:, :, None] * th  # (T, T, D/4)
    q1, q2, k1, k2 = q[..., :n], q[..., n:2 * n], k[..., :n], k[..., n:2 * n]
    s = (torch.einsum("bhtc,bhsc,tsc->bhts", q1, k1, torch.cos(a)) + torch.einsum("bhtc,bhsc,tsc->bhts", q2, k2, torch.cos(a))
         + torch.einsum("bhtc,bhsc,tsc->bhts", q1, k2, torch.sin(a)) - torch.einsum("bhtc,bhsc,tsc->bhts", q2, k1, torch.sin(a))
         + q[..., 2 * n:] @ k[..., 2 * n:].transpose(-1, -2))
    want["rope-half"], got["rope-half"] = softmax_out(s / math.sqrt(D)), make_attention("rope-half", q, k, v, D)()

    m = 2.0 ** (-8.0 * torch.arange(1, Hc + 1, dtype=torch.float64) / Hc)
    s = q @ k.transpose(-1, -2) / math.sqrt(D) - m[:, None, None] * rel
    want["alibi"], got["alibi"] = softmax_out(s), make_attention("alibi", q, k, v, D)()
    return {pe: (got[pe] - want[pe]).abs().max().item() for pe in want}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="the JSON written (required but with --check)")
    ap.add_argument("--lengths", type=int, nargs="+", default=[1024, 4096, 16384])
    ap.add_argument("--head-dims", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--tokens", type=int, default=32768, help="B T per shape (B = tokens / T)")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="only check the materialised PoPE against its formula (CPU)")
    a = ap.parse_args()
    if a.check:
        errs = check()
        # float32 angles and softplus inside make_attention: ~1e-6 of outputs of order 1
        for pe, err in errs.items():
            print(f"torch_attention.py: {pe} against its formula: max |difference| {err:.2e}")
        return 0 if max(errs.values()) < 1e-4 else 1
    if not a.out:
        ap.error("--out is required")
    if SDPA is None:
        print(f"torch_attention.py: needs torch 2.0 or later (scaled_dot_product_attention); this is {torch.__version__}",
              file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_attention.py: no GPU to time attention on (--check needs none)", file=sys.stderr)
        return 77
    for x in a.lengths + a.head_dims + [a.tokens, a.iters]:
        if x < 1:
            print(f"torch_attention.py: lengths, head dims, tokens and iters must be >= 1 (got {x})", file=sys.stderr)
            return 2
    torch.manual_seed(0)
    out = {"schema": "popebench.torch_attention", "schema_version": 1, "torch": torch.__version__,
           "device": torch.cuda.get_device_name(), "iters": a.iters,
           "environment": provenance.environment(torch.cuda.get_device_name(), torch.__version__),
           "warmup": a.warmup, "tokens": a.tokens, "rows": []}
    for D in a.head_dims:
        for T in a.lengths:
            B = 64 if T <= 48 else max(1, a.tokens // T)  # as popebench bench: the training shape's batch
            for pe in ["none", "alibi", "rope", "rope-half", "pope"]:
                for dtype in [torch.bfloat16] + ([torch.float32] if pe == "none" else []):
                    q, k, v = (torch.randn(B, H, T, D, device="cuda", dtype=dtype, requires_grad=True)
                               for _ in range(3))
                    g = torch.randn(B, H, T, D, device="cuda", dtype=dtype)
                    try:
                        f = make_attention(pe, q, k, v, D)
                        fwd = median_ms(f, a.warmup, a.iters)
                        fb = median_ms(lambda: f().backward(g), a.warmup, a.iters)
                    except torch.cuda.OutOfMemoryError:
                        # A way that does not fit (ALiBi's (H, T, T) mask at the longest T, if SDPA
                        # falls back to writing the scores out) is recorded as such; the rest runs.
                        row = {"pe": pe, "B": B, "T": T, "H": H, "D": D, "dtype": str(dtype).split(".")[-1],
                               "error": "out of memory"}
                        out["rows"].append(row)
                        print(f"torch {pe:9s} {row['dtype']:8s} B {B:3d} T {T:5d} D {D:3d}: out of memory", flush=True)
                        del q, k, v, g
                        torch.cuda.empty_cache()
                        continue
                    dqk = 2 * D if pe == "pope" else D
                    flops = 2.0 * B * H * T * (T + 1) / 2 * (dqk + D)
                    row = {"pe": pe, "B": B, "T": T, "H": H, "D": D, "dtype": str(dtype).split(".")[-1],
                           "fwd_ms": fwd, "fwd_bwd_ms": fb, "fwd_tflops": flops / fwd * 1e-9,
                           "fwd_bwd_tflops": 3.5 * flops / fb * 1e-9}
                    out["rows"].append(row)
                    print(f"torch {pe:9s} {row['dtype']:8s} B {B:3d} T {T:5d} D {D:3d}: fwd {fwd:.3f} ms  "
                          f"fwd+bwd {fb:.3f} ms", flush=True)
                    del q, k, v, g, f
                    torch.cuda.empty_cache()
            save(out, a.out)  # what is measured so far survives a time limit
    save(out, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
