#!/usr/bin/env python3
"""Error model behind the GPU tests' tolerances for --gpu-attention tf32 (tests/test_cuda_attention.cpp).

Emulates the whole-sequence attention (forward and backward, causal, as
kernels/cuda/attention_short_tf32.cu computes it) with every product's two operands rounded to
TF32 the way cvt.rna.tf32.f32 does (10 mantissa bits, nearest, ties away) and the sums exact,
against the same maths in float64, on the tests' cases: B rows of H = 2 heads, unit normal q, k,
v, dO; PoPE's transformed rows softplus(x) (cos, sin) of the phases with a delta in [-6.28, 0];
the "[tf32]" test case's second form, B = 4 with masked left pads (key_start 0, 3, 40 and T - 1,
each capped at T - 1) and learned log-temperatures (0.3, -0.5).
Each error is measured as the test measures it: the relative L2 error over the whole tensor of
the output, of dqkv, of PoPE's delta gradient (H, D) and of the log-temperature gradient (H),
both summed over the B x T rows; at T = 1, where those two gradients are exactly 0, their size
against the test's floor (|dqkv|, times sqrt(D) for the temperature). Prints the worst over
DRAWS draws per case (the GPU test has one draw per case, so its errors sit inside this spread).
Needs numpy. Run: python3 tests/tf32_attention_error.py [DRAWS]  (default 8)
"""
import sys

import numpy as np

rng = np.random.default_rng(0)
H = 2
KEY_STARTS = (0, 3, 40)  # then T - 1; each capped at T - 1, as the test draws them
LOG_TEMP = (0.3, -0.5)
T1_FLOOR, TEMP_FLOOR = 200, 10  # the test's kTf32AttnT1Floor and kTf32AttnTempFloor


def tf32(x):
    x = np.asarray(x, dtype=np.float32).copy()
    u = x.view(np.uint32)
    u[:] = (u + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    return x.astype(np.float64)


def product(a, b, rounded):
    return tf32(a) @ tf32(b) if rounded else a @ b


def rows(T, D, pope):
    """Transformed q and k as the dot product sees them, v, dO; for PoPE also what d delta needs."""
    q, k, v, do = (rng.standard_normal((T, D)) for _ in range(4))
    if not pope:
        return q, k, v, do
    theta = 10000.0 ** (-np.arange(D) / D)
    phase = np.arange(T)[:, None] * theta
    delta = -6.28 * rng.random(D)
    softplus = lambda x: np.log1p(np.exp(x))
    Q = np.concatenate([softplus(q) * np.cos(phase), softplus(q) * np.sin(phase)], 1)
    K = np.concatenate([softplus(k) * np.cos(phase + delta), softplus(k) * np.sin(phase + delta)], 1)
    return Q, K, v, do


def allowed(T, key_start):
    """Query t attends keys [key_start, t], or itself alone when it is a pad (kernels/cpu/attention.hpp)."""
    t, s = np.arange(T)[:, None], np.arange(T)[None, :]
    first = np.where(t < key_start, t, key_start)
    return (s <= t) & (s >= first)


def head(Q, K, V, dO, rounded, key_start, log_temp):
    """One (row, head): output, dK as the dot product sees it, dqkv, and the temperature's gradient."""
    T = Q.shape[0]
    sh = np.exp(log_temp) / np.sqrt(V.shape[1])
    S = np.where(allowed(T, key_start), product(Q * sh, K.T, rounded), -np.inf)
    P = np.exp(S - S.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    O = product(P, V, rounded)
    dS = P * (product(dO, V.T, rounded) - (dO * O).sum(1, keepdims=True))
    G = product(dS, K, rounded)  # the kernel's dq' before the head scale: d log_temp = sum_t G_t . sh q'_t
    dQ, dK, dV = G * sh, product(dS.T, Q, rounded) * sh, product(P.T, dO, rounded)
    return O, dK, np.concatenate([dQ, dK, dV], 1), (G * Q * sh).sum()


def case(B, T, D, pope, extras):
    """The errors of one draw of one test case, as the test computes them."""
    key_start = [min(s, T - 1) for s in KEY_STARTS] + [T - 1] if extras else [0] * B
    log_temp = LOG_TEMP if extras else (0.0, 0.0)
    out, grads, dd, dt = ([], []), ([], []), (np.zeros((H, D)), np.zeros((H, D))), (np.zeros(H), np.zeros(H))
    for b in range(B):
        for h in range(H):
            Q, K, V, dO = rows(T, D, pope)
            for r in (0, 1):
                O, dK, G, dtemp = head(Q, K, V, dO, r == 1, key_start[b], log_temp[h])
                out[r].append(O)
                grads[r].append(G)
                dt[r][h] += dtemp
                if pope:  # d delta_c = sum_s dK'_s . dK'_s/d delta_c, K' = |k| (cos, sin)(phase + delta)
                    dd[r][h] += (dK[:, :D] * -K[:, D:] + dK[:, D:] * K[:, :D]).sum(0)
    rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)
    g0, g1 = np.concatenate(grads[0]), np.concatenate(grads[1])
    e = {"out": rel(np.concatenate(out[1]), np.concatenate(out[0])), "dqkv": rel(g1, g0)}
    # The summed gradients as small_grad_err measures them: the error over max(|reference|,
    # 1e-3 x floor x scale), scale |dqkv| for delta and sqrt(D) |dqkv| for the temperature.
    small = lambda got, ref, scale, floor: (np.linalg.norm(got - ref) /
                                            max(np.linalg.norm(ref), 1e-3 * floor * scale))
    t1 = T == 1
    if pope:
        e["ddelta_T1" if t1 else "ddelta"] = small(dd[1], dd[0], np.linalg.norm(g0), T1_FLOOR if t1 else 1.0)
    if extras:
        e["dtemp_T1" if t1 else "dtemp"] = small(dt[1], dt[0], np.sqrt(D) * np.linalg.norm(g0),
                                                T1_FLOOR if t1 else TEMP_FLOOR)
    return e


def main():
    draws = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    worst = {}
    for pope in (False, True):
        for D in (16, 32, 64):
            for T in (1, 7, 16, 33, 48, 64):
                for extras in (False, True):
                    for _ in range(draws):
                        for k, v in case(4 if extras else 3, T, D, pope, extras).items():
                            worst[k] = max(worst.get(k, 0.0), v)
    for k in ("out", "dqkv", "ddelta", "ddelta_T1", "dtemp", "dtemp_T1"):
        print(f"{k}: {worst[k]:.2e}")


if __name__ == "__main__":
    main()
