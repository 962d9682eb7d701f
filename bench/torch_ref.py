#!/usr/bin/env python3
"""PyTorch reference of the popebench model and training step (SPEC §2-§4), for timing.

The same architecture as models/transformer.cpp: token embedding, pre-norm RMSNorm blocks with
causal attention (RoPE half-split pairing, or PoPE with softplus magnitudes, D frequencies and a
clamped key phase), exact-erf GELU MLP 4x, final RMSNorm, untied head read at the answer
position, cross-entropy there only; AdamW (beta2 0.99, wd 0.01 on matrices), clip 1.0.
Runs in bf16 autocast, eager and torch.compile, and times torch's scaled_dot_product_attention at
the attention benchmark's shapes. Inputs are random tokens: the step's cost does not depend on them.

  python3 bench/torch_ref.py --out torch.json [--iters 50] [--steps 0]
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.g = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.g


class Block(nn.Module):
    def __init__(self, d, h, pe, T):
        super().__init__()
        self.h, self.dh, self.pe = h, d // h, pe
        self.ln1, self.ln2 = RMSNorm(d), RMSNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.fc = nn.Linear(d, 4 * d, bias=False)
        self.proj = nn.Linear(4 * d, d, bias=False)
        D = self.dh
        t = torch.arange(T, dtype=torch.float64)[:, None]
        if pe == "rope":
            th = 10000.0 ** (-2 * torch.arange(D // 2, dtype=torch.float64) / D)
            self.register_buffer("cos", torch.cos(t * th).float(), persistent=False)
            self.register_buffer("sin", torch.sin(t * th).float(), persistent=False)
        elif pe == "pope":
            th = 10000.0 ** (-torch.arange(D, dtype=torch.float64) / D)
            self.register_buffer("ang", (t * th).float(), persistent=False)
            self.delta = nn.Parameter(torch.rand(h, D) * -2 * math.pi)

    def attend(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        if self.pe == "rope":
            def rot(z):
                z1, z2 = z.float().chunk(2, -1)
                c, s = self.cos[:T], self.sin[:T]
                return torch.cat([z1 * c - z2 * s, z1 * s + z2 * c], -1).to(v.dtype)
            q, k = rot(q), rot(k)
        elif self.pe == "pope":
            mq, mk = F.softplus(q.float()), F.softplus(k.float())
            a = self.ang[:T]
            ak = a + self.delta.clamp(-2 * math.pi, 0)[:, None, :]
            q = torch.cat([mq * torch.cos(a), mq * torch.sin(a)], -1).to(v.dtype)
            k = torch.cat([mk * torch.cos(ak), mk * torch.sin(ak)], -1).to(v.dtype)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1.0 / math.sqrt(self.dh))
        return self.o(y.transpose(1, 2).reshape(B, T, C))

    def forward(self, x):
        x = x + self.attend(self.ln1(x))
        return x + self.proj(F.gelu(self.fc(self.ln2(x))))


class Model(nn.Module):
    def __init__(self, V=66, d=512, h=8, L=8, T=47, pe="pope"):
        super().__init__()
        self.wte = nn.Embedding(V, d)
        self.blocks = nn.ModuleList(Block(d, h, pe, T) for _ in range(L))
        self.lnf = RMSNorm(d)
        self.head = nn.Linear(d, V, bias=False)
        for n, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * L) if n.endswith(("o.weight", "proj.weight")) else 0.02
                nn.init.normal_(p, 0, std)

    def forward(self, tok, ans, tgt):
        x = self.wte(tok)
        for b in self.blocks:
            x = b(x)
        h = self.lnf(x[torch.arange(tok.shape[0], device=tok.device), ans])
        return F.cross_entropy(self.head(h).float(), tgt)


def make_step(model, compiled):
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and not n.startswith("wte")]
    other = [p for n, p in model.named_parameters() if not (p.dim() == 2 and not n.startswith("wte"))]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": other, "weight_decay": 0.0}],
                            lr=2e-4, betas=(0.9, 0.99), eps=1e-8, fused=True)
    fwd = torch.compile(model) if compiled else model

    def step(tok, ans, tgt):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = fwd(tok, ans, tgt)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss
    return step


def median_ms(fn, warmup, iters):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1))
    ts.sort()
    return ts[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--steps", type=int, default=0, help="also time this many consecutive steps end to end")
    ap.add_argument("--attention-lengths", type=int, nargs="*", default=[48, 512, 1024, 4096])
    ap.add_argument("--modes", nargs="*", default=["eager", "compile"])
    a = ap.parse_args()
    dev = "cuda"
    torch.manual_seed(0)
    B, T, V = 64, 47, 66
    out = {"schema": "popebench.torch_bench", "schema_version": 1, "torch": torch.__version__,
           "device": torch.cuda.get_device_name(), "iters": a.iters, "step": {}, "attention": []}
    tok = torch.randint(14, V, (B, T), device=dev)
    ans = torch.randint(25, T, (B,), device=dev)
    tgt = torch.randint(14, V, (B,), device=dev)
    for pe in ["rope", "pope"]:
        for mode in a.modes:
            model = Model(pe=pe).to(dev)
            step = make_step(model, mode == "compile")
            t0 = time.time()
            step(tok, ans, tgt)
            torch.cuda.synchronize()
            first = time.time() - t0
            ms = median_ms(lambda: step(tok, ans, tgt), a.warmup, a.iters)
            rec = {"median_ms": ms, "first_step_s": first}
            if a.steps:
                torch.cuda.synchronize()
                t0 = time.time()
                for _ in range(a.steps):
                    step(tok, ans, tgt)
                torch.cuda.synchronize()
                rec["steps"] = a.steps
                rec["wall_s"] = time.time() - t0
            out["step"][f"{pe}_{mode}"] = rec
            print(f"torch step {pe:4s} {mode:7s}: {ms:.3f} ms (first step {first:.1f} s)", flush=True)
            del model, step
            torch.cuda.empty_cache()
    for L in a.attention_lengths:
        Bl = 64 if L <= 48 else max(1, 32768 // L)
        for dtype in [torch.bfloat16, torch.float32]:
            q, k, v = (torch.randn(Bl, 8, L, 64, device=dev, dtype=dtype, requires_grad=True) for _ in range(3))
            g = torch.randn(Bl, 8, L, 64, device=dev, dtype=dtype)
            f = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
            fwd = median_ms(f, a.warmup, a.iters)
            fb = median_ms(lambda: f().backward(g), a.warmup, a.iters)
            out["attention"].append({"B": Bl, "T": L, "H": 8, "D": 64, "dtype": str(dtype).split(".")[-1],
                                     "fwd_ms": fwd, "fwd_bwd_ms": fb})
            print(f"torch sdpa {str(dtype):15s} B {Bl:3d} T {L:5d}: fwd {fwd:.3f} ms  fwd+bwd {fb:.3f} ms", flush=True)
    with open(a.out + ".tmp", "w") as fh:
        json.dump(out, fh, indent=2)
    import os
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
