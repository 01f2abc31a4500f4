#!/bin/bash
# `= ready` events and counters stepped inside expressions on a GPU: kernels/ws_ready.co (a
# generation ring written as Croqtile's event documentation writes one) verified against cuBLAS
# at every STAGES × CONSUMERS and three shapes (square, ragged M, small), then timed beside
# kernels/ws_ring.co (the same ring with initial triggers instead of `= ready`) at 4096³.
# Exit 1 on any output that does not verify.
#
#   bash tools/gpu-exp/ws_ready.sh [path/to/tessel]
#
# Prediction (before the run): every configuration verifies; ws_ready within ±2% of ws_ring at
# the same configuration (the same instructions but the first STAGES waits' parity).
set -u
cd "$(dirname "$0")/../.."  # the repository root (run it as tools/gpu-exp/ws_ready.sh)
T="${1:-target/release/tessel}"
fail=0
for st in 2 3 4; do
  for c in 1 2; do
    for shape in M=4096,N=4096,K=4096 M=1000,N=776,K=520 M=130,N=136,K=72; do
      echo "== ws_ready STAGES=$st CONSUMERS=$c $shape"
      out=$("$T" run kernels/ws_ready.co --shape "$shape" --set STAGES=$st --set CONSUMERS=$c \
        --runs 20 2>&1); rc=$?
      echo "$out" | grep -E "^(verify|time|result|error)"
      [ $rc = 0 ] || { fail=1; echo "exit $rc"; }
    done
  done
done
for k in ws_ready ws_ring; do
  echo "== $k defaults 4096^3"
  out=$("$T" run kernels/$k.co --shape M=4096,N=4096,K=4096 --runs 50 2>&1); rc=$?
  echo "$out" | grep -E "^(verify|time|result|error)"
  [ $rc = 0 ] || { fail=1; echo "exit $rc"; }
done
echo "ws_ready: failures $fail"
exit $fail
