#!/usr/bin/env python3
"""Inputs and expected outputs (.npy) for the held-out kernels of tests/data/heldout/, and the
`tessel run … --input … --expect …` line that verifies each on a GPU.

    python3 tools/heldout-npy.py OUT_DIR
    TESSEL=target/release/tessel bash OUT_DIR/verify.sh     # from the repository root

Each expected output is computed in float64 with NumPy from the very inputs the kernel gets
(16-bit inputs are rounded to their type first), then rounded to the output's type. Sizes are
not multiples of the kernels' tiles, so every edge mask is exercised. verify.sh runs every line,
prints each result and exits with the number of kernels that failed.
"""

import math
import os
import sys

import numpy as np

RNG = np.random.default_rng(20261126)


def bf16(a):
    """float32 values rounded to the nearest bfloat16 (ties to even), kept as float32."""
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def normal(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


class Case:
    def __init__(self, out_dir, name, kernel, shape, scalars=(), tol=()):
        self.dir = os.path.join(out_dir, name)
        os.makedirs(self.dir, exist_ok=True)
        self.name, self.kernel, self.shape = name, kernel, shape
        self.scalars, self.tol = list(scalars), list(tol)
        self.inputs, self.expects = [], []

    def save(self, kind, param, array):
        path = os.path.join(self.dir, f"{param}.{kind}.npy")
        np.save(path, array)
        (self.inputs if kind == "in" else self.expects).append((param, path))

    def line(self):
        parts = ['"$TESSEL" run', f"tests/data/heldout/{self.kernel}.co", "--shape", self.shape]
        parts += [f"--scalar {k}={v}" for k, v in self.scalars]
        parts += [f"--input {p}={f}" for p, f in self.inputs]
        parts += [f"--expect {p}={f}" for p, f in self.expects]
        parts += list(self.tol)
        return " ".join(parts)


def softmax(out):
    c = Case(out, "softmax_block", "softmax_block", "R=300,C=1000", tol=["--rtol 1e-5", "--atol 1e-7"])
    s = normal(300, 1000, scale=3.0)
    e = np.exp(s.astype(np.float64) - s.max(axis=1, keepdims=True))
    c.save("in", "s", s)
    c.save("out", "p", (e / e.sum(axis=1, keepdims=True)).astype(np.float32))
    return c


def rmsnorm(out):
    eps = 1e-6
    c = Case(out, "rmsnorm", "rmsnorm", "R=257,D=1000", scalars=[("eps", eps)],
             tol=["--rtol 2e-3", "--atol 1e-4"])
    x = normal(257, 1000).astype(np.float16)
    g = (1.0 + 0.1 * normal(1000)).astype(np.float16)
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    inv = 1.0 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + np.float64(np.float32(eps)))
    c.save("in", "x", x)
    c.save("in", "g", g)
    c.save("out", "y", (x64 * inv * g64).astype(np.float16))
    return c


def layernorm(out):
    c = Case(out, "layernorm", "layernorm", "R=129,D=777", tol=["--rtol 1e-4", "--atol 1e-5"])
    x = normal(129, 777, scale=2.0) + 0.5
    gamma, beta = normal(777), normal(777)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    y = (x64 - mean) / np.sqrt(var + np.float64(np.float32(1e-5))) * gamma + beta
    for p, a in (("x", x), ("gamma", gamma), ("beta", beta)):
        c.save("in", p, a)
    c.save("out", "y", y.astype(np.float32))
    return c


def row_sum(out):
    c = Case(out, "row_sum", "row_sum", "R=1000,C=4099", tol=["--rtol 1e-4", "--atol 1e-3"])
    v = normal(1000, 4099)
    c.save("in", "v", v)
    c.save("out", "out", v.astype(np.float64).sum(axis=1).astype(np.float32))
    return c


def gemv_persistent(out):
    # N not a multiple of ROWS * GRID: the last row groups of some blocks lie past N.
    c = Case(out, "gemv_persistent", "gemv_persistent", "N=2501,K=1032", tol=["--rtol 2e-3", "--atol 2e-2"])
    w = normal(2501, 1032).astype(np.float16)
    x = normal(1032).astype(np.float16)
    c.save("in", "w", w)
    c.save("in", "x", x)
    c.save("out", "y", (w.astype(np.float64) @ x.astype(np.float64)).astype(np.float16))
    return c


