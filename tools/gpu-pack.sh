#!/usr/bin/env bash
# Builds every example, the `tessel` command and the GPU test binaries in release, strips them into `.gpu/`
# (git-ignored; carry it with the `device` tool's `run`) next to nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --examples --bin tessel
rm -rf .gpu && mkdir -p .gpu
dir=${CARGO_TARGET_DIR:-target}/release
for f in "$dir"/examples/*; do
  b=$(basename "$f")
  case "$b" in *.d|*-*) continue ;; esac
  cp "$f" .gpu/ && strip ".gpu/$b"
done
cp "$dir/tessel" .gpu/ && strip .gpu/tessel
cargo test --release -p tessel-runtime --test tune_faults --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys,shutil
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable"): shutil.copy(m["executable"], ".gpu/tune_faults")'
strip .gpu/tune_faults
du -sh .gpu
