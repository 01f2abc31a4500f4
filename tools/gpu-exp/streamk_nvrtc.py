#!/usr/bin/env python3
"""Compile the stream-K experiment's kernels with NVRTC (no GPU, no nvcc): each emitted v4 .cu
followed by streamk_kernel.cuh and explicit instantiations of both kernels at the experiment's
configurations, to a sm_90a cubin; prints ptxas's registers and spills per kernel.

    source tools/setup-nvrtc.sh
    python3 tools/gpu-exp/streamk_nvrtc.py f16:.gpu/exp/v4_f16.cu bf16:.gpu/exp/v4_bf16.cu

Exit 1 if any compile fails. Spills are printed, not failed: WARP_N 256 spills a few bytes
outside the main loop (STREAMK_CUBIN_DIR=DIR keeps the cubins for nvdisasm). ctypes on
libnvrtc.so.13 (the pip wheel tools/setup-nvrtc.sh installs): six NVRTC entry points, no binding
package needed.
"""
import ctypes
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# (WARP_N, STAGES, EPI_SPLIT) at CONSUMERS 2, TILE_K 64, GROUP_M 16, CLUSTER 2: the experiment's
# configurations (streamk.cu instantiates the same).
CONFIGS = [(208, 4, 1), (224, 4, 2), (256, 4, 2)]


def nvrtc():
    home = os.environ.get(
        "TESSEL_NVRTC_HOME",
        os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                     "tessel", "nvrtc-13.0.88"))
    lib = os.path.join(home, "nvidia", "cu13", "lib")
    # NVRTC dlopens its builtins library by name; load it first so that name is already mapped.
    ctypes.CDLL(os.path.join(lib, "libnvrtc-builtins.so.13.0"), mode=ctypes.RTLD_GLOBAL)
    return ctypes.CDLL(os.path.join(lib, "libnvrtc.so.13"))


def compile_one(lib, name, src):
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None)
    if rc != 0:
        raise RuntimeError(f"nvrtcCreateProgram: {rc}")
    opts = [b"-arch=sm_90a", b"-std=c++17", b"--ptxas-options=-v", b"-default-device"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    cubin = ctypes.c_size_t()
    if rc == 0:
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(cubin))
        out = os.environ.get("STREAMK_CUBIN_DIR")
        if out:  # keep the cubin for nvdisasm
            buf = ctypes.create_string_buffer(cubin.value)
            lib.nvrtcGetCUBIN(prog, buf)
            with open(os.path.join(out, name + ".cubin"), "wb") as f:
                f.write(buf.raw)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return rc, log.value.decode(errors="replace"), cubin.value


def main():
    lib = nvrtc()
    kernel = open(os.path.join(HERE, "streamk_kernel.cuh")).read()
    failed = 0
    for arg in sys.argv[1:]:
        dtype, path = arg.split(":", 1)
        tin = {"f16": "tsl_f16", "bf16": "tsl_bf16"}[dtype]
        emitted = open(path).read()
        inst = []
        for wn, st, es in CONFIGS:
            inst.append(
                f"template __global__ void tsl_matmul<{wn}, {st}, 2, 64, 16, 1, 2, {es}>("
                "const __grid_constant__ tsl_tensor_map, const __grid_constant__ tsl_tensor_map, "
                "const __grid_constant__ tsl_tensor_map, const int, const int, const int);")
            inst.append(
                f"template __global__ void sk_matmul<{tin}, {wn}, {st}, 2, 64, 16, 2, {es}>("
                "const __grid_constant__ tsl_tensor_map, const __grid_constant__ tsl_tensor_map, "
                "const __grid_constant__ tsl_tensor_map, const int, const int, const int, float *, "
                "int *, const int, const int);")
        # The emitted file instantiates its own configuration; drop that line (one of ours).
        emitted = re.sub(r"^template __global__ void tsl_matmul<.*$", "", emitted, flags=re.M)
        src = emitted + "\n" + kernel + "\n" + "\n".join(inst) + "\n"
        rc, log, size = compile_one(lib, f"streamk_{dtype}.cu", src)
        print(f"== {dtype} ({path}): {'ok' if rc == 0 else 'FAILED'}, cubin {size} bytes")
        for line in log.splitlines():
            if "error" in line or "warning" in line or "Used" in line or "spill" in line \
                    or "Compiling entry" in line:
                print("  " + line.strip())
        if rc != 0:
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
