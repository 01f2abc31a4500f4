#!/usr/bin/env python3
"""Static register-bank conflicts of the FFMAs in SASS listings (BENCHMARKS.md, runs 20 and 26).

An FFMA reads up to three source registers; a source the previous instruction marked `.reuse` in
the same operand slot comes from the reuse cache, the others from the register file. Two of those
in one bank (register number mod BANKS) cost a dispatch stall. This counts, per listing, the FFMAs
with 0, 1 and 2 such extra reads. On k8 the count ranked the FFMA loop orders the way an H200 did
at the tile it was made for; it does not carry across ptxas options (BENCHMARKS.md).

  nvdisasm -c kernel.cubin > kernel.sass      # e.g. a cubin from NVRTC (tools/setup-nvrtc.sh)
  tools/ffma-bank-conflicts.py [--banks 2] kernel.sass [other.sass ...]
"""
import argparse
import collections
import re

INSTR = re.compile(r"\s*/\*[0-9a-f]+\*/\s+(.*?);")
REG = re.compile(r"-?\|?R(\d+)")


def sources(instr):
    """(register or None, reused?) of the three sources of an FFMA."""
    ops = [o.strip() for o in instr.split(None, 1)[1].split(",")][1:4]
    out = []
    for o in ops:
        m = REG.match(o)
        out.append((int(m.group(1)) if m else None, ".reuse" in o))
    return out


def count(path, banks):
    hist, prev = collections.Counter(), None
    for line in open(path):
        m = INSTR.match(line)
        if not m:
            continue
        instr = m.group(1).strip()
        if instr.startswith("@"):
            instr = instr.split(None, 1)[1]
        if not instr.startswith("FFMA"):
            prev = None
            continue
        srcs = sources(instr)
        reads = [
            r
            for k, (r, _) in enumerate(srcs)
            if r is not None and not (prev and prev[k] == (r, True))
        ]
        hist[len(reads) - len({r % banks for r in reads})] += 1
        prev = srcs
    return hist


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--banks", type=int, default=2)
    ap.add_argument("listings", nargs="+")
    a = ap.parse_args()
    for p in a.listings:
        h = count(p, a.banks)
        print(f"{p}: {sum(h.values())} FFMA, conflicts {{0: {h[0]}, 1: {h[1]}, 2: {h[2]}}}")


if __name__ == "__main__":
    main()
