#!/usr/bin/env python3
"""PyTorch reference of the popebench model and training step (SPEC §2-§4), for timing.

The same architecture as model/transformer.cpp: token embedding, pre-norm RMSNorm blocks with
causal attention (RoPE half-split pairing, or PoPE with softplus magnitudes, D frequencies and a
clamped key phase), exact-erf GELU MLP 4x, final RMSNorm, untied head read at the answer
position, cross-entropy there only; AdamW (beta2 0.99, wd 0.01 on matrices), clip 1.0.
Runs in bf16 autocast, eager and torch.compile, and times torch's scaled_dot_product_attention at
the attention benchmark's shapes. Inputs are random tokens: the step's cost does not depend on them.

With --replicas R...: PyTorch's two ways of training R seeds of one model at once, beside
`popebench bench --batch-runs` (bench/log/018-batches-against-streams-and-pytorch-s-vmapped.md): the R models' parameters stacked
(torch.func.stack_module_state) and one step vmapped over them under torch.compile, each run
with its own gradient-norm clipping as it would have alone; and R separate processes, each a
compiled single run, started together on one GPU (aggregate run-steps/s over the common window).

  python3 bench/torch_ref.py --out torch.json [--iters 50] [--steps 0] [--replicas 1 2 4 8] [--profile-vmap]
"""
import argparse
import copy
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import provenance  # the JSON's "environment": command, commit, GPU, date


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.g = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.g


class Block(nn.Module):
    def __init__(self, d, h, pe, T, explicit_attention=False):
        super().__init__()
        self.h, self.dh, self.pe = h, d // h, pe
        self.explicit_attention = explicit_attention
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
        if self.explicit_attention:  # softmax(q k^T / sqrt(D) + causal mask) v, written out
            s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.dh))
            s = s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
            y = torch.softmax(s.float(), -1).to(v.dtype) @ v
        else:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1.0 / math.sqrt(self.dh))
        return self.o(y.transpose(1, 2).reshape(B, T, C))

    def forward(self, x):
        x = x + self.attend(self.ln1(x))
        return x + self.proj(F.gelu(self.fc(self.ln2(x))))


class Model(nn.Module):
    def __init__(self, V=66, d=512, h=8, L=8, T=47, pe="pope", explicit_attention=False):
        super().__init__()
        self.wte = nn.Embedding(V, d)
        self.blocks = nn.ModuleList(Block(d, h, pe, T, explicit_attention) for _ in range(L))
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


def decays(name, p, stacked=False):
    """AdamW's weight-decay group, as make_step: 2-D weights other than the embedding."""
    return p.dim() - (1 if stacked else 0) == 2 and not name.startswith("wte")


def make_vmapped_step(pe, R, compiled, dev):
    """One step of R runs (seeds 0..R-1) as stacked parameters and one vmapped loss.

    The attention is written out (explicit_attention): under vmap, torch 2.11's
    scaled_dot_product_attention on the H200 picks cuDNN's kernel, which has no batching rule, and
    with cuDNN disabled the memory-efficient kernel failed ("LSE is not correctly aligned";
    bench/log/018-batches-against-streams-and-pytorch-s-vmapped.md). torch.compile fuses the written-out form itself."""
    models = []
    for r in range(R):
        torch.manual_seed(r)
        models.append(Model(pe=pe, explicit_attention=True).to(dev))
    params, buffers = torch.func.stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")

    def one(p, b, tok, ans, tgt):
        return torch.func.functional_call(base, (p, b), (tok, ans, tgt))

    losses_fn = torch.vmap(one, in_dims=(0, 0, 0, 0, 0))
    if compiled:
        losses_fn = torch.compile(losses_fn)
    plist = list(params.values())
    decay = [p for n, p in params.items() if decays(n, p, stacked=True)]
    other = [p for n, p in params.items() if not decays(n, p, stacked=True)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": other, "weight_decay": 0.0}],
                            lr=2e-4, betas=(0.9, 0.99), eps=1e-8, fused=True)

    def step(tok, ans, tgt):  # (R, B, T), (R, B), (R, B)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            losses = losses_fn(params, buffers, tok, ans, tgt)
        losses.sum().backward()  # the runs share no parameter: each gets its own gradient
        # Each run's global norm clipped to 1.0 as clip_grad_norm_ clips a run alone.
        sq = sum(p.grad.float().pow(2).flatten(1).sum(1) for p in plist)
        scale = (1.0 / (sq.sqrt() + 1e-6)).clamp(max=1.0)
        for p in plist:
            p.grad.mul_(scale.view(-1, *([1] * (p.dim() - 1))).to(p.grad.dtype))
        opt.step()
        opt.zero_grad(set_to_none=True)
        return losses
    return step


def worker(a):
    """One process of the R-process comparison: a compiled run, timed after a common start."""
    dev = "cuda"
    torch.manual_seed(0)
    B, T, V = 64, 47, 66
    tok = torch.randint(14, V, (B, T), device=dev)
    ans = torch.randint(25, T, (B,), device=dev)
    tgt = torch.randint(14, V, (B,), device=dev)
    step = make_step(Model(pe=a.worker).to(dev), True)
    for _ in range(a.warmup + 3):
        step(tok, ans, tgt)
    torch.cuda.synchronize()
    open(a.ready_file, "w").close()
    while not os.path.exists(a.start_file):
        time.sleep(0.01)
    t0 = time.time()
    for _ in range(a.worker_steps):
        step(tok, ans, tgt)
    torch.cuda.synchronize()
    t1 = time.time()
    with open(a.out, "w") as fh:
        json.dump({"t0": t0, "t1": t1, "steps": a.worker_steps}, fh)


