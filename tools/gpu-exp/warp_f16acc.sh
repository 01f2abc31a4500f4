#!/bin/bash
# The warp-level path accumulating in f16 (kernels/v2_warp_ws_f16acc.co) against the same path
# accumulating in f32 (kernels/v2_warp_ws.co): correctness through `tessel run` (every output
# against cuBLAS with f16 compute), both regimes at 8192^3 against the strongest vendor
# reference of each accumulator (examples/regimes: cublasGemmEx and cuBLASLt's top algorithms,
# CUBLAS_COMPUTE_16F for `--acc f16`, every contender verified over the whole output), then ncu
# of one launch of the f16-accumulating default.
#
#   bash tools/gpu-exp/warp_f16acc.sh [path/to/tessel] [path/to/regimes]
#
# Needs the release `tessel` and `examples/regimes` built from this tree. About 8 minutes.
# Exit 1 if any run fails verification.
#
# Why: sustained, the card sits at its power limit and the ratio measures energy per FLOP. The
# warp-level path moves every operand and accumulator through the register file: an
# m16n8k16 `mma.sync` with f32 accumulators reads A (4 registers), B (2) and C (4) and writes D
# (4); with f16 accumulators C and D are 2 each, 10 registers in all. Half the accumulator
# registers also fit 64 x 128 warp tiles (12 `ldmatrix.x4` per 64 `mma`s instead of 8 per 32).
#
# Prediction (written before the run), H100, 8192^3 f16:
# - the f32 kernel's tile (128 x 256, 64 x 64 warps, 4 stages) accumulating in f16: burst within
#   +-3% of its f32 ratio (0.61-0.63x; the issue interval of back-to-back mma.sync is the same),
#   sustained 0.60-0.64x of the f16-compute reference (+2 to +6% over f32's 0.58-0.59x: less
#   register-file energy, though cuBLAS's WGMMA also saves its accumulator traffic);
# - 256 x 256 blocks of 64 x 128 warp tiles (8 computing warps, 3 stages): +2 to +4% over that in
#   the sustained regime (a quarter fewer shared-memory reads per FLOP), +-2% in bursts;
# - 128 x 128 blocks, two per SM (MINB 2): within -4 to +2% of 128 x 256 (more L2 traffic, the
#   same 8 computing warps per SM).
set -u
cd "$(dirname "$0")/../.."  # the repository root
T="${1:-target/release/tessel}"
R="${2:-target/release/examples/regimes}"
K=kernels/v2_warp_ws_f16acc.co
rc=0
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm,temperature.gpu --format=csv
echo "== correctness: tessel run $K (every output against cuBLAS, f16 compute)"
for cfg in "--set BM=256 --set WN=128 --set STAGES=3" "--set BM=256 --set WM=128 --set WN=64 --set STAGES=3" "" \
           "--set BM=128 --set BN=128 --set WN=64 --set STAGES=3 --set MINB=2" \
           "--set BM=64 --set BN=128 --set WM=32 --set WN=64 --set STAGES=3"; do
  for s in M=8192,N=8192,K=8192 M=4095,N=4097,K=1000 M=257,N=129,K=96; do
    echo "-- $s $cfg"
    # shellcheck disable=SC2086
    "$T" run "$K" --shape "$s" $cfg --runs 20 2>&1 | tail -2
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
  done
done
echo "== both regimes at 8192^3, f16 accumulate"
"$R" --acc f16 --contender warpws --contender warpws16:BM=256,WN=128,STAGES=3 \
     --contender warpws16:BM=256,WM=128,WN=64,STAGES=3 --contender warpws16 \
     --contender warpws16:BM=128,BN=128,WN=64,STAGES=3,MINB=2 --contender warpws16:BM=128,WN=128 2>&1 | tail -30
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
echo "== both regimes at 8192^3, f32 accumulate (the same machine's baseline)"
"$R" --acc f32 --contender warpws 2>&1 | tail -12
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
echo "== ncu at 8192^3 of 256 x 256 blocks of 64 x 128 warp tiles (one launch, --clock-control none)"
M='sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,smsp__warps_active.avg.per_cycle_active,regex:smsp__average_warps_issue_stalled_(long_scoreboard|short_scoreboard|wait|barrier|mio_throttle|math_pipe_throttle|dispatch_stall|not_selected|selected|no_instruction)_per_issue_active\.ratio'
ncu --clock-control none -k regex:tsl_matmul --launch-skip 3 -c 1 --metrics "$M" \
  "$T" run "$K" --shape M=8192,N=8192,K=8192 --set BM=256 --set WN=128 --set STAGES=3 --runs 20 2>&1 | grep -E "sm__|smsp__|tsl_matmul" | head -20
exit $rc
