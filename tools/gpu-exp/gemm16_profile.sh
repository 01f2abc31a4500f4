#!/bin/bash
# ncu of the best 16-bit 8192^3 kernel (kernels/v4_cluster.co, rhs multicast to 2-block
# clusters, 224-wide warpgroup tiles, 4 stages, split epilogue) against the cuBLAS kernel
# `tessel run` times it against, in one process: one launch of each, --clock-control none
# (the card at its own clocks, as in a burst).
#
#   bash tools/gpu-exp/gemm16_profile.sh [path/to/tessel]
set -u
cd "$(dirname "$0")/../.."
T="${1:-target/release/tessel}"
M='gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__inst_executed.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__cluster_dim_x,launch__cluster_dim_y,dram__bytes_read.sum,lts__t_bytes.sum'
for dt in f16 bf16; do
  for k in 'regex:tsl_' 'regex:^(?!tsl)'; do
    echo "== $dt $k"
    ncu --clock-control none -k "$k" --launch-skip 3 -c 1 --metrics "$M" \
      "$T" run kernels/v4_cluster.co --shape M=8192,N=8192,K=8192 --dtype "$dt" \
      --set WARP_N=224 --set STAGES=4 --set EPI_SPLIT=2 --set MULTICAST=2 --runs 20 2>&1 \
      | grep -vE "^==PROF==|^time|^verify" | head -30
  done
done
