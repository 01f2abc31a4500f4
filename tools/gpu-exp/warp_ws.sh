#!/bin/bash
# The warp-level path with a producer warpgroup (kernels/v2_warp_ws.co) against the one where a
# lane of a computing warp issues the copies (kernels/v2_warp_tma.co): correctness through
# `tessel run` (every output against cuBLAS), then both regimes against the strongest vendor
# reference (examples/regimes: every contender verified over the whole output), then an ncu
# profile of each at its defaults.
#
#   bash tools/gpu-exp/warp_ws.sh [path/to/tessel] [path/to/regimes]
#
# Needs the release `tessel` and `examples/regimes` built from this tree. About 8 minutes.
# Exit 1 if any run fails verification.
#
# Prediction (written before the run): at the same 128 x 256 tile and 4 stages, warpws runs
# 3-8% faster than warp in both regimes — no computing warp waits for the slowest one to release
# a stage, and `setmaxnreg` gives the computing warps 232 registers (ptxas can load the next
# k-step's fragments early) where warp has 207 — so warpws reaches 0.62-0.66x of the strongest
# reference in bursts at 8192^3. 128 x 128 with two blocks per SM (MINB 2, 216 registers) within
# +-3% of 128 x 256; 256 x 128 within +-3% of 128 x 256.
set -u
cd "$(dirname "$0")/../.."
T="${1:-target/release/tessel}"
R="${2:-target/release/examples/regimes}"
rc=0
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm,temperature.gpu --format=csv
echo "== correctness: tessel run kernels/v2_warp_ws.co (every output against cuBLAS)"
for cfg in "" "--set STAGES=3" "--set BM=256 --set BN=128" "--set BN=128 --set STAGES=3 --set MINB=2" \
           "--set BM=64 --set BN=128 --set WN=32 --set STAGES=3"; do
  for s in M=8192,N=8192,K=8192 M=4095,N=4097,K=1000 M=1000,N=777,K=4104 M=257,N=129,K=96; do
    echo "-- v2_warp_ws $s $cfg"
    # shellcheck disable=SC2086
    "$T" run kernels/v2_warp_ws.co --shape "$s" $cfg --runs 20 2>&1 | tail -3
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
  done
done
echo "== both regimes at 8192^3: warp against warpws"
"$R" --contender warp --contender warpws --contender warpws:STAGES=3 \
     --contender warpws:BM=256,BN=128 --contender warpws:BN=128,STAGES=3,MINB=2 \
     --contender coop 2>&1 | tail -40
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAIL"; rc=1; }
echo "== ncu at 8192^3 (one launch each, --clock-control none)"
M='sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,sm__cycles_elapsed.avg,smsp__cycles_active.avg,regex:smsp__average_warps_issue_stalled_(long_scoreboard|short_scoreboard|wait|barrier|mio_throttle|math_pipe_throttle|dispatch_stall|not_selected|selected|no_instruction|membar|sleeping|lg_throttle|tex_throttle|branch_resolving|drain|imc_miss|misc)_per_issue_active\.ratio'
for k in v2_warp_tma v2_warp_ws; do
  echo "-- $k"
  ncu --clock-control none -k regex:tsl_matmul --launch-skip 3 -c 1 --metrics "$M" \
    "$T" run "kernels/$k.co" --shape M=8192,N=8192,K=8192 --runs 20 2>&1 \
    | grep -E "sm__|smsp__|tsl_matmul" | head -40
done
exit $rc
