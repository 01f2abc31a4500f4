#!/bin/bash
# The tuner on the warp-level kernels at 8192^3 (`tessel tune`: kernels/v2_warp_tma.co and
# kernels/v2_warp_ws.co, fault-isolated workers, every trial's output checked), then both
# winners in both regimes against the strongest vendor reference (examples/regimes, every
# contender verified over the whole output), bf16 too.
#
#   bash tools/gpu-exp/warp_ws_tune.sh [path/to/tessel] [path/to/regimes]
#
# About 5 minutes. Exit 1 if a tune or a verification fails.
#
# Prediction (written before the run): the tuner's warpws winner is 128 x 256 or 256 x 128 with
# 3-4 stages, within 2% of the best hand-picked configuration of the previous run (0.634x of
# cuBLASLt in bursts on the H100); sustained stays below 0.6x (0.57-0.60x): warp-level MMAs
# move every operand through registers, which costs power the WGMMA reference does not spend.
set -u
cd "$(dirname "$0")/../.."
T="${1:-target/release/tessel}"
R="${2:-target/release/examples/regimes}"
rc=0
export TESSEL_TUNE_CACHE="${TMPDIR:-/tmp}/warp_ws_tune_cache"
rm -rf "$TESSEL_TUNE_CACHE"
winner() { grep -E '^winner' | head -1 | awk '{s=""; for (i=2;i<=NF;i++) if ($i ~ /^[A-Z_]+=[0-9]+$/) s = s (s==""?"":",") $i; print s}'; }
for k in v2_warp_tma v2_warp_ws; do
  echo "== tessel tune kernels/$k.co at 8192^3"
  "$T" tune "kernels/$k.co" --shape M=8192,N=8192,K=8192 2>&1 | tee "/tmp/tune_$k.txt" \
    | grep -viE "^\s*[0-9]+\s+BM=.*[0-9]\s*$" | tail -40
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
done
W=$(winner < /tmp/tune_v2_warp_tma.txt); WS=$(winner < /tmp/tune_v2_warp_ws.txt)
echo "winners: warp $W; warpws $WS"
for dt in f16 bf16; do
  echo "== both regimes at 8192^3, $dt"
  "$R" --dtype "$dt" --contender "warp:$W" --contender "warpws:$WS" --contender warpws:BM=256,BN=128 2>&1 \
    | grep -E "^(burst|sustained)|PASS|FAIL|lt best"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
done
exit $rc
