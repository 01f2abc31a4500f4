#!/usr/bin/env python3
"""CPU-only check of the tessel CUDA headers and the reference kernel through NVRTC 13.0.

Compiles reference/ws_gemm.cu (which includes prelude.cuh, sm90_hopper.cuh, sm90_wgmma.cuh) for
sm_90a with NVRTC, one name expression per configuration, exactly as tessel's runtime will, then
reads the cubin back with nvdisasm and checks, per kernel:
  - HGMMA (wgmma), UTMALDG (TMA load), UTMASTG (TMA store) and STSM (stmatrix) are present;
  - no LDL/STL (local memory: an accumulator array spilled or indexed at run time);
  - ptxas reports no stack frame / spills, and the log has no C75xx performance warnings
    (C7508 setmaxnreg ignored, C7511 wgmma serialized, C7517/C7519 injected waits).
It also compiles a small kernel that touches every helper of prelude.cuh / sm80_async.cuh and
every wgmma specialization's asm (all N, all three variants) so a typo anywhere fails here.

Usage: check_nvrtc.py --nvrtc DIR_WITH_libnvrtc.so.13 --nvdisasm PATH [--out DIR]
Exit status 0 only if every check passed.
"""
import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (WARP_N, STAGES, CONSUMERS, TILE_K, SWIZ, TIn, TAcc): a spread over every code path.
CONFIGS = [
    (128, 4, 2, 64, 128, "tsl_f16", "float"),
    (192, 4, 2, 64, 128, "tsl_f16", "float"),
    (256, 3, 2, 64, 128, "tsl_f16", "float"),
    (256, 4, 1, 64, 128, "tsl_f16", "float"),
    (176, 3, 2, 64, 128, "tsl_f16", "float"),   # row-major (unswizzled) output staging
    (192, 4, 2, 32, 64, "tsl_f16", "float"),    # 64B swizzle
    (128, 2, 1, 32, 32, "tsl_f16", "float"),    # 32B swizzle (K-block of 16)
    (128, 1, 1, 64, 128, "tsl_f16", "float"),   # single stage (release after wait<0>)
    (256, 3, 2, 128, 128, "tsl_f16", "float"),  # two TMA boxes per operand per stage
    (192, 4, 2, 64, 128, "tsl_f16", "tsl_f16"),
    (256, 4, 2, 64, 128, "tsl_f16", "tsl_f16"),
    (192, 4, 2, 64, 128, "tsl_bf16", "float"),
    (256, 3, 2, 64, 128, "tsl_bf16", "float"),
]

SMOKE = r"""
#include "prelude.cuh"
#include "sm80_async.cuh"
#include "sm90_hopper.cuh"
#include "sm90_wgmma.cuh"

// Touches every scalar helper; the results go to memory so nothing is dead code.
extern "C" __global__ void tsl_smoke_scalar(const tsl_f16 *a, const tsl_bf16 *b, float *o,
                                            tsl_f16 *oh, tsl_bf16 *ob, tsl_u32 *ou) {
  const int i = threadIdx.x;
  tsl_f16 h = tsl_fma(a[i], a[i + 1], tsl_f16_from_f32(1.0f));
  tsl_bf16 g = tsl_fma(b[i], b[i + 1], tsl_bf16_from_f32(1.0f));
  tsl_f16x2 x = tsl_f16x2_from_f32(tsl_to_f32(a[i]), 2.0f);
  x = tsl_fma(x, x, x);
  o[i] = tsl_to_f32(h) + tsl_to_f32(g) + tsl_f16_to_f32(tsl_f16x2_lo(x)) +
         tsl_f16_to_f32(tsl_f16x2_hi(x)) + tsl_fma(a[i], a[i], 1.0f) + tsl_fma(b[i], b[i], 1.0f) +
         tsl_fma(1.0f, 2.0f, 3.0f) + tsl_bf16_to_f32(b[i]);
  oh[i] = tsl_from_f32<tsl_f16>(o[i]);
  ob[i] = tsl_from_f32<tsl_bf16>(o[i]);
  ou[i] = tsl_pack2<tsl_f16>(o[i], 1.0f) ^ tsl_pack2<tsl_bf16>(o[i], 2.0f);
}

extern "C" __global__ void tsl_smoke_cp_async(const tsl_f16 *src, tsl_f16 *dst, int n) {
  __shared__ __align__(16) tsl_f16 buf[8 * 128];
  const int i = threadIdx.x;
  const int left = 2 * n - 16 * i;
  const int bytes = left <= 0 ? 0 : (left < 16 ? left : 16);
  tsl_cp_async_16(tsl_smem_addr(buf + 8 * i), bytes > 0 ? src + 8 * i : src, bytes);
  tsl_cp_async_commit();
  tsl_cp_async_wait<0>();
  tsl_cp_async_wait_all();
  __syncthreads();
  dst[i] = buf[(i * 9) % (8 * 128)];
}

// Instantiates every wgmma specialization (the asm text is only assembled when used).
template <typename TIn, typename TAcc, int N> __device__ void tsl_smoke_one(tsl_u64 d, float *o) {
  typedef tsl_wgmma<TIn, TAcc, N> W;
  typename W::reg_t acc[W::NREG];
  tsl_zero(acc);
  tsl_pin(acc);
  tsl_wgmma_fence();
  W::mma(acc, d, d + 2, 0);
  tsl_wgmma_commit();
  tsl_wgmma_wait<0>();
  tsl_pin(acc);
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < W::NREG; ++i) s += (float)acc[i];
  o[threadIdx.x] += s;
}
template <int N> __device__ void tsl_smoke_n(tsl_u64 d, float *o) {
  tsl_smoke_one<tsl_f16, float, N>(d, o);
  tsl_smoke_one<tsl_bf16, float, N>(d, o);
  tsl_smoke_one<tsl_f16, tsl_f16, N>(d, o);
  if constexpr (N < 256) tsl_smoke_n<N + 8>(d, o);
}
extern "C" __global__ void tsl_smoke_wgmma(float *o) {
  __shared__ __align__(1024) tsl_u8 tile[16384];
  const tsl_u64 d = tsl_wgmma_desc_kmajor<128>(tsl_smem_addr(tile)) ^
                    tsl_wgmma_desc_kmajor<64>(0) ^ tsl_wgmma_desc_kmajor<32>(0);
  tsl_smoke_n<8>(tsl_wgmma_desc_advance_k16(d, 1), o);
}
"""


