#!/bin/bash
# Block tiles two WGMMAs wide (kernels/v4_wide.co: 128 x 2*HALF_N, two accumulators per consumer
# sharing the lhs operand, the wide rhs multicast to 2-block clusters along block_m) against the
# best 128 x 224 kernel (kernels/v4_cluster.co): correctness through `tessel run`, both regimes
# against the strongest vendor reference (examples/regimes, every contender verified), and ncu's
# L2 sectors of one launch of each (bf16).
#
#   bash tools/gpu-exp/wide.sh [path/to/tessel] [path/to/regimes] [part: all|check|f16|bf16]
#
# Prediction (written before the run): ncu's L2 split (l2_breakdown.sh) shows tessel's SMs reading 1.30x
# cuBLAS's operand sectors from L2 (9.2 GB against 7.1 GB; cuBLASLt's kernel is 320 x 128 in its
# own transposed terms, i.e. 128 x 320 here, clusters of 2). At HALF_N = 160 the block reads
# (1/320 + 1/256) instead of (1/224 + 1/256) operand rows per output: -16% sectors from the SMs,
# at 95-97% tensor-pipe activity (two 64 x 160 WGMMAs per K step instead of one 64 x 224). So:
# 8192^3 burst -2 to +2% against the cluster kernel, sustained +0 to +3% (less L2 energy);
# 4096^3 (416 tiles, 3.2 waves, against 608) -3 to +1%.
set -u
cd "$(dirname "$0")/../.."  # the repository root
T="${1:-target/release/tessel}"
R="${2:-target/release/examples/regimes}"
PART="${3:-all}"
rc=0
if [ "$PART" = all ] || [ "$PART" = check ]; then
  echo "== correctness: tessel run kernels/v4_wide.co"
  for cfg in "" "--set HALF_N=128 --set STAGES=4" "--set HALF_N=128 --set CLUSTER=1 --dtype bf16" "--set EPI_SPLIT=1 --set HALF_N=112 --set STAGES=4 --dtype bf16"; do
    for s in M=8192,N=8192,K=8192 M=4099,N=3080,K=4104 M=200,N=696,K=88; do
      echo "-- $s $cfg"
      # shellcheck disable=SC2086
      out=$("$T" run kernels/v4_wide.co --shape "$s" $cfg --runs 20 2>&1); r=$?
      echo "$out" | grep -E "^result|error"
      [ $r -eq 0 ] || { echo "   FAIL ($r)"; rc=1; }
    done
  done
fi
BEST=cluster:WARP_N=224,STAGES=4,EPI_SPLIT=2,MULTICAST=2
for dt in f16 bf16; do
  [ "$PART" = all ] || [ "$PART" = "$dt" ] || continue
  for sh in 8192x8192x8192 4096x4096x4096; do
    echo "== both regimes, $dt $sh"
    out=$("$R" --dtype "$dt" --shape "$sh" --contender "$BEST" --contender wide \
      --contender wide:HALF_N=128,STAGES=4 --contender wide:HALF_N=144 \
      --contender wide:HALF_N=112,STAGES=4 2>&1); r=$?
    echo "$out" | grep -E "^(burst|sustained)|FAIL|lt best|clock|power"
    [ $r -eq 0 ] || { echo "   FAIL ($r)"; echo "$out" | tail -5; rc=1; }
  done
done
if [ "$PART" = all ] || [ "$PART" = bf16 ]; then
  echo "== ncu L2 sectors at 8192^3 bf16 (one launch each)"
  M='gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum'
  for k in "kernels/v4_wide.co" "kernels/v4_cluster.co --set WARP_N=224 --set STAGES=4 --set EPI_SPLIT=2 --set MULTICAST=2"; do
    echo "-- $k"
    # shellcheck disable=SC2086
    ncu --clock-control none -k regex:tsl_ --launch-skip 3 -c 1 --metrics "$M" \
      "$T" run $k --shape M=8192,N=8192,K=8192 --dtype bf16 --runs 20 2>&1 | grep -E "tsl_matmul<|gpu__|sm__|lts__|dram__"
  done
fi
exit $rc
