#!/bin/bash
# Where the L2 bytes of the best 16-bit 8192^3 kernel go, against cuBLAS's kernel in the same
# process: ncu's L2 sector counts split by requester (SM loads/stores through TMA or L1, the
# fabric between the two L2 partitions) and by operation, one launch each, bf16 (f32
# accumulation), --clock-control none.
#
#   bash tools/gpu-exp/l2_breakdown.sh [path/to/tessel]
#
# Question: tessel moves 1.4x cuBLAS's L2 bytes (11.4 GB against 8.3 GB) though its tile
# arithmetic predicts 9.4 GB. Prediction: the excess is cross-partition (fabric) traffic, not
# extra loads from the SMs.
set -u
T="${1:-target/release/tessel}"
M='gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_bytes.sum,lts__t_sectors.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,dram__bytes_read.sum,dram__bytes_write.sum'
for k in 'regex:tsl_' 'regex:^(?!tsl)'; do
  echo "== bf16 $k"
  ncu --clock-control none -k "$k" --launch-skip 3 -c 1 --metrics "$M" \
    "$T" run kernels/v4_cluster.co --shape M=8192,N=8192,K=8192 --dtype bf16 \
    --set WARP_N=224 --set STAGES=4 --set EPI_SPLIT=2 --set MULTICAST=2 --runs 20 2>&1 \
    | grep -vE "^==PROF==|^time|^verify" | grep -E "tsl_|sm90|nvjet|Kernel|lts__|dram__|gpu__|sm__|Section" | head -40
done
