#!/usr/bin/env python3
"""Error model behind the GPU tests' tolerances for --gpu-attention tf32 (tests/test_cuda_kernels.cpp).

Emulates the whole-sequence attention (forward and backward, causal, as
kernels/cuda/attention_short_tf32.cu computes it) with every product's two operands rounded to
TF32 the way cvt.rna.tf32.f32 does (10 mantissa bits, nearest, ties away) and the sums exact,
against the same maths in float64, on the tests' inputs: unit normal q, k, v, dO; PoPE's
transformed rows softplus(x) (cos, sin) of random-base phases with a delta in [-6.28, 0].
Prints the worst relative L2 error over 3 draws per shape of the output, of dqkv and of PoPE's
delta gradient (and, at T = 1 where that gradient is exactly 0, its size relative to |dqkv|).
Needs numpy. Run: python3 tests/tf32_attention_error.py
"""
import numpy as np

rng = np.random.default_rng(0)


def tf32(x):
    x = np.asarray(x, dtype=np.float32).copy()
    u = x.view(np.uint32)
    u[:] = (u + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    return x.astype(np.float64)


def product(a, b, rounded):
    return tf32(a) @ tf32(b) if rounded else a @ b


def rows(T, D, pope):
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


def attention(Q, K, V, dO, rounded):
    T, scale = Q.shape[0], 1.0 / np.sqrt(V.shape[1])
    S = np.where(np.tril(np.ones((T, T))) > 0, product(Q * scale, K.T, rounded), -np.inf)
    P = np.exp(S - S.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    O = product(P, V, rounded)
    dS = P * (product(dO, V.T, rounded) - (dO * O).sum(1, keepdims=True))
    dQ, dK, dV = product(dS, K, rounded) * scale, product(dS.T, Q, rounded) * scale, product(P.T, dO, rounded)
    return O, dK, np.concatenate([dQ, dK, dV], 1)


def main():
    worst = {"out": 0.0, "dqkv": 0.0, "ddelta": 0.0, "ddelta_T1_of_dqkv": 0.0}
    for pope in (False, True):
        for D in (16, 32, 64):
            for T in (1, 7, 16, 33, 48, 64):
                for _ in range(3):
                    Q, K, V, dO = rows(T, D, pope)
                    (O0, dK0, G0), (O1, dK1, G1) = (attention(Q, K, V, dO, r) for r in (False, True))
                    rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)
                    worst["out"] = max(worst["out"], rel(O1, O0))
                    worst["dqkv"] = max(worst["dqkv"], rel(G1, G0))
                    if pope:  # d delta_c = sum_s dK'_s . dK'_s/d delta_c, K' = |k| (cos, sin)(phase + delta)
                        dd = [(g[:, :D] * -K[:, D:] + g[:, D:] * K[:, :D]).sum(0) for g in (dK0, dK1)]
                        if T == 1:
                            worst["ddelta_T1_of_dqkv"] = max(worst["ddelta_T1_of_dqkv"],
                                                             np.linalg.norm(dd[1] - dd[0]) / np.linalg.norm(G0))
                        else:
                            worst["ddelta"] = max(worst["ddelta"], rel(dd[1], dd[0]))
    for k, v in worst.items():
        print(f"{k}: {v:.2e}")


if __name__ == "__main__":
    main()
