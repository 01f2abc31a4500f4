#!/usr/bin/env bash
# Installs NVRTC 13.0.88 and nvdisasm from PyPI wheels into a cache folder (no CUDA toolkit, no
# GPU needed) and prints the environment that tessel's runtime reads.
#
#   tools/setup-nvrtc.sh              # install (idempotent) and print `export` lines
#   eval "$(tools/setup-nvrtc.sh)"    # install and export into the current shell
#   source tools/setup-nvrtc.sh       # same, when sourced (exports directly)
#
# Folder: $TESSEL_NVRTC_HOME, default ${XDG_CACHE_HOME:-$HOME/.cache}/tessel/nvrtc-13.0.88 (the
# platform cache folder, as `tessel setup-nvrtc` does it outside this repository). Layout:
#   <dir>/nvidia/cu13/lib/libnvrtc.so.13 (+ libnvrtc-builtins.so.13.0)
#   <dir>/nvidia/cu13/bin/nvdisasm
# The runtime finds the same folder by itself (runtime/src/locate.rs), so the exports are only
# needed by other tools; they also make `LD_LIBRARY_PATH`-only consumers (cudarc) work.
# Progress goes to stderr; stdout carries only the `export` lines.

_tessel_setup_nvrtc() {
  local nvrtc_version="13.0.88"
  # nvdisasm wheels start at 13.2; a newer nvdisasm reads older cubins.
  local nvdisasm_version="13.2.86"
  local dir="${TESSEL_NVRTC_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/tessel/nvrtc-$nvrtc_version}"
  local lib="$dir/nvidia/cu13/lib"
  local bin="$dir/nvidia/cu13/bin"
  local py
  py="$(command -v python3 || command -v python || true)"

  if [ -f "$lib/libnvrtc.so.13" ] && [ -x "$bin/nvdisasm" ]; then
    echo "setup-nvrtc: already present in $dir" >&2
  else
    if [ -z "$py" ]; then
      echo "setup-nvrtc: python3 with pip is required to install the NVRTC wheels" >&2
      return 1
    fi
    mkdir -p "$(dirname "$dir")" || return 1
    # Install into a temp folder next to the target, then move: a killed install never leaves a
    # half-filled cache that the check above would accept.
    local tmp
    tmp="$(mktemp -d "$dir.tmp.XXXXXX")" || return 1
    echo "setup-nvrtc: pip install nvidia-cuda-nvrtc==$nvrtc_version nvidia-cuda-nvdisasm==$nvdisasm_version -> $dir" >&2
    if ! "$py" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --target "$tmp" \
      "nvidia-cuda-nvrtc==$nvrtc_version" "nvidia-cuda-nvdisasm==$nvdisasm_version" >&2; then
      rm -rf "$tmp"
      echo "setup-nvrtc: pip install failed" >&2
      return 1
    fi
    rm -rf "$dir"
    mv "$tmp" "$dir" || return 1
    chmod +x "$bin/nvdisasm" 2>/dev/null || true
    if [ ! -f "$lib/libnvrtc.so.13" ] || [ ! -x "$bin/nvdisasm" ]; then
      echo "setup-nvrtc: wheels installed but $lib/libnvrtc.so.13 or $bin/nvdisasm is missing" >&2
      return 1
    fi
  fi

  export TESSEL_NVRTC_DIR="$lib"
  export TESSEL_NVDISASM="$bin/nvdisasm"
  case ":${LD_LIBRARY_PATH:-}:" in
    *":$lib:"*) ;;
    *) export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
  esac
  echo "export TESSEL_NVRTC_DIR='$TESSEL_NVRTC_DIR'"
  echo "export TESSEL_NVDISASM='$TESSEL_NVDISASM'"
  echo "export LD_LIBRARY_PATH='$LD_LIBRARY_PATH'"
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  # Sourced: export into the caller's shell, keep stdout quiet.
  _tessel_setup_nvrtc >/dev/null
else
  set -euo pipefail
  _tessel_setup_nvrtc
fi
