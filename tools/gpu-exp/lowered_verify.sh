#!/bin/bash
# GPU verification of language-construct kernels of dsl-core/tests/lowered/: `_` as a `.subspan`
# size on the SIMT path (subspan_whole: whole rows staged in shared memory, a register tile cut
# from them) and on the Hopper path (subspan_whole_tma: TMA loads of whole rows, WGMMA operands
# of every row); `foreach … : unroll(N)` (unroll_factor, every factor of its tunable); and
# `reduce … : block` (block_reduce: a softmax at every block size of its tunable;
# block_reduce_2d: two thread levels, an int count and an f32 sum); atomics (a histogram: shared
# and global atomic adds, global atomic max / min); while_loop (a grid-stride `while` loop with
# an integer sum); sync_barrier (a block's reversal through shared memory behind
# `sync.barrier : block`, a warp's rotation behind `sync.barrier : group`, a fence and an atomic
# count of the warps); atomic_capture (atomics whose old values pick the slots each thread
# marks: every slot once); copy_3d and copy_3d_planes (cooperative copies of rank-3 tiles: a
# batch's plane by a pointer offset, whole trailing planes folded into rows; ragged edges);
# event_named_cond (two halves of a block hand data over through events, each half picked by a
# named condition); fresh_local and fresh_local_columns (`f = dma.copy … => local`: register
# arrays of a rank-3 tile's shape, from global and from shared memory; ragged edges);
# span_as_whole (`.span_as(…)` of whole tensors: a tile of the reshaped tensor staged in shared
# memory, a flat view, the output reshaped; ragged rows); int8_simt (u8 and s8 element types on
# the SIMT path: a shared u8 tile, s8 wrapping, an s8 register tile; C not a multiple of 16);
# int16_simt (u16, s16 and u32: a shared u16 tile, s16 wrapping, a u32 hash wrapping modulo
# 2^32, u32 atomic sums, a u32 register tile of shifts); first_tile_fill (bare `.subspan`
# copy operands as their first tiles, smaller global tiles zero-filled into larger shared ones,
# at R = 17 and R = 1000); dma_transform (`dma.transp` of a ragged global tile into a fresh
# shared buffer and out again, `dma.pad` of it straight into a global tile, a rank-3
# `dma.transp<2, 0, 1>` between global tensors); jumps (`break` out of a `foreach` and a
# `while`, `continue`, and threads that `yield` before their last store); future_first_tile
# (an asynchronous copy's future into a tensor's first tile, read through its data);
# launch_bounds_attr and maxnreg_attr (`[[launch_bounds(_, 4)]]`, `[[maxnreg(32)]]`);
# device_call (`call` of a `__device__` function of the source, run once: y = 1.5 x + y in place);
# f8_moves (e4m3 and e5m2 values moved through shared memory and element by element, exactly);
# per_thread_copy (copies each thread makes alone between its global row and its shared row);
# fresh_shared_own (fresh shared buffers of each thread's own, a device function on each);
# asserts (an assertion over M: M = 1000 runs, M = 1001 must fail before the launch);
# output_fill and output_fill_part (outputs the runtime fills with their initializer before
# every launch: a histogram counted into zeros, a tensor written in part over 1.5); inline_asm
# (GNU extended `__asm__`: scalar, shared, read-and-rewritten global and float outputs);
# device_call_plain (`call` of a plain C++ function, compiled for the device with the
# `__device__` one it calls: x = 2 x + 1 in place); launch_sized_rows and launch_sized_batch
# (shared buffers sized by problem sizes: rows of N = 1001 and 4096 reversed through shared
# memory, a whole [B, 4, K] batch in one buffer; problems over a block's shared memory must be
# refused at launch); decl_init (`{v}` initializers: a shared histogram zeroed by the block, register
# arrays of weights and of each thread's index); named_barriers (half a block hands a shared buffer
# to the other half through `__bar_arrive` / `__bar_sync`, then all meet at a second barrier);
# dma_transform_async (an `.async` `dma.pad` in flight beside a `cp.async` copy; M = 20 rows of
# a 32-row tile: the rest zeros inside the padding); fresh_shared_own_async (an `.async` copy into
# each thread's own buffer beside a block-wide `cp.async` copy); wgmma_plain_futures and
# wgmma_plain_futures_rs (WGMMA operands from plain `f = dma.copy … => shared` futures, laid out
# in the swizzle tessel picks from their rows: 64 and 128 B, an MN-major B; 32 B, a register A;
# ragged M, N and K); view_from_windows (`.view(…).from(…)` windows at element offsets:
# overlapping 18-row windows from column 3, zeros past the last row, M = 17 and 1000);
# wgmma_tma_unswizzled (TMA loads stating no swizzle into declared operand tiles: tensor maps
# and descriptors of 64 and 128 B); idle_lanes (a `: group` level of 16-thread rows: each
# warp's first 16 lanes run them, a block barrier between two such levels). The
# SIMT kernels are checked
# against NumPy (float64, inputs made here); the TMA one is a GEMM with K = 64, checked against
# cuBLAS over every output.
#
#   bash tools/gpu-exp/lowered_verify.sh [path/to/tessel]
set -u
cd "$(dirname "$0")/../.."  # the repository root
T="${1:-target/release/tessel}"
D=$(mktemp -d)
python3 - "$D" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(20261126)
M = 1000                                   # not a multiple of the 16-row blocks
a = rng.standard_normal((M, 64)).astype(np.float32)
out = np.empty((M, 72), np.float32)
out[:, :64] = a * 2
out[:, 64:] = a[:, 8:16]
np.save(f"{d}/rs_a.npy", a); np.save(f"{d}/rs_out.npy", out)
M, K = 777, 1001                           # K not a multiple of any factor
a = rng.standard_normal((M, K)).astype(np.float32)
x = rng.standard_normal(K).astype(np.float32)
y = np.empty((M, 2), np.float32)
y[:, 0] = a.astype(np.float64) @ x.astype(np.float64)
y[:, 1] = a.astype(np.float64).sum(axis=1)
np.save(f"{d}/rd_a.npy", a); np.save(f"{d}/rd_x.npy", x); np.save(f"{d}/rd_y.npy", y)
R, C = 300, 1000                           # C not a multiple of any block size
x = rng.standard_normal((R, C)).astype(np.float32) * 4
e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
np.save(f"{d}/sm_x.npy", x); np.save(f"{d}/sm_y.npy", (e / e.sum(axis=1, keepdims=True)).astype(np.float32))
R, C = 257, 1001
x = rng.standard_normal((R, C)).astype(np.float32)
st = np.stack([(x > 0).sum(axis=1).astype(np.float64), (x.astype(np.float64) ** 2).sum(axis=1)], axis=1)
np.save(f"{d}/rs2_x.npy", x); np.save(f"{d}/rs2_st.npy", st.astype(np.float32))
N = 100003                                 # not a multiple of the 256-thread blocks
x = rng.integers(-(1 << 20), 1 << 20, size=N, dtype=np.int32)
bins = x % 64                              # NumPy's % is the kernel's ((x % 64 + 64) % 64)
hist = np.bincount(bins, minlength=64).astype(np.int32)
ext = np.empty((64, 2), np.int32); ext[:, 0] = np.iinfo(np.int32).min; ext[:, 1] = np.iinfo(np.int32).max
np.save(f"{d}/at_x.npy", x); np.save(f"{d}/at_ext0.npy", ext); np.save(f"{d}/at_h0.npy", np.zeros(64, np.int32))
for k in range(64):
    ext[k] = (x[bins == k].max(), x[bins == k].min())
