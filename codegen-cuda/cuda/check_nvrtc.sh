#!/usr/bin/env bash
# CPU-only check of tessel's CUDA headers and reference kernel with the pip NVRTC 13.0 wheel:
# compiles for sm_90a through NVRTC (python ctypes), disassembles with nvdisasm and checks for
# HGMMA / UTMALDG / UTMASTG / STSM, no LDL/STL, no spills and no ptxas C75xx warnings.
# Installs the wheels into $TSL_NVRTC_DIR (default /tmp/nvrtc) on first use. No GPU needed.
#   usage: codegen-cuda/cuda/check_nvrtc.sh [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${TSL_NVRTC_DIR:-/tmp/nvrtc}"
if [ ! -e "$dir/nvidia/cu13/lib/libnvrtc.so.13" ] || [ ! -e "$dir/nvidia/cu13/bin/nvdisasm" ]; then
  python3 -m pip install -q --target "$dir" nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-nvdisasm
fi
exec python3 "$here/check_nvrtc.py" --nvrtc "$dir/nvidia/cu13/lib" \
  --nvdisasm "$dir/nvidia/cu13/bin/nvdisasm" ${1:+--out "$1"}
