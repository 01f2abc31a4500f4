#!/bin/bash
cd "$(dirname "$0")"
nvcc -O3 -std=c++17 -arch=sm_90a -lineinfo warp.cu -o warp -lcublas -Xptxas -v 2>&1 | grep -E "tsl_matmul|registers|spill" | grep -B1 -A1 "Used" | head -40
./warp
ncu --clock-control none -k regex:tsl_matmul -c 1 --section WarpStateStats --section ComputeWorkloadAnalysis --section SchedulerStats --section MemoryWorkloadAnalysis ./warp 2>&1 | grep -vE "^==PROF==" | grep -E "tsl_matmul|Stall|Issue|Warp Cycles|Eligible|Active Warps|Pipe|Throughput|Bank|Executed Ipc|No Eligible|Smsp" | head -60
