#!/bin/bash
# The warp-level (mma.sync) GEMM sweep in one process, then ragged shapes through the runtime.
#
#   bash tools/gpu-exp/warp_sweep.sh [path/to/tessel]      # default: target/release/tessel
#
# Needs, on the GPU machine: the release `tessel` binary built from this tree (`cargo build
# --release --bin tessel`; carry `target/release/tessel`), nvcc 13 and cuBLAS. Steps:
#   1. `tessel emit` of kernels/v2_warp_mma.co and kernels/v2_warp_pipe.co into .gpu/exp/;
#   2. nvcc builds warp_sweep.cu (both emitted kernels, each in a namespace of its own, and the
#      hand-written TMA-fed kernel of warp_tma.cu) and prints ptxas's registers and spills;
#   3. warp_sweep: the mma.sync ceiling, cuBLAS at 8192³, every variant timed at 8192³ against
#      it in the same process and verified over every output, and at 4095×4097×1000 and
#      1000×777×4104 (verified); a table, exit 1 if any variant fails to verify;
#   4. ncu of the best TMA-fed and the best cp.async variant (stall reasons, tensor pipe, L2 and
#      shared traffic), when ncu is installed;
#   5. `tessel run` of v2_warp_pipe and of the TMA-fed kernels/v2_warp_tma.co (and the two
#      TMA warp test kernels of tests/data/warp/) at ragged shapes and configurations (NVRTC,
#      the runtime's own launch and tensor maps, every output checked against cuBLAS);
#   6. the examples v2_warp_mma, v2_warp_pipe and v2_warp_tma at 8192³ (if `cargo build
#      --release --examples` built them; carry target/release/examples/v2_warp_{mma,pipe,tma}).
# About 6 minutes of GPU time: steps 1-4 about 3 (SKIP_RUNTIME=1 runs only them), steps 5-6
# about 5 with a 2-minute `tessel tune` of v2_warp_tma (RUNTIME_ONLY=1 runs only them).
#
# Predictions (H200, cuBLAS ≈ 750 TF/s, mma.sync ceiling ≈ 611–634 TF/s; 0.6× ≈ 451 TF/s),
# written before this sweep ran:
#   (a) L2 → SM bandwidth is NOT today's wall. v4_cluster without multicast (128 × 224 tiles)
#       ran 653 TF/s on an H100 = 8.0 TB/s of TMA reads from L2; the best warp kernel (128 × 128,
#       373.6 TF/s) reads 5.8 TB/s. So `tma_loads` (the loads alone) at 128/128 S3 runs at
#       ≥ 8 TB/s, i.e. in ≤ 70% of the best math variant's time; at 128 × 256 (25% fewer bytes
#       per flop) ≥ 8 TB/s too. B multicast to a cluster of 2 (C2): ±5% on the math variants.
#       At 450 TF/s a 128 × 128 kernel would need 7.0 TB/s: close to the wall, so for the target
#       the larger block tiles (128 × 256 / 256 × 128, 5.3 TB/s) are the safer shape.
#   (b) TMA-fed mma.sync (`warp_tma`): no block barrier, no per-thread copy instructions
#       (k-loop SASS per k-tile per warp: 128 HMMA, 32 LDSM, ~80 others, most of them in
#       thread 0's refill branch, against ~100 others + 12–16 LDGSTS and a BAR in the emitted
#       cp.async kernel) and 170–202 registers instead of 246–248. Predicted 128/128 S3:
#       400–450 TF/s (+10–20% over the same tile with cp.async); 128/256 and 256/128 (8 warps,
#       one block per SM) S3/S4: 410–470; 64 × 32 warp tiles (16 warps/SM): 380–440 (50% more
#       ldmatrix per mma); 3 blocks of 128/128 S2 (MINB 3, 168 registers): 380–430.
#   (c) The emitted cp.async kernel at 128 × 256 / 256 × 128 BK 64 (one block of 8 warps per
#       SM): 320–380 TF/s — its block barrier stalls all 8 warps each k-tile with nothing to
#       overlap it (two blocks per SM at 128 × 128 overlap each other's).
#   (d) kernels/v2_warp_tma.co, the same kernel written in the DSL (`mma.load.swiz<128>` of TMA
#       stages, `full`/`empty` events; rows `v2_warp_tma`): within ±5% of warp_tma at the same
#       tile (the swizzle XOR is computed per fragment load, ~35 more integer instructions per
#       k-tile; the refill is issued at the top of the iteration instead of after a k-step).
#   (e) warp_tma's refill point (rows `refill@-1` = the DSL kernel's, top of the iteration;
#       `refill@2`; the default after k-step 0): within ±3% of each other (thread 0 waits for a
#       stage the other warps released a whole tile earlier).
#   (f) warp_tma `prefetch` (fragments one k-step ahead, 215 registers, still 2 blocks/SM at
#       128 × 128): +0–8% over the same tile without it (ptxas already overlaps loads and mmas
#       inside a tile; the prefetch also covers the tile boundary).
#   The target is reachable on this path if a warp_tma / v2_warp_tma row reaches ≥ 0.6× cuBLAS.
set -u
cd "$(dirname "$0")/../.."
T="${1:-target/release/tessel}"
OUT=.gpu/exp
mkdir -p "$OUT"
rc=0
if [ -z "${RUNTIME_ONLY:-}" ]; then
  "$T" emit kernels/v2_warp_mma.co > "$OUT/v2w.cu" || exit 2
  "$T" emit kernels/v2_warp_pipe.co > "$OUT/v2p.cu" || exit 2
  "$T" emit kernels/v2_warp_tma.co > "$OUT/v2t.cu" || exit 2
  cp tools/gpu-exp/warp_sweep.cu tools/gpu-exp/warp_tma.cu "$OUT/"
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader
  echo "== nvcc (ptxas registers per instantiation)"
  ( cd "$OUT" && nvcc -O3 -std=c++17 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a -lineinfo warp_sweep.cu \
      -o warp_sweep -lcublas -Xptxas -v > nvcc.log 2>&1 )
  nvcc_rc=$?
  grep -E "Compiling entry|Used|spill" "$OUT/nvcc.log" | paste - - - | sed -E 's/ptxas info +: //g' | cut -c1-220
  [ "$nvcc_rc" -eq 0 ] || { echo "nvcc failed ($nvcc_rc):"; grep -vE "ptxas info|bytes stack frame" "$OUT/nvcc.log" | head -40; }
  echo "== sweep"
  timeout 600 "$OUT/warp_sweep" | tee "$OUT/sweep.log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ge 2 ]; then
    # A CUDA error (exit 2) or a trap ends the process: each kind again in a process of its own,
    # so that one failing kernel does not hide the others' rows.
    echo "== the sweep ended with $rc: each kernel kind in its own process"
    for kind in "v2_warp_mma " "v2_warp_pipe " "v2_warp_tma " "warp_tma " "tma_loads "; do
      echo "-- $kind"
      timeout 300 "$OUT/warp_sweep" "$kind" | grep -E "^  |^\||^best|error" | tee -a "$OUT/sweep.log"
    done
  fi
  if command -v ncu > /dev/null; then
    # The best verified row of each kind (the table's rows: | kernel | cfg | ...).
    for kind in warp_tma v2_warp_tma v2_warp_mma; do
      best=$(grep "^| $kind |" "$OUT/sweep.log" | grep -v FAIL | grep -v SPILLS \
             | sort -t'|' -k5 -g -r | head -1 | awk -F'|' '{gsub(/^ +| +$/, "", $3); print $3}')
      [ -n "$best" ] || continue
      echo "== ncu: $kind $best"
      ncu --clock-control none -k regex:"warp_tma_gemm|tsl_matmul" --launch-skip 2 -c 1 \
        --section WarpStateStats --section ComputeWorkloadAnalysis --section SchedulerStats \
        --section MemoryWorkloadAnalysis --section Occupancy \
        --metrics sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum.per_second,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum \
        "$OUT/warp_sweep" "$kind $best" 2>&1 | grep -vE "^==PROF==" \
        | grep -E "gemm|tsl_matmul|Stall|Issue|Warp Cycles|Eligible|Active Warps|Pipe|Throughput|Bank|Executed Ipc|No Eligible|Occupancy|sm__pipe|lts__t|l1tex__|smsp__inst|L2|Shared" | head -60
    done
  fi
