#!/bin/bash
cd "$(dirname "$0")"
[ -x warp ] || nvcc -O3 -std=c++17 -arch=sm_90a -lineinfo warp.cu -o warp -lcublas
ncu --clock-control none -k regex:tsl_matmul --launch-skip 88 -c 1 --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg ./warp 2>&1 | grep -vE "^==PROF==|^mma|^cuBLAS|^v2_warp" | grep -vE " 0$| 0\.0[0-4]?$" | head -50
