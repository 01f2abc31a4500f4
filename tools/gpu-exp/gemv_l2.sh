#!/bin/bash
# build the three variants and run them back to back
cd "$(dirname "$0")"
sed 's/cp.async.cg.shared.global \[/cp.async.cg.shared.global.L2::128B [/' gemv_staged.cu > g128.cu
sed 's/cp.async.cg.shared.global \[/cp.async.cg.shared.global.L2::256B [/' gemv_staged.cu > g256.cu
grep -c "L2::" g128.cu g256.cu
for h in 0 128 256; do f=gemv_staged.cu; [ $h != 0 ] && f=g$h.cu
  nvcc -O3 -std=c++17 -arch=sm_90a -DHINT=$h -DKFILE="\"$f\"" gemv_l2.cu -o gemv_$h 2>&1 | grep -v "warning #" | head -20 &
done; wait
for round in 1 2; do for h in 0 128 256; do ./gemv_$h; done; done