def int_update(out):
    c = Case(out, "int_update", "int_update", "N=100003")
    x = RNG.integers(-(1 << 29), 1 << 29, size=100003, dtype=np.int32)
    c.save("in", "x", x)
    c.save("out", "y", ((x.astype(np.int64) + 3) * 2 - 1).astype(np.int32))
    return c


def gemm_bias_relu(out):
    c = Case(out, "gemm_bias_relu", "gemm_bias_relu", "M=200,N=300,K=170",
             tol=["--rtol 2e-3", "--atol 1e-3"])
    x = normal(200, 170, scale=0.2).astype(np.float16)
    w = normal(300, 170, scale=0.2).astype(np.float16)
    b = normal(300, scale=0.5).astype(np.float16)
    y = np.maximum(x.astype(np.float64) @ w.astype(np.float64).T + b.astype(np.float64), 0.0)
    c.save("in", "x", x)
    c.save("in", "wt", w)
    c.save("in", "bias", b)
    c.save("out", "y", y.astype(np.float16))
    return c


def gemm_alpha_beta(out):
    c = Case(out, "gemm_alpha_beta", "gemm_alpha_beta", "M=130,N=70,K=33",
             scalars=[("alpha", 1.5), ("beta", -0.5)], tol=["--rtol 1e-4", "--atol 1e-4"])
    a, b, c0 = normal(130, 33), normal(33, 70), normal(130, 70)
    want = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) - 0.5 * c0.astype(np.float64)
    c.save("in", "a", a)
    c.save("in", "b", b)
    c.save("in", "c", c0)
    c.save("out", "c", want.astype(np.float32))
    return c


def batched_gemm(out):
    c = Case(out, "batched_gemm", "batched_gemm", "B=3,M=50,N=40,K=37",
             tol=["--rtol 1e-4", "--atol 1e-4"])
    a, w = normal(3, 50, 37), normal(3, 40, 37)
    c.save("in", "a", a)
    c.save("in", "w", w)
    c.save("out", "c", np.einsum("bik,bjk->bij", a.astype(np.float64), w.astype(np.float64)).astype(np.float32))
    return c


def gemm_tn_simt(out):
    c = Case(out, "gemm_tn_simt", "gemm_tn_simt", "M=100,N=90,K=77", tol=["--rtol 1e-4", "--atol 1e-4"])
    at, b = bf16(normal(77, 100)), bf16(normal(77, 90))
    c.save("in", "at", at)
    c.save("in", "b", b)
    c.save("out", "out", (at.astype(np.float64).T @ b.astype(np.float64)).astype(np.float32))
    return c


def gemm_tt_simt(out):
    c = Case(out, "gemm_tt_simt", "gemm_tt_simt", "M=70,N=65,K=45", tol=["--rtol 2e-3", "--atol 2e-3"])
    at = normal(45, 70, scale=0.3).astype(np.float16)
    bt = normal(65, 45, scale=0.3).astype(np.float16)
    want = at.astype(np.float64).T @ bt.astype(np.float64).T
    c.save("in", "at", at)
    c.save("in", "bt", bt)
    c.save("out", "out", want.astype(np.float16))
    return c


def transpose(out):
    c = Case(out, "transpose_smem", "transpose_smem", "H=1000,W=777")
    m = normal(1000, 777)
    c.save("in", "m", m)
    c.save("out", "o", np.ascontiguousarray(m.T))
    return c


def axpy(out):
    c = Case(out, "axpy", "axpy", "N=100001", scalars=[("a", 0.5)])
    x, y = normal(100001), normal(100001)
    c.save("in", "x", x)
    c.save("in", "y", y)
    c.save("out", "y", (0.5 * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32))
    return c


def stencil(out):
    n = 1000
    c = Case(out, "futures_stencil", "futures_stencil", f"N={n}")
    u = normal(n)
    # Each 128-wide tile is read into shared memory (zeros past N); the neighbours clamp to it.
    t = np.zeros(n, dtype=np.float64)
    for b in range(math.ceil(n / 128)):
        tile = np.zeros(128, dtype=np.float32)
        part = u[b * 128:(b + 1) * 128]
        tile[:len(part)] = part
        for x in range(len(part)):
            lo, hi = max(x - 1, 0), min(x + 1, 127)
            s = np.float32(np.float32(tile[lo] + tile[x]) + tile[hi])
            t[b * 128 + x] = np.float32(s / np.float32(3.0))
    c.save("in", "u", u)
    c.save("out", "t", t.astype(np.float32))
    return c


