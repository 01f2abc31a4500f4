#!/usr/bin/env bash
# The project's test command (README and CI): installs NVRTC + nvdisasm into the pip cache if
# needed (tools/setup-nvrtc.sh), then runs every test of the workspace.
#
#   tools/test.sh                 # all tests
#   tools/test.sh -p tessel-core  # with arguments: `cargo test <arguments>` instead
#
# NVRTC checks FAIL (not skip) here: TESSEL_REQUIRE_NVRTC=1 unless set otherwise. Only outside
# CI, when the install itself fails (no network), do they fall back to a loud skip.
# Under CI=true the build is `--locked` (Cargo.lock must be committed and current).
# Debug profile: on 2 cores a debug build of the workspace is much quicker than a release one,
# and the tests compute little. All test binaries run (`--no-fail-fast`), so one failure does
# not hide another.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

if ! source tools/setup-nvrtc.sh; then
  if [ "${CI:-}" = "true" ]; then
    echo "tools/test.sh: NVRTC setup failed under CI; failing" >&2
    exit 1
  fi
  echo "tools/test.sh: WARNING: NVRTC setup failed; NVRTC tests will be SKIPPED" >&2
  export TESSEL_REQUIRE_NVRTC="${TESSEL_REQUIRE_NVRTC:-0}"
fi
export TESSEL_REQUIRE_NVRTC="${TESSEL_REQUIRE_NVRTC:-1}"

# The `tessel explain` browser test (tests/explain_browser.rs) needs headless Chromium; it fails
# under CI=true when the browser is missing. Debian's package is installed here under CI=true or
# when asked (TESSEL_INSTALL_CHROMIUM=1); outside CI a missing browser is a loud skip.
if ! command -v chromium >/dev/null 2>&1 && [ -z "${TESSEL_CHROMIUM:-}" ]; then
  if [ "${CI:-}" = "true" ] || [ "${TESSEL_INSTALL_CHROMIUM:-}" = "1" ]; then
    echo "tools/test.sh: installing Debian's chromium for the explain browser test" >&2
    sudo=()
    if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
    if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq chromium >/dev/null; }; then
      echo "tools/test.sh: chromium install failed; the explain browser test will fail" >&2
    fi
  else
    echo "tools/test.sh: WARNING: no chromium; the explain browser test will be SKIPPED" \
      "(TESSEL_INSTALL_CHROMIUM=1 installs it)" >&2
  fi
fi
export TESSEL_CACHE_DIR="${TESSEL_CACHE_DIR:-$PWD/target/tessel/modules}"
export TESSEL_FAILED_DIR="${TESSEL_FAILED_DIR:-$PWD/target/tessel/failed}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export RUST_BACKTRACE="${RUST_BACKTRACE:-1}"

locked=()
if [ "${CI:-}" = "true" ]; then
  locked=(--locked)
fi

echo "tools/test.sh: NVRTC in ${TESSEL_NVRTC_DIR:-<none>}, nvdisasm ${TESSEL_NVDISASM:-<none>}" >&2
status=0
if [ "$#" -gt 0 ]; then
  cargo test "${locked[@]}" "$@" || status=$?
else
  cargo test "${locked[@]}" --workspace --no-fail-fast || status=$?
fi
echo "tools/test.sh: $([ "$status" = 0 ] && echo passed || echo FAILED) in $((SECONDS - start)) s" >&2
exit "$status"