np.save(f"{d}/at_ext.npy", ext); np.save(f"{d}/at_h.npy", hist)
N = 100003                                 # about 24 elements per thread of the 4096
x = rng.standard_normal(N).astype(np.float32)
i = np.arange(N)
sums = np.zeros(4096, np.int64); np.add.at(sums, i % 4096, 2 * i)
np.save(f"{d}/wl_x.npy", x); np.save(f"{d}/wl_y.npy", x * 2)
np.save(f"{d}/wl_s.npy", sums.astype(np.int32))
N = 100003                                 # not a multiple of the 256-thread blocks
x = rng.standard_normal(N).astype(np.float32)
B = -(-N // 256)
xp = np.zeros(B * 256, np.float32); xp[:N] = x
blocks = xp.reshape(B, 256)
rev = blocks[:, ::-1].reshape(-1)[:N]
rot = (np.roll(blocks.reshape(B, 8, 32), -1, axis=2) * 2).reshape(-1)[:N]
np.save(f"{d}/sb_x.npy", x); np.save(f"{d}/sb_rev.npy", rev); np.save(f"{d}/sb_rot.npy", rot)
np.save(f"{d}/sb_w0.npy", np.zeros(1, np.int32)); np.save(f"{d}/sb_w.npy", np.array([B * 8], np.int32))
B = -(-N // 128)                           # tickets: 128-thread blocks
np.save(f"{d}/tk_z.npy", np.zeros(N, np.int32)); np.save(f"{d}/tk_one.npy", np.ones(N, np.int32))
np.save(f"{d}/tk_t0.npy", np.zeros(1, np.int32)); np.save(f"{d}/tk_t.npy", np.array([B * 128], np.int32))
x = rng.standard_normal((3, 100, 200)).astype(np.float32)   # batched: M, K not whole tiles
np.save(f"{d}/c3_x.npy", x); np.save(f"{d}/c3_y.npy", x * 2)
x = rng.standard_normal((7, 4, 8)).astype(np.float32)       # planes: B odd
np.save(f"{d}/cp_x.npy", x); np.save(f"{d}/cp_y.npy", x)
x = rng.standard_normal(100003).astype(np.float32)          # events picked by a named condition
np.save(f"{d}/ev_x.npy", x); np.save(f"{d}/ev_y.npy", x * 2)
x = rng.standard_normal((3, 1001, 64)).astype(np.float32)  # fresh register arrays: M ragged
np.save(f"{d}/fl_x.npy", x)
np.save(f"{d}/fl_y.npy", x * 2 + (np.arange(1001) % 4)[None, :, None].astype(np.float32))
np.save(f"{d}/fl_z.npy", x * 2)
a = rng.integers(-1000, 1000, size=(3, 17, 1000), dtype=np.int32)  # columns: N ragged
c = rng.integers(-1000, 1000, size=(3, 17, 1000), dtype=np.int32)
np.save(f"{d}/fc_a.npy", a); np.save(f"{d}/fc_c.npy", c); np.save(f"{d}/fc_s.npy", a + c)
x = rng.standard_normal((3, 333, 64)).astype(np.float32)    # span_as: 999 rows, 4 a block
np.save(f"{d}/sa_x.npy", x); np.save(f"{d}/sa_y.npy", x[:, :, ::-1] + x)
img = rng.integers(0, 256, size=(333, 1000), dtype=np.uint8)  # 8-bit integers: C not a multiple of 16
bias = rng.integers(-128, 128, size=1000, dtype=np.int8)
v = img.astype(np.int64) + bias.astype(np.int64)[None, :]
wrap = v.astype(np.int8)                                        # the low 8 bits, as C++ converts
np.save(f"{d}/i8_img.npy", img); np.save(f"{d}/i8_bias.npy", bias)
np.save(f"{d}/i8_out.npy", np.clip(v, 0, 255).astype(np.uint8)); np.save(f"{d}/i8_wrap.npy", wrap)
np.save(f"{d}/i8_neg.npy", np.negative(wrap))
img = rng.integers(0, 65536, size=(333, 1000), dtype=np.uint16)  # 16-bit and u32 integers
bias = rng.integers(-32768, 32768, size=1000, dtype=np.int16)
key = rng.integers(0, 1 << 32, size=(333, 1000), dtype=np.uint64).astype(np.uint32)
v = img.astype(np.int64) + bias.astype(np.int64)[None, :]
h = (img.astype(np.uint64) * 2654435761) & 0xFFFFFFFF          # the product wraps modulo 2^32
np.save(f"{d}/i16_img.npy", img); np.save(f"{d}/i16_bias.npy", bias); np.save(f"{d}/i16_key.npy", key)
np.save(f"{d}/i16_out.npy", np.clip(v, 0, 65535).astype(np.uint16))
np.save(f"{d}/i16_wrap.npy", v.astype(np.int16))               # the low 16 bits, as C++ converts
np.save(f"{d}/i16_hash.npy", (h ^ (h >> 16)).astype(np.uint32))
np.save(f"{d}/i16_sum0.npy", np.zeros(333, np.uint32))
np.save(f"{d}/i16_sum.npy", img.astype(np.uint64).sum(axis=1).astype(np.uint32))
k64 = key.astype(np.uint64)
np.save(f"{d}/i16_mixed.npy", ((k64 >> 3) ^ ((k64 << 29) & 0xFFFFFFFF)).astype(np.uint32))
for R, N in ((17, 7), (1000, 1000)):                           # first tiles, zero-filled
    x = rng.standard_normal((R, 48)).astype(np.float32)
    u = rng.standard_normal(N).astype(np.float32)
    y = np.zeros((24, 64), np.float32); r = min(R, 20); y[:r, :48] = 2 * x[:r]
    w = np.ones(16, np.float32); n = min(N, 10); w[:n] += u[:n]
    np.save(f"{d}/ft_x{R}.npy", x); np.save(f"{d}/ft_u{R}.npy", u)
    np.save(f"{d}/ft_y{R}.npy", y); np.save(f"{d}/ft_w{R}.npy", w)
x = rng.standard_normal((1000, 48)).astype(np.float32)         # dma.transp / dma.pad: M ragged
nb = -(-1000 // 32); xp = np.zeros((nb * 32, 48), np.float32); xp[:1000] = x
z = np.concatenate([np.pad(xp[b * 32:(b + 1) * 32], ((1, 3), (2, 0)), constant_values=-1.5)
                    for b in range(nb)]).astype(np.float32)
a = rng.integers(-1000, 1000, size=(3, 4, 5), dtype=np.int32)
np.save(f"{d}/tf_x.npy", x); np.save(f"{d}/tf_y.npy", np.ascontiguousarray(x.T))
np.save(f"{d}/tf_z.npy", z); np.save(f"{d}/tf_a.npy", a)
np.save(f"{d}/tf_c.npy", np.ascontiguousarray(a.transpose(2, 0, 1)))
x = rng.standard_normal((1001, 32)).astype(np.float32)         # break, continue, yield: M ragged
x[::7] = np.abs(x[::7]); x[3::11, 0] = -np.abs(x[3::11, 0])   # rows with no negative; leavers
neg = x < 0
first = np.where(neg.any(axis=1), neg.argmax(axis=1), 32).astype(np.int32)
pos = np.where(x > 0, x, 0).astype(np.float64).sum(axis=1).astype(np.float32)
def halves(n):
    h = 0
    while n >= 10 and n % 2 == 0:
        n //= 2; h += 1
    return h
np.save(f"{d}/jp_x.npy", x); np.save(f"{d}/jp_first.npy", first); np.save(f"{d}/jp_pos.npy", pos)
np.save(f"{d}/jp_halves.npy", np.array([halves(i * 12 + 1000) for i in range(1001)], np.int32))
np.save(f"{d}/jp_flag0.npy", np.zeros(1001, np.int32))
np.save(f"{d}/jp_flag.npy", (x[:, 0] >= 0).astype(np.int32))
x = rng.standard_normal((1001, 32)).astype(np.float32)         # a future into a first tile
y = np.empty((1001, 40), np.float32); y[:, :32] = 2 * x; y[:, 32:] = 0.5 * np.arange(8)
np.save(f"{d}/ff_x.npy", x); np.save(f"{d}/ff_y.npy", y)
x = rng.standard_normal(100003).astype(np.float32)             # launch attributes: N ragged
x64 = x.astype(np.float64)
np.save(f"{d}/la_x.npy", x); np.save(f"{d}/la_lb.npy", (3 * x64 - 1).astype(np.float32))
np.save(f"{d}/la_mr.npy", (((x64 + 2) * x64 + 3) * x64 + 4).astype(np.float32))
x = rng.standard_normal((1001, 64)).astype(np.float32)         # a device function: M ragged
y = rng.standard_normal((1001, 64)).astype(np.float32)
np.save(f"{d}/dc_x.npy", x); np.save(f"{d}/dc_y0.npy", y); np.save(f"{d}/dc_y.npy", 1.5 * x + y)
a = (rng.integers(-8, 9, size=(5, 17, 64)) * 0.25).astype(np.float32)  # f8 moves: values both
b = (rng.integers(-8, 9, size=(5, 64)) * 0.25).astype(np.float32)      # f8 formats hold exactly
np.save(f"{d}/f8_a.npy", a); np.save(f"{d}/f8_b.npy", b)
x = rng.standard_normal((1001, 40)).astype(np.float32)          # per-thread copies: M ragged
xp = np.zeros((1008, 40), np.float32); xp[:1001] = x
src = (np.arange(1008) // 8) * 8 + (np.arange(1008) % 8 + 1) % 8   # each row's source row
np.save(f"{d}/pt_x.npy", x); np.save(f"{d}/pt_y.npy", xp[src, ::-1][:1001])
x = rng.standard_normal((1001, 64)).astype(np.float32)          # each thread's own buffer: M ragged
seg = x.astype(np.float64).reshape(1001, 8, 8)
np.save(f"{d}/fo_x.npy", x)
np.save(f"{d}/fo_y.npy", (2 * (seg + seg.sum(axis=2, keepdims=True))).reshape(1001, 64).astype(np.float32))
x = rng.standard_normal((1000, 64)).astype(np.float32)          # assertions: M a multiple of 4
np.save(f"{d}/as_x.npy", x); np.save(f"{d}/as_y.npy", 2 * x)
x = rng.standard_normal((1001, 64)).astype(np.float32)
np.save(f"{d}/as_x1.npy", x); np.save(f"{d}/as_y1.npy", 2 * x)
x = rng.integers(-(1 << 20), 1 << 20, size=100003, dtype=np.int32)  # filled outputs
np.save(f"{d}/of_x.npy", x)
np.save(f"{d}/of_counts.npy", np.bincount(x % 64, minlength=64).astype(np.int32))
x = rng.standard_normal((333, 128)).astype(np.float16)
y = np.full((333, 128), 1.5, np.float16); y[:, ::2] = (x[:, ::2].astype(np.float32) * 2).astype(np.float16)
np.save(f"{d}/op_x.npy", x); np.save(f"{d}/op_y.npy", y)
x = rng.integers(-(1 << 20), 1 << 20, size=100003, dtype=np.int32)  # inline assembly, v = 5
np.save(f"{d}/ia_x.npy", x); np.save(f"{d}/ia_y.npy", x + 6)
np.save(f"{d}/ia_z.npy", (x + 5).astype(np.float32))
x = rng.standard_normal((1001, 64)).astype(np.float32)          # a plain function: M ragged
np.save(f"{d}/dp_x0.npy", x); np.save(f"{d}/dp_x.npy", 2 * x + 1)
for n in (1001, 4096):                                          # rows sized at launch
    x = rng.standard_normal((333, n)).astype(np.float32)
    z = rng.standard_normal((333, n)).astype(np.float32)
    np.save(f"{d}/lr_x{n}.npy", x); np.save(f"{d}/lr_z{n}.npy", z)
    np.save(f"{d}/lr_y{n}.npy", (x[:, ::-1].astype(np.float64) + 2 * z.astype(np.float64)).astype(np.float32))
for b, k in ((5, 100), (3, 99)):                                # a batch sized at launch
    x = rng.integers(-(1 << 20), 1 << 20, size=(b, 4, k), dtype=np.int32)
    np.save(f"{d}/lb_x{b}.npy", x)
    np.save(f"{d}/lb_y{b}.npy", (3 * x + np.arange(b, dtype=np.int32)[:, None, None]).astype(np.int32))
x = rng.integers(-(1 << 20), 1 << 20, size=1001, dtype=np.int32)  # declaration initializers
bins = np.zeros((8, 16), np.int32)
for i, v in enumerate(x):
    bins[i // 128, v % 16] += 1
np.save(f"{d}/di_x.npy", x); np.save(f"{d}/di_counts.npy", bins)
np.save(f"{d}/di_sums.npy", (2 * (np.arange(1001) % 128) + 2 * x.astype(np.int64)).astype(np.float32))
x = rng.standard_normal(1001).astype(np.float32)                # named barriers: N ragged
xp = np.zeros(1024, np.float32); xp[:1001] = x
np.save(f"{d}/nb_x.npy", x); np.save(f"{d}/nb_b0.npy", np.zeros(1, np.int32))
np.save(f"{d}/nb_y.npy", (3 * xp.reshape(8, 128)[:, ::-1] + 1).reshape(-1)[:1001])
np.save(f"{d}/nb_b.npy", np.array([8], np.int32))
x = rng.integers(-(1 << 20), 1 << 20, size=(20, 64), dtype=np.int32)  # async pad: M = 20 < 32
bb = rng.integers(-(1 << 20), 1 << 20, size=(20, 64), dtype=np.int32)
pad = np.full((36, 72), 99, np.int32); pad[2:34, 4:68] = 0; pad[2:22, 4:68] = x
cp = np.zeros((32, 64), np.int32); cp[:20] = bb
np.save(f"{d}/ta_x.npy", x); np.save(f"{d}/ta_b.npy", bb)
np.save(f"{d}/ta_pad.npy", pad); np.save(f"{d}/ta_cp.npy", cp)
x = rng.standard_normal((1001, 64)).astype(np.float32)          # own buffers, async: M ragged
z = rng.standard_normal((1001, 64)).astype(np.float32)
np.save(f"{d}/oa_x.npy", x); np.save(f"{d}/oa_z.npy", z); np.save(f"{d}/oa_y.npy", x + z)
np.save(f"{d}/lr_y30000.npy", np.zeros((333, 30000), np.float32))  # never compared: refused
np.save(f"{d}/lb_y200.npy", np.zeros((200, 4, 100), np.int32))
x = rng.standard_normal((1000, 16)).astype(np.float32)          # idle lanes: half-warp rows
np.save(f"{d}/il_x.npy", x); np.save(f"{d}/il_y.npy", (2 * x)[:, ::-1].copy())
for M in (17, 1000):                                            # `.view(…).from(…)` windows
    x = rng.standard_normal((M, 70)).astype(np.float32)
    xp = np.zeros((M + 2, 70), np.float64); xp[:M] = x
    np.save(f"{d}/vf_x{M}.npy", x)
    np.save(f"{d}/vf_y{M}.npy", (xp[:M, 3:67] + xp[1:M + 1, 3:67] + xp[2:M + 2, 3:67]).astype(np.float32))
for (M, N, K) in [(200, 136, 104), (1000, 704, 520)]:          # TMA loads, no swizzle stated
    a = rng.standard_normal((M, K)).astype(np.float16)
    bt = rng.standard_normal((N, K)).astype(np.float16)
    np.save(f"{d}/tu_a{M}.npy", a); np.save(f"{d}/tu_b{M}.npy", bt)
    np.save(f"{d}/tu_o{M}.npy", (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float16))
for (M, N, K) in [(200, 136, 100), (1000, 700, 520)]:          # WGMMA operands, plain futures
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    bt = rng.standard_normal((N, K)).astype(np.float16)
    np.save(f"{d}/pf_a{M}.npy", a); np.save(f"{d}/pf_b{M}.npy", b); np.save(f"{d}/pf_bt{M}.npy", bt)
    a64 = a.astype(np.float64)
    np.save(f"{d}/pf_c{M}.npy", (a64 @ b.astype(np.float64)).astype(np.float32))
    np.save(f"{d}/pf_ct{M}.npy", (a64 @ bt.astype(np.float64).T).astype(np.float32))
PY
rc=0
check() {
  echo "-- $*"
  out=$("$T" run "$@" 2>&1); r=$?
  echo "$out" | grep -E "^result|error|mismatch" | head -5
  [ $r -eq 0 ] || { echo "   FAIL ($r)"; rc=1; }
}
L=dsl-core/tests/lowered
check $L/subspan_whole.co --shape M=1000 --input a="$D/rs_a.npy" --expect out="$D/rs_out.npy" --runs 20
for s in M=200,N=296 M=4097,N=1000 M=65,N=136 M=4096,N=4096; do  # N: rows of 16-byte multiples (TMA)
  check $L/subspan_whole_tma.co --shape "$s" --runs 20
done
for u in 1 2 4 8; do
  check $L/unroll_factor.co --shape M=777,K=1001 --set KU=$u --input a="$D/rd_a.npy" \
    --input x="$D/rd_x.npy" --expect y="$D/rd_y.npy" --rtol 1e-4 --atol 1e-3 --runs 20
done
for tpb in 64 128 256 1024; do
  check $L/block_reduce.co --shape R=300,C=1000 --set TPB=$tpb --input x="$D/sm_x.npy" \
    --expect y="$D/sm_y.npy" --rtol 1e-5 --atol 1e-7 --runs 20
done
check $L/block_reduce_2d.co --shape R=257,C=1001 --input x="$D/rs2_x.npy" \
  --expect stats="$D/rs2_st.npy" --rtol 1e-5 --atol 1e-3 --runs 20
check $L/atomics.co --shape N=100003 --input x="$D/at_x.npy" --input extremes="$D/at_ext0.npy" \
  --input hist="$D/at_h0.npy" --expect hist="$D/at_h.npy" --expect extremes="$D/at_ext.npy" --runs 20
check $L/while_loop.co --shape N=100003 --input x="$D/wl_x.npy" --expect y="$D/wl_y.npy" \
  --expect sums="$D/wl_s.npy" --runs 20
check $L/sync_barrier.co --shape N=100003 --input x="$D/sb_x.npy" --input warps="$D/sb_w0.npy" \
  --expect rev="$D/sb_rev.npy" --expect rot="$D/sb_rot.npy" --expect warps="$D/sb_w.npy" --runs 20
check $L/atomic_capture.co --shape N=100003 --input slots="$D/tk_z.npy" --input seen="$D/tk_z.npy" \
  --input total="$D/tk_t0.npy" --expect slots="$D/tk_one.npy" --expect seen="$D/tk_one.npy" \
  --expect total="$D/tk_t.npy" --runs 20
check $L/copy_3d.co --shape B=3,M=100,K=200 --input x="$D/c3_x.npy" --expect y="$D/c3_y.npy" --runs 20
check $L/copy_3d_planes.co --shape B=7 --input x="$D/cp_x.npy" --expect y="$D/cp_y.npy" --runs 20
check $L/event_named_cond.co --shape N=100003 --input x="$D/ev_x.npy" --expect y="$D/ev_y.npy" --runs 20
check $L/fresh_local.co --shape B=3,M=1001 --input x="$D/fl_x.npy" --expect y="$D/fl_y.npy" \
  --expect z="$D/fl_z.npy" --runs 20
check $L/fresh_local_columns.co --shape B=3,N=1000 --input lhs="$D/fc_a.npy" --input rhs="$D/fc_c.npy" \
  --expect out="$D/fc_s.npy" --runs 20
check $L/span_as_whole.co --shape B=3,M=333 --input x="$D/sa_x.npy" --expect y="$D/sa_y.npy" --runs 20
check $L/int8_simt.co --shape R=333,C=1000 --input img="$D/i8_img.npy" --input bias="$D/i8_bias.npy" \
  --expect out="$D/i8_out.npy" --expect wrap="$D/i8_wrap.npy" --expect neg="$D/i8_neg.npy" --runs 20
check $L/int16_simt.co --shape R=333,C=1000 --input img="$D/i16_img.npy" --input bias="$D/i16_bias.npy" \
  --input key="$D/i16_key.npy" --input rowsum="$D/i16_sum0.npy" --expect out="$D/i16_out.npy" \
  --expect wrap="$D/i16_wrap.npy" --expect hash="$D/i16_hash.npy" --expect rowsum="$D/i16_sum.npy" \
  --expect mixed="$D/i16_mixed.npy" --runs 20
for RN in "17 7" "1000 1000"; do
  set -- $RN
  check $L/first_tile_fill.co --shape R=$1,N=$2 --input x="$D/ft_x$1.npy" --input u="$D/ft_u$1.npy" \
    --expect y="$D/ft_y$1.npy" --expect w="$D/ft_w$1.npy" --rtol 0 --atol 0 --runs 20
done
check $L/dma_transform.co --shape M=1000,R=1152 --input x="$D/tf_x.npy" --input a="$D/tf_a.npy" \
  --expect y="$D/tf_y.npy" --expect z="$D/tf_z.npy" --expect c="$D/tf_c.npy" --rtol 0 --atol 0 --runs 20
check $L/jumps.co --shape M=1001 --input x="$D/jp_x.npy" --input flag="$D/jp_flag0.npy" \
  --expect first="$D/jp_first.npy" --expect pos="$D/jp_pos.npy" --expect halves="$D/jp_halves.npy" \
  --expect flag="$D/jp_flag.npy" --rtol 1e-5 --atol 1e-5 --runs 20
check $L/future_first_tile.co --shape M=1001 --input x="$D/ff_x.npy" --expect y="$D/ff_y.npy" \
  --rtol 0 --atol 0 --runs 20
check $L/launch_bounds_attr.co --shape N=100003 --input x="$D/la_x.npy" --expect y="$D/la_lb.npy" \
  --rtol 1e-6 --atol 1e-6 --runs 20
check $L/maxnreg_attr.co --shape N=100003 --input x="$D/la_x.npy" --expect y="$D/la_mr.npy" \
  --rtol 1e-5 --atol 1e-5 --runs 20
check $L/device_call.co --shape M=1001 --scalar a=1.5 --input x="$D/dc_x.npy" --input y="$D/dc_y0.npy" \
  --expect y="$D/dc_y.npy" --rtol 1e-6 --atol 1e-6 --runs 1
check $L/f8_moves.co --shape B=5 --input a="$D/f8_a.npy" --input b="$D/f8_b.npy" \
  --expect a_out="$D/f8_a.npy" --expect b_out="$D/f8_b.npy" --rtol 0 --atol 0 --runs 20
check $L/per_thread_copy.co --shape M=1001 --input x="$D/pt_x.npy" --expect y="$D/pt_y.npy" --runs 20
check $L/fresh_shared_own.co --shape M=1001 --input x="$D/fo_x.npy" --expect y="$D/fo_y.npy" \
  --rtol 1e-5 --atol 1e-5 --runs 20
check $L/output_fill.co --shape N=100003 --input x="$D/of_x.npy" --expect counts="$D/of_counts.npy" \
  --rtol 0 --atol 0 --runs 20
check $L/output_fill_part.co --shape R=333 --input x="$D/op_x.npy" --expect y="$D/op_y.npy" \
  --rtol 0 --atol 0 --runs 20
check $L/inline_asm.co --shape N=100003 --scalar v=5 --input x="$D/ia_x.npy" --expect y="$D/ia_y.npy" \
  --expect z="$D/ia_z.npy" --rtol 0 --atol 0 --runs 20
check $L/device_call_plain.co --shape M=1001 --input x="$D/dp_x0.npy" --expect x="$D/dp_x.npy" \
  --rtol 1e-6 --atol 1e-6 --runs 1
check $L/asserts.co --shape M=1000 --input x="$D/as_x.npy" --expect y="$D/as_y.npy" --runs 20
echo "-- $L/asserts.co --shape M=1001 (the assertion must stop the launch)"
out=$("$T" run $L/asserts.co --shape M=1001 --input x="$D/as_x1.npy" --expect y="$D/as_y1.npy" 2>&1); r=$?
echo "$out" | grep -E "assert" | head -3
if [ $r -eq 0 ] || ! echo "$out" | grep -q "M must be a multiple of 4"; then
  echo "   FAIL ($r)"; rc=1
fi
for n in 1001 4096; do
  check $L/launch_sized_rows.co --shape M=333,N=$n --input x="$D/lr_x$n.npy" --input z="$D/lr_z$n.npy" \
    --expect y="$D/lr_y$n.npy" --rtol 1e-6 --atol 1e-6 --runs 20
done
check $L/launch_sized_batch.co --shape B=5,K=100 --input x="$D/lb_x5.npy" --expect y="$D/lb_y5.npy" \
  --rtol 0 --atol 0 --runs 20
check $L/launch_sized_batch.co --shape B=3,K=99 --input x="$D/lb_x3.npy" --expect y="$D/lb_y3.npy" \
  --rtol 0 --atol 0 --runs 20
check $L/decl_init.co --shape N=1001,B=8 --input x="$D/di_x.npy" --expect counts_out="$D/di_counts.npy" \
  --expect sums="$D/di_sums.npy" --rtol 0 --atol 0 --runs 20
check $L/named_barriers.co --shape N=1001 --input x="$D/nb_x.npy" --input blocks="$D/nb_b0.npy" \
  --expect y="$D/nb_y.npy" --expect blocks="$D/nb_b.npy" --rtol 1e-6 --atol 1e-6 --runs 1
check $L/dma_transform_async.co --shape M=20 --input x="$D/ta_x.npy" --input b="$D/ta_b.npy" \
  --expect padded="$D/ta_pad.npy" --expect copied="$D/ta_cp.npy" --rtol 0 --atol 0 --runs 20
check $L/fresh_shared_own_async.co --shape M=1001 --input x="$D/oa_x.npy" --input z="$D/oa_z.npy" \
  --expect y="$D/oa_y.npy" --rtol 1e-6 --atol 1e-6 --runs 20
check $L/idle_lanes.co --shape R=1000 --input x="$D/il_x.npy" --expect y="$D/il_y.npy" --rtol 0 --atol 0 --runs 20
for m in 17 1000; do
  check $L/view_from_windows.co --shape M=$m --input x="$D/vf_x$m.npy" --expect y="$D/vf_y$m.npy" \
    --rtol 1e-6 --atol 1e-6 --runs 20
done
for mnk in 200,136,104 1000,704,520; do  # TMA: rows of 16-byte multiples
  IFS=, read -r M N K <<< "$mnk"
  check $L/wgmma_tma_unswizzled.co --shape M=$M,N=$N,K=$K --input lhs="$D/tu_a$M.npy" --input rhs="$D/tu_b$M.npy" \
    --expect out="$D/tu_o$M.npy" --rtol 4e-3 --atol 0.05 --runs 20
done
for mnk in 200,136,100 1000,700,520; do
  IFS=, read -r M N K <<< "$mnk"
  check $L/wgmma_plain_futures.co --shape M=$M,N=$N,K=$K --input a="$D/pf_a$M.npy" --input b="$D/pf_b$M.npy" \
    --expect c="$D/pf_c$M.npy" --rtol 2e-3 --atol 2e-2 --runs 20
  check $L/wgmma_plain_futures_rs.co --shape M=$M,N=$N,K=$K --input a="$D/pf_a$M.npy" --input b="$D/pf_bt$M.npy" \
    --expect c="$D/pf_ct$M.npy" --rtol 2e-3 --atol 2e-2 --runs 20
done
for s in "launch_sized_rows.co M=333,N=30000 y=$D/lr_y30000.npy" \
  "launch_sized_batch.co B=200,K=100 y=$D/lb_y200.npy"; do
  set -- $s
  echo "-- $L/$1 --shape $2 (over the shared memory of a block: the launch must be refused)"
  out=$("$T" run $L/$1 --shape $2 --expect $3 --runs 1 2>&1); r=$?
  echo "$out" | grep -E "shared memory|error" | head -3
  if [ $r -eq 0 ] || ! echo "$out" | grep -q "shared memory"; then
    echo "   FAIL ($r)"; rc=1
  fi
done
exit $rc