def run_processes(pe, R, steps, warmup):
    """R worker processes on one GPU, started together: aggregate run-steps/s."""
    # The workers' hand-shake files live in a scratch folder of their own, removed afterwards:
    # beside --out they landed in the folder a lent GPU sends back, whose file count is limited.
    with tempfile.TemporaryDirectory(prefix="torch_ref_workers_") as tmpdir:
        return _run_processes_in(pe, R, steps, warmup, tmpdir)


def _run_processes_in(pe, R, steps, warmup, tmpdir):
    start = os.path.join(tmpdir, "start")
    procs, outs, readies = [], [], []
    for r in range(R):
        out, ready = os.path.join(tmpdir, f"w{r}.json"), os.path.join(tmpdir, f"ready{r}")
        procs.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", pe, "--worker-steps",
                                       str(steps), "--warmup", str(warmup), "--ready-file", ready,
                                       "--start-file", start, "--out", out]))
        outs.append(out)
        readies.append(ready)
    deadline = time.time() + 1800
    while not all(os.path.exists(f) for f in readies):
        if any(p.poll() not in (None, 0) for p in procs) or time.time() > deadline:
            for p in procs:
                p.kill()
            raise RuntimeError(f"a worker process failed or did not get ready ({pe}, R = {R})")
        time.sleep(0.1)
    open(start, "w").close()
    for p in procs:
        if p.wait() != 0:
            raise RuntimeError(f"a worker process failed ({pe}, R = {R})")
    ws = [json.load(open(f)) for f in outs]
    # every process's steps over the window from the first start to the last end
    wall = max(w["t1"] for w in ws) - min(w["t0"] for w in ws)
    return {"runs": R, "steps_each": steps, "wall_s": wall, "run_steps_per_s": R * steps / wall}


def profile_kernels(fn, steps=5, top=25):
    """The GPU kernels of `steps` calls of fn, by total device time: what a step is made of."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
    rows = []
    for e in prof.key_averages():
        us = getattr(e, "device_time_total", None)
        if us is None:  # torch before 2.4 names it after CUDA
            us = getattr(e, "cuda_time_total", 0.0)
        if us > 0:
            rows.append({"kernel": e.key[:160], "calls_per_step": e.count / steps, "ms_per_step": us / 1e3 / steps})
    rows.sort(key=lambda r: -r["ms_per_step"])
    return {"steps": steps, "total_ms_per_step": sum(r["ms_per_step"] for r in rows), "top": rows[:top]}


def save(out, path):
    """Writes the results so far, whole or not at all (through a temporary file)."""
    with open(path + ".tmp", "w") as fh:
        json.dump(out, fh, indent=2)
    os.replace(path + ".tmp", path)


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
    ap.add_argument("--replicas", type=int, nargs="*", default=[],
                    help="also time R runs at once, vmapped (stacked parameters) and as R processes")
    ap.add_argument("--process-steps", type=int, default=300, help="steps each process times (--replicas)")
    ap.add_argument("--replica-pes", nargs="*", default=["rope", "pope"], choices=["rope", "pope"],
                    help="the PEs --replicas times (each R and PE compiles anew: about a minute or two)")
    ap.add_argument("--profile-vmap", action="store_true",
                    help="also record the vmapped step's GPU kernels by device time (torch.profiler)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-steps", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--ready-file", help=argparse.SUPPRESS)
    ap.add_argument("--start-file", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker(a)
    dev = "cuda"
    torch.manual_seed(0)
    B, T, V = 64, 47, 66
    out = {"schema": "popebench.torch_bench", "schema_version": 1, "torch": torch.__version__,
           "device": torch.cuda.get_device_name(), "iters": a.iters,
           "environment": provenance.environment(torch.cuda.get_device_name(), torch.__version__), "step": {}, "attention": []}
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
    if a.replicas:
        out["replicas"] = []
    for R in a.replicas:
        for pe in a.replica_pes:
            rec = {"pe": pe, "runs": R}
            try:
                step = make_vmapped_step(pe, R, True, dev)
                tk = torch.randint(14, V, (R, B, T), device=dev)
                an = torch.randint(25, T, (R, B), device=dev)
                tg = torch.randint(14, V, (R, B), device=dev)
                ms = median_ms(lambda: step(tk, an, tg), a.warmup, a.iters)
                rec["vmap_compile"] = {"step_ms": ms, "run_steps_per_s": R * 1e3 / ms, "attention": "explicit"}
                if a.profile_vmap:
                    rec["vmap_compile"]["profile"] = profile_kernels(lambda: step(tk, an, tg))
                del step
            except Exception as e:  # record why, and go on with the processes
                rec["vmap_compile"] = {"error": f"{type(e).__name__}: {e}"[:500]}
            torch.cuda.empty_cache()
            try:
                rec["processes"] = run_processes(pe, R, a.process_steps, a.warmup)
            except Exception as e:
                rec["processes"] = {"error": f"{type(e).__name__}: {e}"[:500]}
            rates = [v["run_steps_per_s"] for v in (rec["vmap_compile"], rec["processes"]) if "run_steps_per_s" in v]
            rec["best_run_steps_per_s"] = max(rates) if rates else None
            out["replicas"].append(rec)
            save(out, a.out)  # each R as it finishes: a run cut short by a time limit keeps what it measured
            print(f"torch {R:2d} runs {pe:4s}: vmap+compile {rec['vmap_compile'].get('run_steps_per_s', 'failed')} "
                  f"run-steps/s, {R} processes {rec['processes'].get('run_steps_per_s', 'failed')} run-steps/s", flush=True)
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
    save(out, a.out)


if __name__ == "__main__":
    main()
