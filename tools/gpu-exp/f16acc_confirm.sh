#!/bin/bash
# f16 accumulation, second look: the warp-level path's two best tiles of warp_f16acc.sh again after a
# longer soak (both regimes, against the strongest f16-compute reference), then the WGMMA
# kernels accumulating in f16 at 8192^3 and 4096^3 against the same reference.
#
#   bash tools/gpu-exp/f16acc_confirm.sh [path/to/regimes]
#
# Needs the release `examples/regimes` built from this tree. About 6 minutes. Exit 1 if any
# contender fails verification.
#
# Prediction (written before the run), H100, f16 in, f16 accumulate:
# - warp level (kernels/v2_warp_ws_f16acc.co), 256 x 256 blocks of 128 x 64 and 64 x 128 warp
#   tiles: 0.72-0.76x in bursts and 0.62-0.68x sustained (warp_f16acc.sh measured 0.739-0.741 / 0.647-0.674);
#   the 128 x 256 tile of the f32 kernel 0.70-0.72 / 0.60-0.66;
# - WGMMA: the 224-wide cluster kernel 1.00-1.04x in bursts at 8192^3 and 1.00-1.06x sustained
#   (half the accumulator registers, a slightly cooler epilogue; cuBLAS's f16-compute kernels
#   save the same); 256 wide within +-2% of 224 (the accumulator now fits without spilling
#   pressure); at 4096^3 1.03-1.10x in bursts (as with f32), 0.98-1.03x sustained.
set -u
cd "$(dirname "$0")/../.."  # the repository root
R="${1:-target/release/examples/regimes}"
rc=0
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm,temperature.gpu --format=csv
echo "== warp level, 8192^3, f16 accumulate, 45 s soak"
"$R" --acc f16 --soak 45 --contender warpws16:BM=256,WM=128,WN=64,STAGES=3 \
     --contender warpws16:BM=256,WM=64,WN=128,STAGES=3 \
     --contender warpws 2>&1 | grep -E "^(burst|sustained)|FAIL|error"
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
echo "== WGMMA, f16 accumulate, 8192^3 and 4096^3"
"$R" --acc f16 --shape 8192x8192x8192 --shape 4096x4096x4096 \
     --contender cluster:WARP_N=224,STAGES=4,EPI_SPLIT=2,MULTICAST=2 \
     --contender cluster:WARP_N=256,STAGES=4,EPI_SPLIT=2,MULTICAST=2 \
     --contender cluster:WARP_N=192,STAGES=4,MULTICAST=2 --contender pingpong 2>&1 \
  | grep -E "^(burst|sustained)|lt best|FAIL|error"
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
exit $rc
