#!/bin/bash
# SGEMM k8 (kernels/sgemm_k8_warptile.co) with its K step unrolled by a factor (`: unroll(KU)`)
# instead of whole, at 4096^3 against cuBLAS SGEMM (no TF32): `tessel run` of each configuration
# (output verified, median of 200 launches against cuBLAS's), in two passes in reverse order,
# then ncu's stall reasons of one launch of the whole and the best partial unroll.
#
#   bash tools/gpu-exp/sgemm_unroll.sh [path/to/tessel]
#
# Why: at BK = 16 the fully unrolled K step is ~2,260 SASS instructions (36 KB) per version of
# the versioned loop, and ncu found `no_instruction` stalls of 0.10 per issued instruction against
# cuBLAS's 0.02 (instruction fetch). A factor of 4 or 8 gives the loop a body of 9-18 KB.
#
# Prediction (written before the run): KU = 8 at the default tile: +2 to +4% (no_instruction
# stalls down to ~0.03); KU = 4: +1 to +3% (the loop's own branch and address arithmetic eat part
# of it); KU = 2: -2 to 0%. BK = 32 unrolled by 8 (half the barriers of BK = 16): +0 to +3%.
set -u
cd "$(dirname "$0")/../.."  # the repository root
T="${1:-target/release/tessel}"
# The variant: kernels/sgemm_k8_warptile.co with a tunable factor on its K step.
K=$(mktemp --suffix=.co)
sed -e 's|^tunable MINB in \[1, 2\] = 1; |tunable KU in [2, 4, 8, 16, 32] = 16;\nrequire KU <= BK \&\& BK % KU == 0;\n&|' \
    -e 's|foreach {k} in \[BK\] {|foreach {k} in [BK] : unroll(KU) {|' kernels/sgemm_k8_warptile.co > "$K"
grep -q 'unroll(KU)' "$K" && grep -q '^tunable KU' "$K" || { echo "the variant was not made"; exit 2; }
S=M=4096,N=4096,K=4096
CFGS=("KU=16" "KU=8" "KU=4" "KU=2" "BK=32,KU=8" "BK=32,KU=16" "BK=8,KU=8" "BK=8,KU=4")
run_cfg() {
  local sets=()
  IFS=, read -ra kv <<< "$1"
  for x in "${kv[@]}"; do sets+=(--set "$x"); done
  out=$("$T" run "$K" --shape "$S" "${sets[@]}" --runs 200 2>&1); r=$?
  echo "$1: $(echo "$out" | grep -E '^result|error' | head -2)"
  [ $r -eq 0 ] || echo "   FAIL ($r)"
}
echo "== pass 1"
for c in "${CFGS[@]}"; do run_cfg "$c"; done
echo "== pass 2 (reverse order)"
for ((i=${#CFGS[@]}-1; i>=0; i--)); do run_cfg "${CFGS[$i]}"; done
echo "== ncu (one launch each)"
M='gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active'
for c in "KU=16" "KU=8" "KU=4"; do
  echo "-- $c"
  ncu --clock-control none -k regex:tsl_ --launch-skip 3 -c 1 --metrics "$M" \
    "$T" run "$K" --shape "$S" --set "$c" --runs 20 2>&1 | grep -E "gpu__|sm__|smsp__"
done