fi
if [ -z "${SKIP_RUNTIME:-}" ]; then
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
  echo "== the TMA-fed DSL kernel through the runtime (tessel run: its own tensor maps and launch)"
  for shape in M=8192,N=8192,K=8192 M=4095,N=4097,K=1000 M=1000,N=777,K=4104 M=257,N=129,K=96; do
    for cfg in "" "--set BN=256 --set STAGES=4" "--set BM=256 --set STAGES=4" "--set WN=32" \
               "--set BM=64 --set WM=32 --set STAGES=2"; do
      echo "-- v2_warp_tma $shape $cfg"
      # shellcheck disable=SC2086
      log=$("$T" run kernels/v2_warp_tma.co --shape "$shape" $cfg --runs 20 2>&1)
      code=$?
      echo "$log" | tail -4
      [ "$code" -eq 0 ] || { echo "   exit $code"; rc=1; }
    done
  done
  echo "-- tessel tune kernels/v2_warp_tma.co at 8192^3 (every admitted configuration, 120 s at most)"
  "$T" tune kernels/v2_warp_tma.co --shape M=8192,N=8192,K=8192 --budget 120s --retune 2>&1 | tail -8
  for k in tests/data/warp/tma_sync_plain.co tests/data/warp/tma_swz_col.co; do
    for shape in M=4095,N=4104,K=1000 M=1000,N=776,K=4104 M=64,N=64,K=32; do
      echo "-- $k $shape"
      log=$("$T" run "$k" --shape "$shape" --runs 20 2>&1)
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
            "v2_warp_pipe --set BN=256 --set WN=64 --set STAGES=3" "v2_warp_tma" \
              "v2_warp_tma --set BN=256 --set STAGES=4"; do
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
fi
exit $rc
