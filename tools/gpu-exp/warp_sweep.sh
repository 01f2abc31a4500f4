#!/bin/bash
# The warp-level (mma.sync) GEMM sweep in one process, then ragged shapes through the runtime.
#
#   bash tools/gpu-exp/warp_sweep.sh [path/to/tessel]      # default: target/release/tessel
#
# Needs, on the GPU machine: the release `tessel` binary built from this tree (`cargo build
# --release --bin tessel`; carry `target/release/tessel`), nvcc 13 and cuBLAS. Steps:
#   1. `tessel emit` of kernels/v2_warp_mma.co and kernels/v2_warp_pipe.co into .gpu/exp/;
#   2. nvcc builds warp_sweep.cu (both kernels, each in a namespace of its own) and prints
#      ptxas's registers and spills per instantiation;
#   3. warp_sweep: the mma.sync ceiling, cuBLAS at 8192³, every variant timed at 8192³ against
#      it in the same process and verified over every output, and at 4095×4097×1000 and
#      1000×777×4104 (verified); a table, exit 1 if any variant fails to verify;
#   4. `tessel run` of v2_warp_pipe at ragged shapes and configurations (NVRTC, the runtime's
#      own launch, every output checked against cuBLAS);
#   5. the examples v2_warp_mma and v2_warp_pipe at 8192³ (if `cargo build --release
#      --examples` built them; carry target/release/examples/v2_warp_{mma,pipe}).
# About 3 minutes of GPU time (most of it nvcc).
set -u
cd "$(dirname "$0")/../.."
T="${1:-target/release/tessel}"
OUT=.gpu/exp
mkdir -p "$OUT"
"$T" emit kernels/v2_warp_mma.co > "$OUT/v2w.cu" || exit 2
"$T" emit kernels/v2_warp_pipe.co > "$OUT/v2p.cu" || exit 2
cp tools/gpu-exp/warp_sweep.cu "$OUT/"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader
echo "== nvcc (ptxas registers per instantiation)"
( cd "$OUT" && nvcc -O3 -std=c++17 -arch=sm_90a -lineinfo warp_sweep.cu -o warp_sweep -lcublas -Xptxas -v 2>&1 ) \
  | grep -E "Compiling entry|Used|spill" | paste - - - | sed -E 's/ptxas info +: //g' | cut -c1-220
echo "== sweep"
"$OUT/warp_sweep"
rc=$?
echo "== ragged shapes through the runtime (tessel run: NVRTC, every output against cuBLAS)"
for shape in M=4095,N=4097,K=1000 M=1000,N=777,K=4104 M=257,N=129,K=96; do
  for cfg in "" "--set BK=64 --set STAGES=3" "--set BN=256 --set WN=64 --set STAGES=3" \
             "--set BM=64 --set WM=32 --set WN=64 --set MINB=2"; do
    echo "-- v2_warp_pipe $shape $cfg"
    # shellcheck disable=SC2086
    log=$("$T" run kernels/v2_warp_pipe.co --shape "$shape" $cfg --runs 20 2>&1)
    code=$?
    echo "$log" | tail -4
    [ "$code" -eq 0 ] || { echo "   exit $code"; rc=1; }
  done
done
echo "== other prefetched kernels (bf16 with a K x N operand against cuBLAS; s8 against a host reference)"
for k in tests/data/warp/bf16_prefetch_col.co tests/data/warp/s8_prefetch.co; do
  for shape in M=4095,N=4097,K=1000 M=1000,N=777,K=4160; do
    echo "-- $k $shape"
    log=$("$T" run "$k" --shape "$shape" --runs 20 2>&1)
    code=$?
    echo "$log" | tail -4
    [ "$code" -eq 0 ] || { echo "   exit $code"; rc=1; }
  done
done
echo "== 8192^3 through the runtime (NVRTC; the examples verify every output against cuBLAS)"
for ex in "v2_warp_mma --set BN=128 --set WN=32" "v2_warp_pipe" \
          "v2_warp_pipe --set BN=256 --set WN=64 --set STAGES=3"; do
  bin="target/release/examples/${ex%% *}"
  [ -x "$bin" ] || { echo "-- $bin not built (cargo build --release --examples)"; continue; }
  args=""
  case "$ex" in *" "*) args="${ex#* }" ;; esac
  echo "-- $ex"
  # shellcheck disable=SC2086
  log=$("$bin" $args 2>&1)
  code=$?
  echo "$log" | tail -6
  [ "$code" -eq 0 ] || { echo "   exit $code"; rc=1; }
done
exit $rc
