#!/bin/bash
# Deeper rings of narrower K tiles: TILE_K = 32 with twice the stages of TILE_K = 64, in the same
# shared memory, for the best 128 x 224 kernel (kernels/v4_cluster.co) and the 128 x 2*HALF_N
# kernel (kernels/v4_wide.co). Correctness through `tessel run`, both regimes against the strongest
# vendor reference (examples/regimes, every contender verified), and ncu's tensor-pipe activity,
# clock and L2 sectors of one launch of each (bf16 8192^3).
#
#   bash tools/gpu-exp/deep_ring.sh [path/to/tessel] [path/to/regimes] [part: all|check|f16|bf16|ncu]
#
# Why: with `wgmma.wait_group 1` a consumer holds two stages (the one its WGMMAs read and the one
# it releases after them), so a ring of S stages keeps S - 2 K tiles ahead of the consumers. The
# wide kernel's 128 x 320 tile fits 3 stages of K = 64: one tile (640 tensor-pipe cycles) ahead,
# and ncu found its pipe busy 92.5% of cycles against 97.6% for the 224-wide kernel with 4 stages
# (two tiles ahead). TILE_K = 32 fits 7 stages there: five half tiles (160 of K) ahead.
#
# Prediction (written before the run): if the wide kernel's idle pipe is the ring's lookahead,
# TILE_K = 32 with 7 stages brings its pipe back to >= 96% and gains +3 to +5% in both regimes at
# 8192^3 over 3 stages of 64 (its 14% fewer operand reads then show: sustained within -1 to +3%
# of the 224-wide kernel). If it gains < 1%, the idle pipe comes from the two WGMMAs per K step.
# The 224-wide kernel, already at 97.4%, moves -1 to +1% with 8 stages of 32 (twice the barrier
# and TMA operations, 64-byte swizzle).
set -u
cd "$(dirname "$0")/../.."  # the repository root
T="${1:-target/release/tessel}"
R="${2:-target/release/examples/regimes}"
PART="${3:-all}"
rc=0
CL224=cluster:WARP_N=224,STAGES=4,EPI_SPLIT=2,MULTICAST=2
CL224K32=cluster:WARP_N=224,STAGES=8,TILE_K=32,EPI_SPLIT=2,MULTICAST=2
if [ "$PART" = all ] || [ "$PART" = check ]; then
  echo "== correctness: tessel run"
  for k in "kernels/v4_cluster.co --set WARP_N=224 --set STAGES=8 --set TILE_K=32 --set EPI_SPLIT=2 --set MULTICAST=2" \
           "kernels/v4_wide.co --set TILE_K=32 --set STAGES=7" \
           "kernels/v4_wide.co --set HALF_N=128 --set TILE_K=32 --set STAGES=8 --dtype bf16"; do
    for s in M=8192,N=8192,K=8192 M=4099,N=3080,K=4104 M=200,N=696,K=88; do
      echo "-- $s $k"
      # shellcheck disable=SC2086
      out=$("$T" run $k --shape "$s" --runs 20 2>&1); r=$?
      echo "$out" | grep -E "^result|error"
      [ $r -eq 0 ] || { echo "   FAIL ($r)"; rc=1; }
    done
  done
fi
for dt in f16 bf16; do
  [ "$PART" = all ] || [ "$PART" = "$dt" ] || continue
  echo "== both regimes, $dt 8192^3"
  out=$("$R" --dtype "$dt" --shape 8192x8192x8192 --contender "$CL224" --contender "$CL224K32" \
    --contender wide --contender wide:TILE_K=32,STAGES=7 \
    --contender wide:HALF_N=128,TILE_K=32,STAGES=8 2>&1); r=$?
  echo "$out" | grep -E "^(burst|sustained)|FAIL|lt best|clock|power"
  [ $r -eq 0 ] || { echo "   FAIL ($r)"; echo "$out" | tail -5; rc=1; }
  echo "== both regimes, $dt 4096^3"
  out=$("$R" --dtype "$dt" --shape 4096x4096x4096 --contender "$CL224" --contender "$CL224K32" \
    --contender wide:HALF_N=128,STAGES=4 --contender wide:HALF_N=128,TILE_K=32,STAGES=8 2>&1); r=$?
  echo "$out" | grep -E "^(burst|sustained)|FAIL|lt best|clock|power"
  [ $r -eq 0 ] || { echo "   FAIL ($r)"; echo "$out" | tail -5; rc=1; }
done
if [ "$PART" = all ] || [ "$PART" = ncu ]; then
  echo "== ncu at 8192^3 bf16 (one launch each)"
  M='gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum'
  for k in "kernels/v4_wide.co" "kernels/v4_wide.co --set TILE_K=32 --set STAGES=7" \
           "kernels/v4_cluster.co --set WARP_N=224 --set STAGES=4 --set EPI_SPLIT=2 --set MULTICAST=2" \
           "kernels/v4_cluster.co --set WARP_N=224 --set STAGES=8 --set TILE_K=32 --set EPI_SPLIT=2 --set MULTICAST=2"; do
    echo "-- $k"
    # shellcheck disable=SC2086
    ncu --clock-control none -k regex:tsl_ --launch-skip 3 -c 1 --metrics "$M" \
      "$T" run $k --shape M=8192,N=8192,K=8192 --dtype bf16 --runs 20 2>&1 | grep -E "tsl_matmul<|gpu__|sm__|lts__"
  done
fi
exit $rc
