#!/bin/bash
# Usage: bash tools/gpu-exp/gemv_diag.sh  (with the release `examples/gemv` stripped into .gpu/gemv)
# GEMV at the issue's two shapes on this card: event-timed (the example's way) against the
# kernel's own duration under ncu, and a torch read of the same bytes timed the same way.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv
for cfg in "7168,16384 2 2 256" "18432,7168 2 3 256"; do
  set -- $cfg
  echo "== $1 ROWS=$2 STAGES=$3 KTILE=$4"
  .gpu/gemv --shape $1 --kernel gemv_staged --set ROWS=$2 --set STAGES=$3 --set KTILE=$4 2>&1 | grep -E "^result|device"
  ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    -k regex:gemv --launch-skip 8 --launch-count 3 .gpu/gemv --shape $1 --kernel gemv_staged --set ROWS=$2 --set STAGES=$3 --set KTILE=$4 --runs 20 2>&1 \
    | grep -E "gpu__time_duration|dram__bytes_read|dram__throughput" | head -9
done
python3 - <<'PY'
import torch
for n, k in [(7168, 16384), (18432, 7168)]:
    w = torch.randn(n, k, device="cuda", dtype=torch.float16)
    big = torch.randn(1 << 29, device="cuda", dtype=torch.float16)  # 1 GiB
    for name, t in [("read %dx%d" % (n, k), w), ("read 1 GiB", big)]:
        for _ in range(5): t.sum()
        torch.cuda.synchronize()
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(50)]
        for a, b in ev:
            a.record(); t.sum(); b.record()
        torch.cuda.synchronize()
        ms = sorted(a.elapsed_time(b) for a, b in ev)[25]
        print(f"torch.sum {name}: {ms*1e3:.2f} us, {t.numel()*2/ms/1e9:.3f} TB/s")
    e = torch.empty(0, device="cuda")
    x = torch.empty(1, device="cuda")
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(50)]
    for a, b in ev:
        a.record(); x.add_(1); b.record()
    torch.cuda.synchronize()
    print(f"one-element kernel, event-timed: {sorted(a.elapsed_time(b) for a, b in ev)[25]*1e3:.2f} us")
PY
