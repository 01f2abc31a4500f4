#!/usr/bin/env bash
# Builds the runtime's test binaries, strips them and copies them to .gpu/ (git-ignored) so
# they can be carried to a GPU machine and run there. Prints the command to run.
#
#   tools/build-gpu-tests.sh
#   # then, on the GPU machine (carry: [".gpu"]):
#   export LD_LIBRARY_PATH=/usr/local/cuda/lib64 TESSEL_REQUIRE_GPU=1 TESSEL_REQUIRE_NVRTC=1
#   cd runtime && for t in ../.gpu/*; do "$t" --test-threads=1; done
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu
mkdir -p .gpu
cargo test -p tessel-runtime --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import json, shutil, sys
for line in sys.stdin:
    msg = json.loads(line)
    exe = msg.get("executable")
    if msg.get("reason") == "compiler-artifact" and exe and msg.get("profile", {}).get("test"):
        shutil.copy(exe, ".gpu/" + msg["target"]["name"])
'
strip .gpu/*
ls -la .gpu >&2
cat <<'CMD'
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} TESSEL_REQUIRE_GPU=1 TESSEL_REQUIRE_NVRTC=1; cd runtime && for t in ../.gpu/*; do echo "== $t"; "$t" --test-threads=1 --nocapture 2>&1 | grep -E "test result|FAILED|panicked|PASS|FAIL|TFLOP"; done
CMD
