#!/usr/bin/env python3
"""popebench's CPU model against an independent PyTorch implementation, in float64.

For each case below (every positional embedding, and the model and input options of the
Indirect Indexing screen), popebench_model_dump (tests/model_dump.cpp) writes popebench's
parameters, one batch of real examples, its loss and every parameter gradient. This file builds
the same model in PyTorch from the architecture's description (docs/spec.md §2-§3) alone, never
from popebench's code, loads those weights, runs the batch, lets autograd take the gradients, and
compares. The check passes when, for the loss and for every parameter tensor,

    max |popebench - torch| / max |torch|  <=  1e-10

(the error relative to the tensor's largest gradient: an element-wise ratio would divide by
gradients that are zero or cancel to rounding). Both sides compute in double; what separates them
is summation order, some 1e-15 relative, so 1e-10 leaves five orders for the depth of the model
and still catches any wrong formula, which shows at 1e-3 or more.

  python3 tests/torch_crosscheck.py --dump build/popebench_model_dump [--keep DIR] [--case NAME]

Exit status 0 when every case passes, 1 when one fails, 77 (CTest's skip) when torch is missing.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("torch_crosscheck: skipped: PyTorch is not installed (Debian: apt-get install python3-torch)")
    sys.exit(77)

TOL = 1e-10
PAD = 0  # the padding token's id (the vocabulary: docs/spec.md §1)

# A small Indirect Indexing task and model: strings of 5-9 symbols, so a batch mixes lengths and
# has pads; 2 layers of 4 heads of 8 (RoPE on half the channels pairs 2 of them); a larger init
# than GPT-2's so that every path carries a gradient well above rounding.
BASE = {
    "task": {"name": "indirect-indexing", "params": {"min_len": 5, "max_len": 9, "max_shift": 3, "alphabet": 12},
             "n_train": 64},
    "model": {"n_layer": 2, "d_model": 32, "n_head": 4, "init_std": 0.3},
    "train": {"batch": 8, "seed": 3, "steps": 10, "loss": "answer_position_only"},
    "optim": {"warmup_steps": 1},
}

PES = ["none", "rope", "rope-interleaved", "pope", "rope-half", "alibi", "alibi-half", "sinusoidal", "learned"]

# (name, config patch, perturbation): one case per PE as SPEC has it, then the options.
CASES = [(pe, {"pe": {"kind": pe}}, 0.0) for pe in PES] + [
    ("pope+tied+bias+temp+qk_scale", {"pe": {"kind": "pope"}, "model": {
        "tied_embeddings": True, "bias": True, "attn_temp": "learned", "attn_scale": "qk_dim"}}, 0.1),
    ("rope+bias+temp", {"pe": {"kind": "rope"}, "model": {"bias": True, "attn_temp": "learned"}}, 0.1),
    ("pope+pad_left_visible", {"pe": {"kind": "pope"}, "input": {"pad": "left"}}, 0.0),
    ("pope+pad_left_masked+loss_all", {"pe": {"kind": "pope"}, "input": {"pad": "left", "pad_attention": "masked"},
                                       "train": {"loss": "every_next_token"}}, 0.0),
    ("alibi+pad_left_masked+scale", {"pe": {"kind": "alibi"}, "input": {"pad": "left", "pad_attention": "masked"},
                                     "model": {"attn_scale": "0.25"}}, 0.0),
    ("rope+context6+loss_all", {"pe": {"kind": "rope"}, "input": {"context": 6},
                                "train": {"loss": "every_next_token"}}, 0.0),
    ("pope+shared+increasing+base100", {"pe": {"kind": "pope", "delta_shared": True, "freqs": "increasing",
                                               "base": 100}}, 0.0),
    ("pope+delta_zero", {"pe": {"kind": "pope", "delta_init": "zero"}}, 0.0),
    ("pope+perturbed", {"pe": {"kind": "pope"}}, 0.5),  # moves some delta outside [-2 pi, 0]
    ("rope+increasing", {"pe": {"kind": "rope", "freqs": "increasing"}}, 0.0),
    ("rope+pi2", {"pe": {"kind": "rope", "rope_scaling": "pi", "rope_factor": 2}}, 0.0),
    ("rope-half+ntk3", {"pe": {"kind": "rope-half", "rope_scaling": "ntk", "rope_factor": 3}}, 0.0),
    ("rope+yarn3", {"pe": {"kind": "rope", "rope_scaling": "yarn", "rope_factor": 3, "rope_train_len": 5}}, 0.0),
    ("rope-interleaved+pi2+base500", {"pe": {"kind": "rope-interleaved", "rope_scaling": "pi", "rope_factor": 2,
                                             "base": 500}}, 0.0),
    ("rope+abs_pos+scaled_embedding", {"pe": {"kind": "rope"}, "model": {"abs_pos": "learned",
                                                                        "init": "scaled-embedding"}}, 0.0),
    ("none+tied+loss_all", {"pe": {"kind": "none"}, "model": {"tied_embeddings": True},
                            "train": {"loss": "every_next_token"}}, 0.0),
]


def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def rms_norm(x, g):
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * g


def rotate(x, t, theta, n_rot):
    """Half-split RoPE on the first n_rot channels of x (..., T, D): channel c pairs with
    c + n_rot/2 and turns by t * theta_c; the rest pass through."""
    h = n_rot // 2
    a = t[:, None] * theta[None, :]  # (T, h)
    c, s = torch.cos(a), torch.sin(a)
    x1, x2, rest = x[..., :h], x[..., h:n_rot], x[..., n_rot:]
    return torch.cat([x1 * c - x2 * s, x1 * s + x2 * c, rest], -1)


def rotate_interleaved(x, t, theta):
    """RoPE pairing channels 2c and 2c+1 of x (..., T, D), as RoFormer writes it: each pair a
    complex number, multiplied by exp(i t theta_c)."""
    z = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
    a = t[:, None] * theta[None, :]  # (T, D/2)
    return torch.view_as_real(z * torch.polar(torch.ones_like(a), a)).reshape(x.shape)


def yarn_theta(d, base, s, train_len):
    """YaRN's frequencies as its reference (jquesnelle/yarn) computes them: kept above 32 turns
    over the training length, divided by s below 1 turn, a linear ramp over the channels between."""
    corr = lambda turns: d * math.log(train_len / (turns * 2 * math.pi)) / (2 * math.log(base))
    low, high = max(math.floor(corr(32)), 0), min(math.ceil(corr(1)), d - 1)
    high = high + 0.001 if high == low else high
    ramp = torch.clamp((torch.arange(d // 2, dtype=torch.float64) - low) / (high - low), 0, 1)
    th = base ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    return th / s * ramp + th * (1 - ramp)


def rope_theta(d, pe):
    base, f = pe["base"], pe["rope_factor"]
    if pe["rope_scaling"] == "yarn":
        return yarn_theta(d, base, f, pe["rope_train_len"])
    if pe["rope_scaling"] == "ntk":
        base = base * f ** (d / (d - 2))
    sign = 1.0 if pe["freqs"] == "increasing" else -1.0
    th = base ** (sign * 2 * torch.arange(d // 2, dtype=torch.float64) / d)
    return th / f if pe["rope_scaling"] == "pi" else th


def alibi_slopes(H, half):
    n = H // 2 if half else H
    return torch.tensor([2.0 ** (-8.0 * (h + 1) / n) if h < n else 0.0 for h in range(H)], dtype=torch.float64)


def torch_loss(d):
    cfg = d["config"]
    m, pe, inp, tr = cfg["model"], cfg["pe"], cfg["input"], cfg["train"]
    P = {p["name"]: torch.tensor(p["value"], dtype=torch.float64).reshape(p["rows"], p["cols"]).requires_grad_()
         for p in d["params"]}
    b = d["batch"]
    B, T = b["B"], b["T"]
    tok = torch.tensor(b["tokens"]).reshape(B, T)
    ans = torch.tensor(b["answer_pos"])
    C, H, L = m["d_model"], m["n_head"], m["n_layer"]
    D = C // H
    t = torch.arange(T, dtype=torch.float64)
    kind = pe["kind"]

    x = P["wte"][tok] * (math.sqrt(C) if m["init"] == "scaled-embedding" else 1.0)
    if kind == "sinusoidal":
        i = torch.arange(0, C, 2, dtype=torch.float64)
        a = t[:, None] / 10000.0 ** (i[None, :] / C)
        x = x + torch.stack([torch.sin(a), torch.cos(a)], -1).reshape(T, C)
    if "pos_emb" in P:
        x = x + P["pos_emb"][:T]

    # Which keys each query sees: causal, and with masked left pads only the real tokens (a query
    # on a pad sees itself alone).
    j, q_t = torch.arange(T)[None, :], torch.arange(T)[:, None]
    allowed = (j <= q_t)[None].expand(B, T, T)
    if b["key_start"]:
        ks = torch.tensor(b["key_start"])[:, None, None]
        allowed = allowed & ((j[None] >= ks) | (j == q_t)[None])
    Dq = 2 * D if kind == "pope" else D
    scale = {"head_dim": 1 / math.sqrt(D), "qk_dim": 1 / math.sqrt(Dq)}.get(m["attn_scale"])
    scale = float(m["attn_scale"]) if scale is None else scale
    if pe["rope_scaling"] == "yarn":  # q and k each times 0.1 ln(s) + 1 (YaRN's get_mscale)
        scale *= (0.1 * math.log(pe["rope_factor"]) + 1) ** 2 if pe["rope_factor"] > 1 else 1.0
    slopes = alibi_slopes(H, kind == "alibi-half") if kind.startswith("alibi") else None

    for layer in range(L):
        p = lambda n: P.get(f"layer{layer}.{n}")
        h = rms_norm(x, p("ln1")[0])
        qkv = h @ p("w_qkv").T + (p("b_qkv")[0] if m["bias"] else 0)
        q, k, v = qkv.reshape(B, T, 3, H, D).permute(2, 0, 3, 1, 4)  # each (B, H, T, D)
        if kind in ("rope", "rope-half"):
            n_rot = D if kind == "rope" else D // 2
            th = rope_theta(n_rot, pe)
            q, k = rotate(q, t, th, n_rot), rotate(k, t, th, n_rot)
        elif kind == "rope-interleaved":
            th = rope_theta(D, pe)
            q, k = rotate_interleaved(q, t, th), rotate_interleaved(k, t, th)
        elif kind == "pope":
            sign = 1.0 if pe["freqs"] == "increasing" else -1.0
            th = pe["base"] ** (sign * torch.arange(D, dtype=torch.float64) / D)
            delta = (P["pe_shared"] if pe["delta_shared"] else p("pe")).reshape(H, 1, D)
            aq = t[:, None] * th[None, :]                         # (T, D)
            ak = aq[None] + torch.clamp(delta, -2 * math.pi, 0)    # (H, T, D)
            mq, mk = torch.nn.functional.softplus(q), torch.nn.functional.softplus(k)
            q = torch.cat([mq * torch.cos(aq), mq * torch.sin(aq)], -1)
            k = torch.cat([mk * torch.cos(ak), mk * torch.sin(ak)], -1)
        s = q @ k.transpose(-1, -2) * scale
        if m["attn_temp"] == "learned":
            s = s * torch.exp(p("attn_temp")[0])[None, :, None, None]
        if slopes is not None:
            s = s - slopes[None, :, None, None] * (q_t - j)[None, None].to(torch.float64)
        s = s.masked_fill(~allowed[:, None], float("-inf"))
        y = torch.softmax(s, -1) @ v                               # (B, H, T, D)
        y = y.transpose(1, 2).reshape(B, T, C)
        x = x + y @ p("w_o").T + (p("b_o")[0] if m["bias"] else 0)
        h = rms_norm(x, p("ln2")[0])
        f = torch.nn.functional.gelu(h @ p("w_fc").T + (p("b_fc")[0] if m["bias"] else 0))
        x = x + f @ p("w_proj").T + (p("b_proj")[0] if m["bias"] else 0)

    w_head = P["wte"] if m["tied_embeddings"] else P["w_head"]
    if tr["loss"] == "every_next_token":
        # Every position up to the answer that holds a token predicts the next one; the answer
        # position predicts the target. The mean over all of them.
        rows, tgts = [], []
        for r in range(B):
            for pos in range(int(ans[r]) + 1):
                if tok[r, pos] != PAD:
                    rows.append(x[r, pos])
                    tgts.append(int(tok[r, pos + 1]) if pos < ans[r] else b["targets"][r])
        hf, tg = torch.stack(rows), torch.tensor(tgts)
    else:
        hf, tg = x[torch.arange(B), ans], torch.tensor(b["targets"])
    logits = rms_norm(hf, P["lnf"][0]) @ w_head.T
    loss = torch.nn.functional.cross_entropy(logits, tg)
    loss.backward()
    return loss, P


def rel_err(ours, ref):
    scale = ref.abs().max().item()
    diff = (ours - ref).abs().max().item()
    return diff / scale if scale > 0 else (0.0 if diff == 0 else math.inf)


def check(name, patch, perturb, dump_bin, workdir):
    case_path = os.path.join(workdir, name + ".case.json")
    out_path = os.path.join(workdir, name + ".dump.json")
    with open(case_path, "w") as f:
        json.dump({"config": merge(BASE, patch), "perturb": perturb}, f)
    r = subprocess.run([dump_bin, case_path, out_path], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL {name}: popebench_model_dump: {r.stderr.strip()}")
        return False
    with open(out_path) as f:
        d = json.load(f)
    loss, P = torch_loss(d)
    errs = {"loss": abs(d["loss"] - loss.item()) / abs(loss.item())}
    for p in d["params"]:
        g = P[p["name"]].grad
        ref = torch.zeros(p["rows"], p["cols"], dtype=torch.float64) if g is None else g
        errs[p["name"]] = rel_err(torch.tensor(p["grad"], dtype=torch.float64).reshape(ref.shape), ref)
    worst = max(errs, key=errs.get)
    ok = errs[worst] <= TOL
    print(f"{'ok  ' if ok else 'FAIL'} {name:34s} loss {loss.item():.6f}  {len(d['params'])} tensors  "
          f"worst {worst} {errs[worst]:.1e}")
    if not ok:
        for n, e in errs.items():
            if e > TOL:
                print(f"       {n}: {e:.3e}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", required=True, help="the popebench_model_dump binary")
    ap.add_argument("--keep", help="write the cases and dumps here instead of a temporary folder")
    ap.add_argument("--case", action="append", help="run only this case (repeatable)")
    a = ap.parse_args()
    torch.set_num_threads(1)  # the cases are tiny; threads only add run-to-run noise in the sums
    if not (os.path.isfile(a.dump) and os.access(a.dump, os.X_OK)):
        print(f"torch_crosscheck: --dump {a.dump}: not an executable file (build popebench_model_dump first)")
        return 2
    cases = [c for c in CASES if not a.case or c[0] in a.case]
    if a.case and len(cases) != len(a.case):
        print(f"torch_crosscheck: unknown case; known: {', '.join(c[0] for c in CASES)}")
        return 2
    print(f"torch {torch.__version__}, tolerance {TOL:g} (max abs difference / max abs torch value, per tensor)")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = a.keep or tmp
        os.makedirs(workdir, exist_ok=True)
        failed = [n for n, patch, s in cases if not check(n, patch, s, a.dump, workdir)]
    print(f"{len(cases) - len(failed)} of {len(cases)} cases within {TOL:g}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