class Nvrtc:
    def __init__(self, libdir):
        # NVRTC dlopens its builtins by soname; preload them so no LD_LIBRARY_PATH is needed.
        for f in sorted(os.listdir(libdir)):
            if f.startswith("libnvrtc-builtins.so") and ".alt." not in f:
                ctypes.CDLL(os.path.join(libdir, f), mode=ctypes.RTLD_GLOBAL)
        self.lib = ctypes.CDLL(os.path.join(libdir, "libnvrtc.so.13"))
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what}: {self.lib.nvrtcGetErrorString(rc).decode()}")

    def version(self):
        a, b = ctypes.c_int(), ctypes.c_int()
        self.check(self.lib.nvrtcVersion(ctypes.byref(a), ctypes.byref(b)), "nvrtcVersion")
        return f"{a.value}.{b.value}"

    def compile(self, src, name, opts, name_exprs):
        """Returns (ok, log, cubin bytes, {name expression: lowered name})."""
        prog = ctypes.c_void_p()
        self.check(
            self.lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None),
            "nvrtcCreateProgram",
        )
        for e in name_exprs:
            self.check(self.lib.nvrtcAddNameExpression(prog, e.encode()), "nvrtcAddNameExpression")
        copts = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        rc = self.lib.nvrtcCompileProgram(prog, len(opts), copts)
        size = ctypes.c_size_t()
        self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        self.lib.nvrtcGetProgramLog(prog, buf)
        log = buf.value.decode(errors="replace")
        if rc != 0:
            return False, log, b"", {}
        self.check(self.lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "nvrtcGetCUBINSize")
        cubin = ctypes.create_string_buffer(size.value)
        self.check(self.lib.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
        lowered = {}
        for e in name_exprs:
            p = ctypes.c_char_p()
            self.check(self.lib.nvrtcGetLoweredName(prog, e.encode(), ctypes.byref(p)), "nvrtcGetLoweredName")
            lowered[e] = p.value.decode()
        return True, log, cubin.raw, lowered


def sass_by_function(nvdisasm, cubin_path):
    """{mangled function name: [SASS instruction lines]} from nvdisasm."""
    text = subprocess.run([nvdisasm, "-c", cubin_path], check=True, capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*\.text\.(\S+):", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        if cur and re.search(r"/\*[0-9a-f]{4,}\*/", line):
            funcs[cur].append(line)
    return funcs


def ptxas_reports(log):
    """{mangled name: (registers, stack bytes, spill stores, spill loads)} from the -v log."""
    out, cur = {}, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line) or re.search(r"Function properties for (\S+)", line)
        if m:
            cur = m.group(1)
            out.setdefault(cur, [None, 0, 0, 0])
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            out[cur][1:] = [int(m.group(1)), int(m.group(2)), int(m.group(3))]
        m = re.search(r"Used (\d+) registers", line)
        if m:
            out[cur][0] = int(m.group(1))
    return out


def count(lines, pat):
    return sum(1 for l in lines if re.search(pat, l))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nvrtc", required=True)
    ap.add_argument("--nvdisasm", required=True)
    ap.add_argument("--out", default=None, help="keep cubins and SASS here")
    a = ap.parse_args()
    nv = Nvrtc(a.nvrtc)
    outdir = a.out or tempfile.mkdtemp(prefix="tsl_nvrtc_")
    os.makedirs(outdir, exist_ok=True)
    opts = ["-arch=sm_90a", "-std=c++17", f"-I{HERE}", "--ptxas-options=-v", "-lineinfo"]
    print(f"NVRTC {nv.version()}; options: {' '.join(opts)}")
    failures = []

    # 1. smoke kernel: every helper and every wgmma specialization assembles.
    ok, log, cubin, _ = nv.compile(SMOKE, "tsl_smoke.cu", opts, [])
    if not ok:
        print(log)
        failures.append("smoke kernel does not compile")
    else:
        path = os.path.join(outdir, "smoke.cubin")
        open(path, "wb").write(cubin)
        f = sass_by_function(a.nvdisasm, path)
        n_hgmma = count(f.get("tsl_smoke_wgmma", []), r"HGMMA")
        print(f"smoke: compiled; tsl_smoke_wgmma has {n_hgmma} HGMMA (expect 96 = 32 N x 3 variants)")
        if n_hgmma != 96:
            failures.append(f"smoke: {n_hgmma} HGMMA instead of 96")
        if count(f.get("tsl_smoke_cp_async", []), r"LDGSTS") < 1:
            failures.append("smoke: no LDGSTS (cp.async) in tsl_smoke_cp_async")

    # 2. the reference kernel, one name expression per configuration.
    src = open(os.path.join(HERE, "reference", "ws_gemm.cu")).read()
    exprs = [f"tsl_ref_ws_gemm<{wn}, {st}, {c}, {tk}, {sw}, {ti}, {ta}>" for (wn, st, c, tk, sw, ti, ta) in CONFIGS]
    ok, log, cubin, lowered = nv.compile(src, "ws_gemm.cu", opts, exprs)
    open(os.path.join(outdir, "ws_gemm.log"), "w").write(log)
    if not ok:
        print(log)
        print("FAIL: ws_gemm.cu does not compile")
        return 1
    path = os.path.join(outdir, "ws_gemm.cubin")
    open(path, "wb").write(cubin)
    funcs = sass_by_function(a.nvdisasm, path)
    with open(os.path.join(outdir, "ws_gemm.sass"), "w") as fh:
        for k, v in funcs.items():
            fh.write(f"// {k}\n" + "\n".join(v) + "\n")
    reports = ptxas_reports(log)
    perf = [l for l in log.splitlines() if re.search(r"C75\d\d", l)]
    if perf:
        failures.append("ptxas performance warnings:\n  " + "\n  ".join(perf))
    hdr = f"{'config (WARP_N,STAGES,CONS,TILE_K,SWIZ,TIn,TAcc)':52} {'regs':>4} {'stack':>5} {'HGMMA':>5} {'TMA ld':>6} {'TMA st':>6} {'STSM':>4} {'LDL/STL':>7}"
    print(hdr)
    for cfg, e in zip(CONFIGS, exprs):
        name = lowered[e]
        sass = funcs.get(name, [])
        regs, stack, sst, sld = reports.get(name, [None, -1, -1, -1])
        h, ld, stg = count(sass, r"HGMMA"), count(sass, r"UTMALDG"), count(sass, r"UTMASTG")
        stsm, local = count(sass, r"STSM"), count(sass, r"\b(LDL|STL)\b")
        print(f"{str(cfg):52} {str(regs):>4} {stack:>5} {h:>5} {ld:>6} {stg:>6} {stsm:>4} {local:>7}")
        wn, st, c, tk, sw = cfg[:5]
        if not sass:
            failures.append(f"{cfg}: no SASS found for {name}")
        if h < tk // 16:
            failures.append(f"{cfg}: {h} HGMMA, expected >= {tk // 16}")
        if ld < 2 or stg < 1 or stsm < 1:
            failures.append(f"{cfg}: missing TMA load/store or stmatrix")
        if local or stack or sst or sld:
            failures.append(f"{cfg}: local memory use (LDL/STL {local}, stack {stack}, spills {sst}/{sld})")
    if failures:
        print("FAIL:\n- " + "\n- ".join(failures))
        return 1
    print(f"OK: {len(CONFIGS)} reference configurations + smoke kernels; cubins/SASS in {outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
