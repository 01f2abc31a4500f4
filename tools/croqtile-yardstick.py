#!/usr/bin/env python3
"""Yardstick: how much of a directory of Croqtile `.co` files `tessel check` accepts.

Each file is split into its `__co__` functions; every function is checked on its own, in a copy
of the file that keeps everything else (host C++, preprocessor lines, `__co_device__` helpers)
but drops the other `__co__` functions. A file counts as a negative test when every `RUN:` line
it carries starts with `not` (the compiler is expected to reject it); a negative file passes
the yardstick when `tessel check` rejects at least one of its functions. The script is plain
Python because it only shells out to the `tessel` binary and matches braces.

Negative files whose rejection is not about the language tessel implements (Croqtile's
command-line options, its HIP target, its analysis reports, a construct tessel keeps on purpose)
are listed in NOT_APPLICABLE with the reason; they are counted apart and never as rejected.

With `--emit`, every function that passes `check` is also given to `tessel emit` (the lowering
gate, then the lowering): the tool then counts how many lower to CUDA.

usage: tools/croqtile-yardstick.py DIR [--tessel PATH] [--emit] [--list] [--fail-list]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter


def blank_comments(text):
    """`text` with comments and string/char literals replaced by spaces (offsets kept)."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def match(code, i, open_ch, close_ch):
    """Index just past the delimiter closing the one at `i`, or None."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] == open_ch:
            depth += 1
        elif code[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
    return None


# Negative files (paths under the test directory) whose expected error is not a rule of the
# language as tessel implements it, each with the reason.
NOT_APPLICABLE = {
    "cli/unknown_option.co": "a misspelled command-line option of Croqtile's driver",
    "parse/error_mutables.co": "each bad declaration sits in an #ifdef branch its RUN line picks with -D; without one every branch is left out",
    "cli/debug_option_conflict.co": "conflicting command-line options of Croqtile's driver",
    "others/input_existance.co": "a missing input file given to Croqtile's driver (no __co__ function)",
    "amdgpu/check/illegal_async_dma.co": "dma.copy.async, rejected on the HIP target only (-t hip)",
    "amdgpu/codegen/dma_async_error.co": "dma.copy.async, rejected on the HIP target only (-t hip)",
    "amdgpu/check/illegal_stream.co": "streams, rejected on the HIP target only (-t hip)",
    "gpu/check/active_threads_basic.co": "a thread-activity report run (-pa=active-threads): the expected output is the report",
    "gpu/check/active_threads_advanced.co": "a thread-activity report run (-pa=active-threads): the expected output is the report and warnings",
    "parse/removed_tma_event_binding.co": "tma.copy.async<ev>: removed from Croqtile, kept by tessel as its seed dialect",
    "check/illegal_span_init2.co": "disabled in Croqtile (its RUN line is spelled 1RUN:); an f32 -> s8 initializer is a lossy implicit conversion, a warning in Croqtile's type system",
    "check/mma_shape.co": "a 32x32x32 f16 warp mma: one instruction in Croqtile, a grid of mma.sync instructions in tessel (docs/LANGUAGE.md)",
}


CO = re.compile(r"\b__co(_device)?__\b")


def functions(text):
    """(name, start, end, is_device) for every `__co__` / `__co_device__` function."""
    code = blank_comments(text)
    out = []
    for m in CO.finditer(code):
        p = code.find("(", m.end())
        if p < 0:
            continue
        head = code[m.end():p].split()
        name = head[-1] if head else "?"
        q = match(code, p, "(", ")")
        if q is None:
            continue
        b = q
        while b < len(code) and code[b] not in "{;":
            b += 1
        if b >= len(code) or code[b] == ";":
            continue  # a declaration without a body
        e = match(code, b, "{", "}")
        if e is None:
            continue
        out.append((name, m.start(), e, m.group(1) is not None))
    return out


def is_negative(text):
    runs = re.findall(r"RUN:\s*(.*)", text)
    return bool(runs) and all(r.startswith("not ") for r in runs)


def variants(text):
    """One file text per `__co__` function: the others are blanked out (newlines kept so
    line numbers stay those of the original file)."""
    fns = functions(text)
    kernels = [f for f in fns if not f[3]]
    for name, s, e, _ in kernels:
        chars = list(text)
        for other, s2, e2, dev in kernels:
            if (s2, e2) == (s, e):
                continue
            for k in range(s2, e2):
                if chars[k] != "\n":
                    chars[k] = " "
        yield name, "".join(chars)


def check(tessel, body, tmpdir, cmd="check"):
    path = os.path.join(tmpdir, "fn.co")
    with open(path, "w") as f:
        f.write(body)
    try:
        r = subprocess.run([tessel, cmd, path], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return False, "timeout"
    out = r.stdout + r.stderr
    if r.returncode not in (0, 1) or "panicked" in out:
        return False, "PANIC rc=%d" % r.returncode
    if r.returncode == 0:
        return True, ""
    codes = re.findall(r"error\[(E\d+)\]: ([^\n]*)", out)
    return False, ("%s %s" % codes[0]) if codes else out.strip().splitlines()[0][:120]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--tessel", default="target/debug/tessel")
    ap.add_argument("--list", action="store_true", help="print every function's result")
    ap.add_argument("--fail-list", action="store_true", help="print each failing function")
    ap.add_argument("--emit", action="store_true", help="also count functions `tessel emit` lowers")
    a = ap.parse_args()
    files = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(a.dir) for f in fs if f.endswith(".co")
    )
    pos = [0, 0]
    gemm = [0, 0]
    e2e_gemm = [0, 0]
    neg = [0, 0]
    not_applicable = []
    panics = 0
    emitted = [0, 0, 0]  # all, mma, end2end mma
    reasons = Counter()
    emit_reasons = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            text = open(path, encoding="utf-8", errors="replace").read()
            negative = is_negative(text)
            results = []
            for name, body in variants(text):
                ok, why = check(a.tessel, body, tmp)
                panics += why.startswith("PANIC")
                results.append((name, ok, why))
                if ok and a.emit and not negative:
                    lowered, ewhy = check(a.tessel, body, tmp, "emit")
                    panics += ewhy.startswith("PANIC")
                    fn_text = body_of(text, name)
                    emitted[0] += lowered
                    emitted[1] += lowered and "mma" in fn_text
                    emitted[2] += lowered and "mma" in fn_text and "/end2end/" in path
                    if not lowered:
                        emit_reasons[re.sub(r"`[^`]*`", "`…`", ewhy)[:90]] += 1
                        if a.fail_list:
                            print("NOT-LOWERED %s::%s %s" % (path, name, ewhy))
                if a.list:
                    print("%s %s::%s %s" % ("ok  " if ok else "FAIL", path, name, why))
            rel = os.path.relpath(path, a.dir).replace(os.sep, "/")
            if negative and rel in NOT_APPLICABLE:
                rejected = any(not ok for _, ok, _ in results)
                not_applicable.append((path, rejected, NOT_APPLICABLE[rel]))
                continue
            if negative:
                neg[1] += 1
                rejected = any(not ok for _, ok, _ in results)
                neg[0] += rejected
                if not rejected and a.fail_list:
                    print("NEGATIVE-ACCEPTED %s" % path)
                continue
            for name, ok, why in results:
                fn_text = body_of(text, name)
                pos[1] += 1
                pos[0] += ok
                if "mma" in fn_text:
                    gemm[1] += 1
                    gemm[0] += ok
                    if "/end2end/" in path:
                        e2e_gemm[1] += 1
                        e2e_gemm[0] += ok
                if not ok:
                    reasons[re.sub(r"`[^`]*`", "`…`", why)[:90]] += 1
                    if a.fail_list:
                        print("FAIL %s::%s %s" % (path, name, why))
    pct = lambda p: "%d of %d (%.1f%%)" % (p[0], p[1], 100.0 * p[0] / max(p[1], 1))
    print("functions in tests meant to compile that pass check: " + pct(pos))
    print("  of them using mma (GEMM-like):                     " + pct(gemm))
    print("  of them in end2end/ using mma:                     " + pct(e2e_gemm))
    print("negative test files still rejected:                  " + pct(neg))
    print("negative files not applicable to tessel:             %d" % len(not_applicable))
    if a.fail_list or a.list:
        for path, rejected, why in not_applicable:
            state = "rejected" if rejected else "accepted"
            print("  NEGATIVE-NOT-APPLICABLE (%s) %s: %s" % (state, path, why))
    if a.emit:
        print("functions that `tessel emit` lowers:                 %d (mma: %d, end2end mma: %d)" % tuple(emitted))
    print("panics or crashes:                                   %d" % panics)
    print("most common first errors:")
    for why, n in reasons.most_common(25):
        print("  %5d  %s" % (n, why))
    if a.emit:
        print("most common first reasons `tessel emit` gives for not lowering a checked function:")
        for why, n in emit_reasons.most_common(25):
            print("  %5d  %s" % (n, why))
    return 0


def body_of(text, name):
    for n, s, e, dev in functions(text):
        if n == name and not dev:
            return text[s:e]
    return ""


if __name__ == "__main__":
    sys.exit(main())
