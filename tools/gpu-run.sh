#!/usr/bin/env bash
# Runs commands on the GPU machine (through the `device` tool; carry `.gpu`, which holds the
# stripped release binaries: `tools/gpu-pack.sh`). Each argument is one command line, run with
# a timeout; the full log goes to $OUT/run.log and the result lines are printed last.
#   bash tools/gpu-run.sh ".gpu/v4_tuned" ".gpu/v1_shared --m 8192"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export TESSEL_CACHE_DIR=${TESSEL_CACHE_DIR:-/tmp/tessel-cache}
export TESSEL_REQUIRE_GPU=1 TESSEL_REQUIRE_NVRTC=1
log=${OUT:-/tmp}/run.log
: > "$log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee -a "$log"
for c in "$@"; do
  echo "== $c" | tee -a "$log"
  start=$(date +%s)
  timeout "${GPU_RUN_TIMEOUT:-300}" bash -c "$c" >> "$log" 2>&1
  rc=$?
  echo "rc=$rc wall=$(( $(date +%s) - start ))s" | tee -a "$log"
done
echo; echo "== results"
grep -E "^(== |rc=|result|verify|winner|tuned|cached|bench|ok |FAIL|PASS|.*SKIPPED|.*panicked|GEMM|device copy|sgemm|kt_|gemv|workload)" "$log" | grep -v "^== results"
