#!/usr/bin/env bash
# Builds and runs the reference GEMM test on a machine with an H100/H200, nvcc 13.0 and cuBLAS.
#   usage: bash codegen-cuda/cuda/reference/run_ref.sh        (logs also go to $OUT if set)
# 1. builds ws_gemm_host.cu twice, in parallel shards: `bench` (production) and `bench_dbg`
#    (-DTSL_MBAR_SPIN_LIMIT: a hung mbarrier wait traps instead of hanging the GPU);
# 2. runs `bench_dbg --quick` (every configuration, every size, full-output check, no timing);
# 3. if that passed, runs `bench` (check + timing table);
# 4. optionally (TSL_REF_GROUPS="8 32") rebuilds with other rasterization group sizes and times
#    8192^3 again with each.
set -uo pipefail
cuda_dir="$(cd "$(dirname "$0")/.." && pwd)"
src="$cuda_dir/reference/ws_gemm_host.cu"
out="${OUT:-/tmp/tsl_ref_out}"
build="$(mktemp -d /tmp/tsl_ref_build.XXXX)"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$out/device.txt"
nvcc --version | tail -n 2 | tee -a "$out/device.txt"
S=16
flags=(-gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -I"$cuda_dir" -DTSL_NSHARDS=$S -Xptxas -v)
t0=$(date +%s)
for variant in prod dbg; do
  extra=()
  [ $variant = dbg ] && extra=(-DTSL_MBAR_SPIN_LIMIT=20000000)
  mkdir -p "$build/$variant"
  nvcc "${flags[@]}" "${extra[@]}" -c "$src" -o "$build/$variant/main.o" > "$build/$variant/main.log" 2>&1 &
  for ((s = 0; s < S; s++)); do
    nvcc "${flags[@]}" "${extra[@]}" -DTSL_SHARD=$s -c "$src" -o "$build/$variant/s$s.o" \
      > "$build/$variant/s$s.log" 2>&1 &
  done
done
wait
cat "$build"/prod/*.log > "$out/build_prod.log"
cat "$build"/dbg/*.log > "$out/build_dbg.log"
for variant in prod dbg; do
  bin=bench; [ $variant = dbg ] && bin=bench_dbg
  nvcc -gencode=arch=compute_90a,code=sm_90a "$build/$variant"/*.o -lcuda -lcublas -o "$build/$bin" \
    >> "$out/build_$variant.log" 2>&1 || { echo "BUILD FAILED ($variant)"; grep -iE "error" "$out/build_$variant.log" | head -40; exit 1; }
done
echo "build: $(( $(date +%s) - t0 )) s; $(grep -c 'Used' "$out/build_prod.log") kernels in prod build"
echo "ptxas C75xx performance warnings (prod): $(grep -c 'C75[0-9][0-9]' "$out/build_prod.log")"
grep 'C75[0-9][0-9]' "$out/build_prod.log" | sort | uniq -c | head
echo "spills/stack (prod): $(grep -E 'bytes stack frame' "$out/build_prod.log" | grep -vc ' 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads')"
echo "==== correctness pass (debug build, bounded mbarrier spins) ===="
timeout 240 "$build/bench_dbg" --quick > "$out/quick.log" 2>&1
rc=$?
grep -E "FAIL|skipped|error|PASS" "$out/quick.log" | tail -20
if [ $rc -ne 0 ]; then
  echo "quick pass failed (rc $rc)"; tail -40 "$out/quick.log"; exit 1
fi
echo "==== timed run (production build) ===="
timeout 300 "$build/bench" > "$out/bench.log" 2>&1
rc=$?
sed -n '/==== summary/,$p' "$out/bench.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee -a "$out/device.txt"
[ $rc -ne 0 ] && { echo "bench failed (rc $rc)"; tail -30 "$out/bench.log"; exit $rc; }
# Optional sweep of the rasterization group size: TSL_REF_GROUPS="8 32" rebuilds with each
# -DTSL_REF_GROUP_M and times 8192^3 only (configs matching TSL_REF_FILTER, default all).
for g in ${TSL_REF_GROUPS:-}; do
  mkdir -p "$build/g$g"
  nvcc "${flags[@]}" -DTSL_REF_GROUP_M=$g -c "$src" -o "$build/g$g/main.o" > /dev/null 2>&1 &
  for ((s = 0; s < S; s++)); do
    nvcc "${flags[@]}" -DTSL_REF_GROUP_M=$g -DTSL_SHARD=$s -c "$src" -o "$build/g$g/s$s.o" > /dev/null 2>&1 &
  done
  wait
  nvcc -gencode=arch=compute_90a,code=sm_90a "$build/g$g"/*.o -lcuda -lcublas -o "$build/bench_g$g" || exit 1
  echo "==== TSL_REF_GROUP_M=$g, 8192^3 ===="
  timeout 120 "$build/bench_g$g" --big ${TSL_REF_FILTER:+--filter "$TSL_REF_FILTER"} > "$out/bench_g$g.log" 2>&1
  rc=$?
  sed -n '/==== summary/,$p' "$out/bench_g$g.log" | grep -E "8192|PASS|FAIL"
  [ $rc -ne 0 ] && exit $rc
done
exit 0