def backward_diff(out):
    c = Case(out, "backward_diff", "backward_diff", "N=1000")
    x = normal(1000)
    prev = np.concatenate([[0.0], x[:-1]]).astype(np.float32)  # x[-1] reads as zero
    c.save("in", "x", x)
    c.save("out", "y", (x - prev).astype(np.float32))
    return c


def relu(out):
    c = Case(out, "default_levels_relu", "default_levels_relu", "R=33")
    x = normal(33, 256)
    c.save("in", "x", x)
    c.save("out", "y", np.maximum(x, 0.0))
    return c


def affine(out):
    c = Case(out, "no_tunables_scale", "no_tunables_scale", "H=33,W=50")
    x = normal(33, 50)
    c.save("in", "inp", x)
    c.save("out", "out", (2.0 * x.astype(np.float64) + 1.0).astype(np.float32))
    return c


def ragged(out):
    c = Case(out, "ragged_gemm", "ragged_gemm", "M=37,N=29,K=19", tol=["--rtol 1e-5", "--atol 1e-5"])
    p, q = normal(37, 19), normal(29, 19)
    c.save("in", "p", p)
    c.save("in", "q", q)
    c.save("out", "d", (p.astype(np.float64) @ q.astype(np.float64).T).astype(np.float32))
    return c


def int8(out):
    c = Case(out, "int8_warp_gemm", "int8_warp_gemm", "M=100,N=70,K=130")
    a = RNG.integers(-128, 128, size=(100, 130), dtype=np.int8)
    b = RNG.integers(-128, 128, size=(70, 130), dtype=np.int8)
    c.save("in", "a", a)
    c.save("in", "b", b)
    c.save("out", "c", (a.astype(np.int64) @ b.astype(np.int64).T).astype(np.int32))
    return c


def warp_f16(out):
    c = Case(out, "warp_mma_tiles", "warp_mma_tiles", "M=128,N=192,K=100",
             tol=["--rtol 1e-3", "--atol 1e-3"])
    a = normal(128, 100, scale=0.3).astype(np.float16)
    b = normal(192, 100, scale=0.3).astype(np.float16)
    c.save("in", "a", a)
    c.save("in", "b", b)
    c.save("out", "c", (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.float32))
    return c


def warp_tn(out):
    c = Case(out, "warp_tn_gemm", "warp_tn_gemm", "M=96,N=64,K=80", tol=["--rtol 1e-3", "--atol 1e-3"])
    a, b = bf16(normal(80, 96, scale=0.3)), bf16(normal(80, 64, scale=0.3))
    c.save("in", "a", a)
    c.save("in", "b", b)
    c.save("out", "c", (a.astype(np.float64).T @ b.astype(np.float64)).astype(np.float32))
    return c


def wgmma_gelu(out):
    # Ragged against the 64-wide tiles; rows stay multiples of 16 bytes, as TMA requires.
    c = Case(out, "wgmma_nn_gelu", "wgmma_nn_gelu", "M=200,N=120,K=248",
             tol=["--rtol 3e-3", "--atol 2e-3"])
    a = normal(200, 248, scale=0.2).astype(np.float16)
    b = normal(248, 120, scale=0.2).astype(np.float16)
    z = a.astype(np.float64) @ b.astype(np.float64)
    erf = np.vectorize(math.erf)
    c.save("in", "a", a)
    c.save("in", "b", b)
    c.save("out", "out", (0.5 * z * (1.0 + erf(z / math.sqrt(2.0)))).astype(np.float16))
    return c


CASES = [softmax, rmsnorm, layernorm, row_sum, gemv_persistent, int_update, gemm_bias_relu, gemm_alpha_beta, batched_gemm,
         gemm_tn_simt, gemm_tt_simt, transpose, axpy, stencil, backward_diff, relu, affine, ragged, int8,
         warp_f16, warp_tn, wgmma_gelu]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    lines = [f(out).line() for f in CASES]
    script = os.path.join(out, "verify.sh")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n# Generated by tools/heldout-npy.py: run from the repository root.\n")
        f.write('TESSEL="${TESSEL:-target/release/tessel}"\nfailed=0\n')
        for line in lines:
            f.write(f"{line} || failed=$((failed + 1))\n")
        f.write('echo "held-out kernels failing verification: $failed"\nexit $failed\n')
    print(f"{len(lines)} kernels; run: TESSEL=target/release/tessel bash {script}")


if __name__ == "__main__":
    main()
