#!/bin/bash
# Clusters of 2 × 2 blocks multicasting both operands (kernels/v4_cluster.co, MULTICAST 3) once
# the persistent grid counts only the SMs whole clusters can occupy (`Kernel::resident_sms`):
# correctness through `tessel run`, then both regimes against the cooperative v4 with rhs
# multicast in pairs (the tuned default) and the strongest vendor reference.
#
#   bash tools/gpu-exp/cluster2x2.sh [path/to/tessel] [path/to/regimes]
#
# Needs the release `tessel` and `examples/regimes` of this tree. About 7 minutes.
#
# Before the fix, MULTICAST 3 persistent ran 441 TF/s at 8192³ on an H200 against 656 TF/s
# non-persistent and 734 TF/s for MULTICAST 2: 33 clusters of 4 for 132 SMs, but a GPC holds
# whole clusters only, so the last cluster waited for an earlier one's whole walk.
# Prediction: MULTICAST 3 now places 32 clusters (128 SMs; -3% of the SMs) and halves the lhs
# traffic out of L2: at 8192³ within -4% to +2% of MULTICAST 2 in burst, -2% to +3% sustained
# (less L2 traffic per FLOP at the power limit); at 4096³ (fewer tiles per SM) -5% to 0%.
set -u
cd "$(dirname "$0")/../.."
T="${1:-target/release/tessel}"
R="${2:-target/release/examples/regimes}"
rc=0
echo "== correctness: tessel run (every output against cuBLAS)"
for mc in 2 3; do
  for s in M=8192,N=8192,K=8192 M=4099,N=3080,K=4104 M=4096,N=4096,K=4096; do
    echo "-- v4_cluster MULTICAST=$mc $s"
    "$T" run kernels/v4_cluster.co --shape "$s" --set MULTICAST=$mc --set WARP_N=224 --set STAGES=4 \
      --set EPI_SPLIT=2 --runs 30 2>&1 | grep -v "^verify" | tail -4
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
  done
done
echo "== both regimes"
for d in f16 bf16; do
  "$R" --dtype "$d" --shape 8192x8192x8192 --shape 4096x4096x4096 --soak 8 --samples 14 \
    --contender coop:WARP_N=224,STAGES=4,CLUSTER=2,EPI_SPLIT=2 \
    --contender coop:WARP_N=208,STAGES=4,CLUSTER=2,EPI_SPLIT=1 \
    --contender cluster:MULTICAST=2,WARP_N=224,STAGES=4,EPI_SPLIT=2 \
    --contender cluster:MULTICAST=3,WARP_N=224,STAGES=4,EPI_SPLIT=2 \
    --contender cluster:MULTICAST=3,WARP_N=256,STAGES=4,EPI_SPLIT=2 \
    --contender cluster:MULTICAST=3,WARP_N=208,STAGES=4,EPI_SPLIT=1 || rc=1
done
exit $rc
