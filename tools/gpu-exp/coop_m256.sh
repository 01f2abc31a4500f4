#!/bin/bash
# 256-row block tiles (kernels/v4_coop_m256.co: two consumer warpgroups of 128 rows, rhs
# multicast to 2-block clusters) against the best 128-row kernel (kernels/v4_cluster.co, 224
# wide, 4 stages, split epilogue): correctness through `tessel run`, both regimes against the
# strongest vendor reference at 8192^3 and 4096^3 (examples/regimes, every contender verified),
# and ncu's L2 bytes of one launch of each.
#
#   bash tools/gpu-exp/coop_m256.sh [path/to/tessel] [path/to/regimes]
#
# Prediction (written before the run): the ncu profile of the 128-row kernel (BENCHMARKS.md) moves
# 1.4-1.85x cuBLAS's L2 bytes and runs at a 4-6% lower clock at the same time; 256-row tiles cut
# the operand bytes per FLOP by 15-25% at the same tensor-pipe activity (~97%), so: burst +0-2%
# over the 224-wide cluster kernel at 8192^3, sustained +1-4% (less L2 energy, higher clocks);
# at 4096^3 the 256-row tiles make 16-24 x 32 tiles, fewer than two waves: -5 to 0%.
set -u
cd "$(dirname "$0")/../.."
T="${1:-target/release/tessel}"
R="${2:-target/release/examples/regimes}"
rc=0
echo "== correctness: tessel run kernels/v4_coop_m256.co"
for cfg in "" "--set WARP_N=192" "--set WARP_N=128 --set STAGES=4 --set CLUSTER=1" "--set EPI_SPLIT=1 --set WARP_N=128 --dtype bf16"; do
  for s in M=8192,N=8192,K=8192 M=4099,N=3080,K=4104 M=257,N=129,K=96; do
    echo "-- $s $cfg"
    # shellcheck disable=SC2086
    "$T" run kernels/v4_coop_m256.co --shape "$s" $cfg --runs 20 2>&1 | grep -E "^result|error"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
  done
done
BEST=cluster:WARP_N=224,STAGES=4,EPI_SPLIT=2,MULTICAST=2
for dt in f16 bf16; do
  for sh in 8192x8192x8192 4096x4096x4096; do
    echo "== both regimes, $dt $sh"
    "$R" --dtype "$dt" --shape "$sh" --contender "$BEST" --contender m256 --contender m256:WARP_N=192 \
      --contender m256:WARP_N=176 --contender m256:WARP_N=128,STAGES=4 2>&1 \
      | grep -E "^(burst|sustained)|FAIL|lt best"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
  done
done
echo "== ncu L2 bytes at 8192^3 f16 (one launch each)"
M='gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum'
for k in "kernels/v4_coop_m256.co" "kernels/v4_cluster.co --set WARP_N=224 --set STAGES=4 --set EPI_SPLIT=2"; do
  echo "-- $k"
  # shellcheck disable=SC2086
  ncu --clock-control none -k regex:tsl_ --launch-skip 3 -c 1 --metrics "$M" \
    "$T" run $k --shape M=8192,N=8192,K=8192 --runs 20 2>&1 | grep -E "tsl_matmul<|gpu__|sm__|lts__|dram__"
done
exit $rc
