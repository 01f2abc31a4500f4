//! The checker's stable error codes. Each constant is used by exactly one kind of error;
//! [`TABLE`] lists them with their meaning (the README's table is generated from it).

/// Unknown identifier, tensor or event (with a "did you mean" suggestion).
pub const UNKNOWN_NAME: &str = "E0101";
/// `_` outside `.chunkat(…)`.
pub const WILDCARD: &str = "E0102";
/// A name declared twice in one scope, or a body name shadowing a header name.
pub const DUPLICATE_DECL: &str = "E0103";
/// A name of the wrong kind (a tensor where a value is needed, a tensor waited on, …).
pub const WRONG_KIND: &str = "E0104";
/// Unknown function, wrong argument count, unknown field.
pub const BAD_CALL: &str = "E0105";
/// Assignment to something that is not a scalar or an element.
pub const NOT_ASSIGNABLE: &str = "E0106";
/// A name the emitted CUDA cannot keep: a C++ keyword, a CUDA built-in variable, or a name in
/// tessel's (`tsl_…`) or the implementation's (`__…`) namespace.
pub const RESERVED_NAME: &str = "E0107";

/// An expression that must have a compile-time value has none (or overflows, divides by 0).
pub const EVAL: &str = "E0201";
/// Copy source and destination tiles differ in shape.
pub const COPY_SHAPE: &str = "E0202";
/// Copy source and destination differ in element type.
pub const COPY_DTYPE: &str = "E0203";
/// `.chunkat` cannot infer (or evenly split) a chunk size.
pub const CHUNK: &str = "E0204";
/// Malformed view: wrong number of indices, `.subspan` without `.at`, array not indexed, ….
pub const VIEW: &str = "E0205";
/// `mma.store` of an accumulator into a tile of an incompatible element type.
pub const STORE_DTYPE: &str = "E0206";

/// WGMMA M is not 64 per warpgroup.
pub const WGMMA_M: &str = "E0301";
/// WGMMA N is not a multiple of 8 in 8..=256.
pub const WGMMA_N: &str = "E0302";
/// WGMMA K is not a multiple of the instruction's K (16 for 16-bit operands, 32 for 8-bit), or
/// A and B disagree on K.
pub const WGMMA_K: &str = "E0303";
/// WGMMA operand dtypes differ or are not f16/bf16.
pub const WGMMA_DTYPE: &str = "E0304";
/// Accumulator dtype is not f16/f32, or bf16 operands with a non-f32 accumulator.
pub const WGMMA_ACC: &str = "E0305";
/// An 8-bit element type (f8, s8) outside a WGMMA operand tile and its TMA source: not
/// lowered.
pub const F8: &str = "E0306";
/// An mma operand that is not a fragment of the right role, or an mma outside `: group-4`.
pub const MMA_OPERAND: &str = "E0307";

/// Swizzle not in {32, 64, 128}.
pub const SWIZZLE_VALUE: &str = "E0401";
/// A `tma.copy` and an `mma.load` of one shared tensor disagree on the swizzle.
pub const SWIZZLE_MISMATCH: &str = "E0402";
/// The tile's contiguous row bytes differ from the swizzle width.
pub const SWIZZLE_ROW: &str = "E0403";

/// Shared memory over the per-block budget.
pub const SMEM_BUDGET: &str = "E0501";
/// Shared/local tensor shape or array count not a positive compile-time value.
pub const STATIC_SHAPE: &str = "E0502";

/// More threads per block than the hardware allows.
pub const THREADS: &str = "E0601";
/// A `group-4` level whose inner levels span more than 128 threads.
pub const GROUP4: &str = "E0602";
/// A `group` level whose inner levels span more than 32 threads.
pub const GROUP: &str = "E0603";
/// Parallel levels nested out of order (block ⊃ group-4 ⊃ group ⊃ thread).
pub const LEVEL_ORDER: &str = "E0604";
/// No `: block` level at the top, or more than one top-level `parallel`.
pub const NO_BLOCK: &str = "E0605";
/// A level's variables and extents disagree, or a thread extent is not a positive constant.
pub const EXTENT: &str = "E0606";
/// Sibling thread-level parallels with different thread counts.
pub const THREAD_MISMATCH: &str = "E0607";

/// An index that can leave a tensor or event array.
pub const ARRAY_RANGE: &str = "E0701";
/// A tile coordinate or element index that can leave a shared/local tensor.
pub const TILE_RANGE: &str = "E0702";
/// A `.from(…)` offset of a `.view(…)` window that may be below 0.
pub const FROM_OFFSET: &str = "E0703";
/// Index arithmetic whose range leaves 32-bit `int`, in which the kernel computes it.
pub const INDEX_OVERFLOW: &str = "E0704";

/// An event array used without an index (or a plain event indexed).
pub const EVENT_INDEX: &str = "E0801";
/// An event that is not `shared`.
pub const EVENT_SPACE: &str = "E0802";
/// A `wait` on an event that nothing triggers: deadlock.
pub const DEADLOCK: &str = "E0803";

/// A shared/local/global declaration outside any `parallel` (or a global one inside).
pub const DECL_PLACE: &str = "E0901";
/// `mma.load` for WGMMA from a tensor that is not in shared memory.
pub const MMA_LOAD_SPACE: &str = "E0902";
/// `mma.store` into a tile whose shape is not the accumulator's (or the stored slice's).
pub const MMA_STORE_SHAPE: &str = "E0903";
/// A copy between the wrong memory spaces (`tma.copy` needs global ↔ shared).
pub const COPY_SPACE: &str = "E0904";
/// A statement outside any `parallel`.
pub const OUTSIDE_PARALLEL: &str = "E0905";
/// A register tile (`local` tensor) indexed by a value known only at run time.
pub const LOCAL_INDEX: &str = "E0906";
/// A `reduce` that is not across a warp, outside a `: group`, under a condition, or not f32/int.
pub const REDUCE: &str = "E0907";
/// `.transpose()` anywhere but a `dma.copy` destination.
pub const TRANSPOSE: &str = "E0908";
/// `dma.wait N` with `N` not a compile-time value in 0..=7.
pub const DMA_WAIT: &str = "E0909";
/// An `mma.store` slice of an accumulator that does not span all of its rows.
pub const ACC_SLICE_ROWS: &str = "E0910";
/// An `mma.store` slice whose width is not a multiple of 8 dividing the accumulator's N.
pub const ACC_SLICE_COLS: &str = "E0911";
/// `mma.store` into a tile whose rows are not contiguous (a sub-tile of a wider tensor).
pub const MMA_STORE_DENSE: &str = "E0912";
/// An `mma.load` or `mma.store` tile that differs between the threads of the warp (`mma.sync`)
/// or warpgroup (WGMMA) that runs it.
pub const MMA_TILE_VARIES: &str = "E0913";
/// A TMA box (the global tile of a `tma.copy`) with a dimension over 256 elements, the limit of
/// a tensor map (a load its cluster shares may span 256 per sharing block: each loads a slice).
pub const TMA_BOX_TOO_LARGE: &str = "E0914";
/// An atomic update (`__atomic_add(t.at(i), v)`, …) of a register tile, or of an element type
/// its CUDA atomic does not take.
pub const ATOMIC: &str = "E0915";
/// A named barrier (`__bar_sync(id, n)`, `__bar_arrive(id, n)`) whose id is not a compile-time
/// integer in 1..=15, or whose thread count is not a compile-time positive multiple of 32 that
/// the block has.
pub const NAMED_BARRIER: &str = "E0916";

/// A `require` that is false for this configuration / problem.
pub const REQUIRE: &str = "E1001";
/// An `assert(cond, "…")` whose condition is false for this configuration / problem.
pub const ASSERT_FAILED: &str = "E1010";
/// A tunable default outside its domain, or an empty domain.
pub const DEFAULT_DOMAIN: &str = "E1002";
/// A header name declared twice (tunables, constants, parameters, dims).
pub const DUPLICATE_NAME: &str = "E1003";
/// A config value outside the tunable's domain, or a config naming no tunable.
pub const CONFIG: &str = "E1004";
/// `occupancy N` with `N` not an integer in 1..=32 (blocks per SM) for this configuration.
pub const OCCUPANCY: &str = "E1005";
/// `occupancy` on a Hopper (TMA/WGMMA) kernel, whose blocks per SM the lowering sizes itself.
pub const OCCUPANCY_PATH: &str = "E1006";
/// `[[launch_bounds(T, B)]]` / `[[maxnreg(N)]]` that no launch of the kernel can meet, or that
/// contradict each other or `occupancy`.
pub const LAUNCH_ATTRIBUTE: &str = "E1011";
/// `cluster C` with `C` not an integer in 1..=8 (blocks per cluster) for this configuration.
pub const CLUSTER: &str = "E1007";
/// A WGMMA accumulator too large for the registers a thread of its block can have (the 64K
/// register file shared by the block's threads, at most 255 each).
pub const ACC_REGISTERS: &str = "E1009";
/// `cluster` on a kernel that is not on the Hopper path or has no `raster`.
pub const CLUSTER_PATH: &str = "E1008";

/// A thread tile that does not divide the tile it works on: an extent `A / B` that leaves a
/// remainder (the last `A % B` rows are never covered).
pub const TILE_COVER: &str = "E1201";
/// A shared or local tile read before anything writes it (or never written at all).
pub const UNINIT_READ: &str = "E1202";
/// Warning: a `block # …` index whose inner extents do not multiply to the grid's tile, or a
/// block tile loaded at another size than the grid's.
pub const TILE_STRIDE: &str = "W1204";
/// Warning: a kernel parameter the body never uses (the emitted signature leaves it out).
pub const UNUSED_PARAM: &str = "W1203";
/// A loop or grid extent that is zero or negative.
pub const NON_POSITIVE_EXTENT: &str = "E1204";
/// A division or `cdiv` by zero in a kernel expression.
pub const DIV_ZERO: &str = "E1205";
/// Integer arithmetic that overflows 64 bits under the configuration / problem.
pub const OVERFLOW: &str = "E1206";
/// A `trigger` whose arrivals per phase differ from the barrier's expected count (reached by
/// other threads than the first `trigger`).
pub const ARRIVALS: &str = "E1207";
/// An event ring that deadlocks: a `wait` no earlier `trigger` can ever satisfy.
pub const RING_DEADLOCK: &str = "E1208";
/// An event ring that runs ahead: a phase completes twice before its waiters consume one.
pub const RING_AHEAD: &str = "E1209";
/// A `trigger` no thread of the block reaches (its `inthreads` conditions select no thread):
/// the event's phases would expect no arrival, so they never complete.
pub const TRIGGER_UNREACHED: &str = "E1210";
/// A `trigger` under an `inthreads` condition that names a value known only at run time
/// (a problem size, a parameter, a block or loop variable): the event's arrival count is fixed
/// when the kernel is compiled, from the thread indexes alone.
pub const TRIGGER_RUNTIME_THREADS: &str = "E1211";
/// Warning: a global tensor written by the kernel and also read at other elements.
pub const GLOBAL_RW: &str = "W1201";
/// Warning: an element store whose index ignores a thread variable of the level running it.
pub const SAME_ELEMENT_STORE: &str = "W1202";
/// Warning: a shared element that one thread writes and another reads with no barrier
/// between them (`check/race.rs`).
pub const SHARED_RACE: &str = "W1212";
/// Warning: a shared element that two threads write with no barrier between them.
pub const SHARED_WRITE_RACE: &str = "W1213";
/// Warning: `shared event<N> e;` states another number of threads than take part in `e` (the
/// threads that wait on or trigger it, over every use).
pub const EVENT_PARTICIPANTS: &str = "W1214";
/// Warning: two uses of one named barrier count different numbers of threads.
pub const NAMED_BARRIER_COUNTS: &str = "W1215";
/// Warning: an index into a shared or local tensor that nothing bounds on some side (a
/// parameter, data read from memory): on-chip buffers have no bounds test.
pub const UNBOUNDED_INDEX: &str = "W1216";
/// Warning: a shared tile read while an `.async` copy into it may still be in flight (no
/// `dma.wait` or `wait` between them).
pub const ASYNC_IN_FLIGHT: &str = "W1217";
// What lowering can translate (check/lowerable.rs).
/// A copy into a fresh buffer (`=> shared`): declare the destination.
pub const FRESH_COPY: &str = "E1101";
/// `dma.copy.async` with a register (`local`) side.
pub const ASYNC_REGISTER_COPY: &str = "E1102";
/// A `dma.copy` direction lowering does not implement (shared → global, shared → shared).
pub const COPY_DIRECTION: &str = "E1103";
/// A cooperative copy between global and shared memory of a tile that is not made of rows
/// (1-D, 2-D, or of rank 3 or more folding into rows: `view_sym::fold_rows`).
pub const SHARED_COPY_RANK: &str = "E1104";
/// A register-tile copy of a tile that is not 1-D or 2-D.
pub const REGISTER_COPY_RANK: &str = "E1105";
/// `.transpose()` as the destination of a copy into registers.
pub const TRANSPOSE_TARGET: &str = "E1106";
/// Compound assignment (`+=` …) to a global element.
pub const COMPOUND_GLOBAL: &str = "E1107";
/// Assignment to a view that is not a single element.
pub const ASSIGN_TILE: &str = "E1108";
/// A `: block` level of more than 3 variables.
pub const BLOCK_VARS: &str = "E1109";
/// `raster` on a `: block` level that is not 2-D.
pub const RASTER_RANK: &str = "E1110";
/// `persistent` on a `: block` level that is not 1-D or 2-D.
pub const PERSISTENT_RANK: &str = "E1111";
/// `trigger` under an `if` (the arrival count must be static).
pub const TRIGGER_IN_IF: &str = "E1112";
/// A `tma.copy` of a tile that is not 2-D.
pub const TMA_RANK: &str = "E1113";
/// An `mma.fill` accumulator no `mma.row.row` uses (its width is unknown).
pub const ACC_UNUSED: &str = "E1114";
/// Async copies into one `.transpose()`d tensor with different tile shapes (one register stage).
pub const STAGE_SHAPE: &str = "E1115";
/// An extent, shape, array count or `.subspan` size that is not integer arithmetic.
pub const NOT_INTEGER: &str = "E1116";
/// Under `cluster`, a multicast TMA load that does not follow a `wait`.
pub const MULTICAST_WAIT: &str = "E1117";
/// A 2-D register tile copy whose other side has a row count written differently.
pub const REGISTER_ROWS: &str = "E1118";
/// `a # b` with `b` not a loop or parallel variable (or a composition of them).
pub const COMPOSE_STRIDE: &str = "E1119";
/// A `.chunkat` index that is not a loop/parallel variable, a composition of them or `_`.
pub const CHUNK_INDEX: &str = "E1120";
/// An event waited both by generation (`e.at(k)`) and by barrier (`e`, `e[i]`).
pub const EVENT_WAIT_MIX: &str = "E1121";
/// A copy through shared memory the block makes together, whose tile differs between its
/// threads (it depends on a `: thread`, `: group` or `: group-4` variable).
pub const COPY_TILE_VARIES: &str = "E1122";
/// Not supported yet: an `assert` over a value the kernel computes (a thread or loop
/// variable, a scalar, an element); assertions are checked at launch.
pub const NOT_LOWERED_DEVICE_ASSERT: &str = "E1123";
/// Lowering failed on a kernel the checker accepted (a tessel bug; please report it).
pub const LOWER_INTERNAL: &str = "E1199";

/// Every code with its meaning.
/// Not supported yet: a statement of today's Croqtile that no lowering handles.
pub const NOT_LOWERED_STMT: &str = "E1300";
/// Not supported yet: an element type no lowering handles (s8, u8, f64, tf32, …).
pub const NOT_LOWERED_DTYPE: &str = "E1301";
/// Not supported yet: a `__co__` function that returns a value.
pub const NOT_LOWERED_RETURN: &str = "E1302";
/// Not supported yet: a math built-in in a kernel.
pub const NOT_LOWERED_MATH: &str = "E1303";
/// Not supported yet: a global tensor declared in the body (an output of the launch).
pub const NOT_LOWERED_GLOBAL_DECL: &str = "E1304";
/// Not supported yet: a declaration initializer, `= ready` events, `frag` tiles.
pub const NOT_LOWERED_DECL: &str = "E1306";
/// Not supported yet: a view or field beyond `.at`/`.subspan`/`.chunkat`/`.data`.
pub const NOT_LOWERED_VIEW: &str = "E1307";
/// A `trigger … after f` on a future that was already waited on.
pub const TRIGGER_AFTER_WAITED: &str = "E1305";
/// A `trigger … after f` whose `f` is not a TMA copy's future.
pub const TRIGGER_AFTER_DMA: &str = "E1308";
/// Not supported yet: a warp-level `mma` (under `: group`) in a kernel with a `: group-4`
/// level.
pub const NOT_LOWERED_WARP_MMA: &str = "E1310";
/// A warp-level `mma` (under `: group`) whose A tile is not 2-D or has an M no `mma.sync` shape
/// of its type tiles (a multiple of 8 for f16 and s8, of 16 for bf16 and tf32).
pub const WARP_MMA_SHAPE: &str = "E1311";
/// A malformed or misplaced `[[…]]` attribute.
pub const ATTRIBUTE: &str = "E1312";
/// Not supported yet: `[[…]]` attributes.
pub const NOT_LOWERED_ATTRIBUTE: &str = "E1313";
/// A TMA box extent that depends on values known only in the kernel.
pub const TMA_BOX_RUNTIME: &str = "E1314";
/// Not supported yet: shared tensors read directly as `mma` operands.
pub const NOT_LOWERED_DIRECT_OPERAND: &str = "E1315";
/// `break`/`continue` outside a loop, `yield` outside a `parallel`.
pub const MISPLACED_JUMP: &str = "E1317";
/// Not supported yet: scalar parameters.
pub const NOT_LOWERED_SCALAR_PARAM: &str = "E1309";
/// Not supported yet: a WGMMA operand that is not K-major (`mma.col.*`, `mma.*.col`) with
/// 16-bit elements (the transposed shared-memory descriptor is not lowered).
pub const NOT_LOWERED_MN_MAJOR: &str = "E1335";
/// Not supported yet: `mma.store.transp` / `mma.store.mask` of a warp-level accumulator
/// (the WGMMA path lowers both).
pub const NOT_LOWERED_STORE_MODS: &str = "E1336";
/// 8-bit WGMMA (f8_e4m3, f8_e5m2, s8) reads both operands K-major: `mma.row.row` only.
pub const WGMMA_8BIT_MAJOR: &str = "E1420";
/// A WGMMA operand tile read in several K-steps whose shared tensor is not swizzled (the
/// descriptor's K-advance assumes one swizzled row per 8-row group).
pub const WGMMA_K_SPLIT: &str = "E1422";
/// `promote P;`: P is not a non-negative integer, or the kernel has no `mma` with 8-bit float
/// operands and an f32 accumulator to promote.
pub const PROMOTE: &str = "E1423";
/// `mma.<a>.<b>.scale` on operands that are not floating point (s8), or with an accumulator
/// of another type than f32/f16.
pub const MMA_SCALE_TYPE: &str = "E1424";
/// The A-side scale of `mma….scale` is neither one value nor an f32 `[M, 1]` column of
/// per-row values of the warpgroup's M rows.
pub const MMA_SCALE_LHS: &str = "E1425";
/// The B-side scale of `mma….scale` is not one value.
pub const MMA_SCALE_RHS: &str = "E1426";
/// Not supported yet: `mma….scale` of a warp-level `mma`.
pub const NOT_LOWERED_WARP_SCALE: &str = "E1337";
/// Not supported yet: `mma….async` of a warp-level `mma`.
pub const NOT_LOWERED_WARP_ASYNC: &str = "E1338";
/// A warp-level `mma` whose B tile's N is not a multiple of 8.
pub const WARP_MMA_N: &str = "E1400";
/// A warp-level `mma` whose K no `mma.sync` shape of its type tiles (f16 4, bf16 8, tf32 4, s8 16).
pub const WARP_MMA_K: &str = "E1401";
/// A warp-level `mma` whose A and B tiles have different K.
pub const WARP_MMA_K_MISMATCH: &str = "E1402";
/// A warp-level `mma` whose operand types differ or that no `mma.sync` takes.
pub const WARP_MMA_DTYPE: &str = "E1403";
/// A warp-level `mma` accumulator type the instruction does not have.
pub const WARP_MMA_ACC: &str = "E1404";
/// A warp-level `mma` fragment whose shape is known only at launch.
pub const WARP_MMA_STATIC: &str = "E1405";
/// One warp accumulator updated as tiles of two shapes.
pub const WARP_MMA_ACC_SHAPE: &str = "E1406";
/// `mma.store` of a warp accumulator into a tile of another shape.
pub const WARP_MMA_STORE_SHAPE: &str = "E1407";
/// A warp-level `mma` operand or store in local memory.
pub const WARP_MMA_SPACE: &str = "E1408";
/// `mma.commit` in a kernel whose `mma`s are warp-level.
pub const WARP_MMA_COMMIT: &str = "E1409";
/// A warp-level `mma` operand name used as A and as B, or in two major orders.
pub const WARP_MMA_ROLE: &str = "E1410";
/// A warp-level `mma.load` that no `mma` reads.
pub const WARP_MMA_UNUSED: &str = "E1411";
/// Not supported yet: `mma.store` of a view of a warp accumulator.
pub const NOT_LOWERED_WARP_STORE_VIEW: &str = "E1331";
/// Not supported yet: an accumulator array (`frag mc[2][2] {0};`) outside a warp-MMA kernel.
pub const NOT_LOWERED_FRAG_ARRAY: &str = "E1370";
// What the lowering of today's Croqtile can translate (check/lowerable.rs, check/support.rs).
/// `dma.copy.async` from shared to global memory (the store is synchronous).
pub const ASYNC_STORE: &str = "E1460";
/// A shared → global `dma.copy` with a `.transpose()`d side.
pub const STORE_TRANSPOSE: &str = "E1461";
/// `f = dma.copy … => shared;` whose source's shape is not a static `.subspan(…)` tile, or
/// one future name bound to fresh buffers of two shapes.
pub const FRESH_SHAPE: &str = "E1462";
/// Not supported yet: a `dma.copy` future form the SIMT lowering does not translate.
pub const NOT_LOWERED_FUTURE: &str = "E1345";

/// A `: cluster` level whose blocks per cluster (per dimension, and in all) are not an
/// integer in 1..=8 (1..=16 with `nonportable_cluster;`) for this configuration.
pub const CLUSTER_SHAPE: &str = "E1440";
/// A `: cluster` level not directly above the kernel's `: block` level (nested in it, not
/// outermost, a second one, or together with the `cluster` header item).
pub const CLUSTER_NESTING: &str = "E1441";
/// `.multicast` on a kernel without a cluster.
pub const MULTICAST_NO_CLUSTER: &str = "E1442";
/// `.multicast` on a copy that is not a TMA load from global to shared memory.
pub const MULTICAST_NOT_TMA: &str = "E1443";
/// A `.multicast` load whose tile differs in every block of the cluster (nothing to share).
pub const MULTICAST_UNSHARED: &str = "E1444";
/// A `: cluster` level over a `: block` level it cannot tile: not 2-D, more cluster extents than
/// block variables, or a non-Hopper kernel.
pub const CLUSTER_GRID: &str = "E1445";
/// Under a `: cluster` level, a write to global memory that is not a TMA store (the grid is
/// padded to whole clusters; only TMA stores are clipped at the tensor's edge).
pub const CLUSTER_PADDED_WRITE: &str = "E1446";
/// A `.multicast` tile whose rows do not split into whole 8-row swizzle atoms, one slice per
/// block sharing it.
pub const MULTICAST_SLICE: &str = "E1447";
/// Not supported yet: a block's coordinates in its cluster (`: cluster` variables) as values.
pub const NOT_LOWERED_CLUSTER_RANK: &str = "E1340";
/// Not supported yet: `.multicast` on a TMA load bound to a future (`f = tma.copy…`).
pub const NOT_LOWERED_SYNC_MULTICAST: &str = "E1341";
/// Not supported yet: a `group`/`group-4` level whose inner levels leave lanes idle.
pub const NOT_LOWERED_PARTIAL_GROUP: &str = "E1350";
/// Not supported yet: a parameter dimension without a name (`?`, `mdspan<N>`).
pub const NOT_LOWERED_UNNAMED_DIM: &str = "E1352";
/// A function with a declared return type that returns no value.
pub const MISSING_RETURN: &str = "E0041";
/// A `void` function that returns a value.
pub const VOID_RETURN: &str = "E0042";
/// `parallel<s>` where `s` is not a `stream` parameter, or a stream parameter named twice.
pub const BAD_STREAM: &str = "E0043";
/// `trigger.cluster` in a kernel without clusters.
pub const CLUSTER_TRIGGER: &str = "E1500";
/// Not supported yet: `trigger.cluster` on an event the lowering does not make cluster-wide.
pub const NOT_LOWERED_CLUSTER_TRIGGER: &str = "E1385";
/// Not supported yet: a view bound to a name (`v = t.span_as(…)`).
pub const NOT_LOWERED_VIEW_LET: &str = "E1354";
/// An unroll factor that is not a positive compile-time integer, or exceeds the loop extent.
pub const UNROLL_FACTOR: &str = "E0046";
/// A parameter or return dimension whose compile-time value is below 1.
pub const PARAM_DIM: &str = "E0044";
/// Not supported yet: `stream` parameters, `parallel<s>` and `parallel.async`.
pub const NOT_LOWERED_STREAM: &str = "E1353";
/// Sparse WGMMA: B's (dense) K is not a multiple of the instruction's K (32 for 16-bit, 64
/// for 8-bit operands).
pub const SPARSE_K: &str = "E1480";
/// Sparse WGMMA: the packed A's K is not half of B's K.
pub const SPARSE_PACKED_K: &str = "E1481";
/// Sparse WGMMA: the metadata operand is not an `mma.load` of a plain u8 shared tile.
pub const SPARSE_META: &str = "E1482";
/// Sparse WGMMA: the metadata tile is not `[M, K/8]` for A's M and B's dense K.
pub const SPARSE_META_SHAPE: &str = "E1483";
/// Not supported yet: a warp-level sparse `mma` (`mma.sp.sync`).
pub const NOT_LOWERED_SPARSE_WARP: &str = "E1360";
/// Not supported yet: sparse s8 WGMMA.
pub const NOT_LOWERED_SPARSE_INT: &str = "E1361";
/// Not supported yet: `promote` of a sparse `mma`.
pub const NOT_LOWERED_SPARSE_PROMOTE: &str = "E1362";
/// Not supported yet: a u8 tensor that is not sparsity metadata.
pub const NOT_LOWERED_U8: &str = "E1363";

/// `swap(a, b)` of names that are not two futures of one buffer shape.
pub const BAD_SWAP: &str = "E1490";
/// A placeholder future (`f = dma.any;`) that no copy or `swap` ever gives a buffer.
pub const ANY_FUTURE_UNUSED: &str = "E1491";
/// Not supported yet: placeholder futures and `swap` outside the SIMT path's `dma.copy`
/// futures into fresh shared buffers.
pub const NOT_LOWERED_SWAP: &str = "E1375";

/// Element-wise work (`mc *= s;`, `apply {i, j} in acc.span`) on a fragment that is not an
/// accumulator.
pub const FRAG_ELEM_NOT_ACC: &str = "E1540";
/// Whole-fragment arithmetic (`mc = mc * s;`) that indexes the fragment.
pub const FRAG_WHOLE_INDEXED: &str = "E1541";
/// Inside `apply {i, j} in acc.span`, `acc` read or written other than as `acc.at(i, j)`.
pub const FRAG_ELEM_INDEX: &str = "E1542";
/// `apply` over an accumulator's span without exactly two variables.
pub const FRAG_APPLY_VARS: &str = "E1543";
/// A statement other than an assignment, `if` or named value in an accumulator's `apply`.
pub const FRAG_APPLY_BODY: &str = "E1544";
/// Inside an `apply` over a fragment, a `frag` tile read other than at the element's own
/// row (and column), or of another shape.
pub const FRAG_TILE_INDEX: &str = "E1545";
/// `copy` / `reduce_*` of fragments whose shapes do not match, or of names that are no
/// fragments.
pub const FRAG_OP: &str = "E1546";
/// Not supported yet: a `frag` tile used outside `apply`, `copy` and the row reductions.
pub const NOT_LOWERED_FRAG_TILE_USE: &str = "E1451";
/// Not supported yet: element-wise work on a warp accumulator before the first `mma` into it.
pub const NOT_LOWERED_FRAG_ELEM_ORDER: &str = "E1450";
/// A register fragment (`frag`, `mma.load.frag`) as the B operand of a warpgroup `mma`: WGMMA
/// reads B from shared memory only.
pub const REG_B: &str = "E1560";
/// A register-A WGMMA whose A is MN-major (`mma.col.*`): register fragments are K-major.
pub const REG_A_MAJOR: &str = "E1561";
/// `mma.load.frag` whose fragment is not the A operand of a warpgroup `mma`.
pub const FRAG_LOAD_USE: &str = "E1562";
/// Not supported yet: a register-A WGMMA with 8-bit operands.
pub const NOT_LOWERED_REG_A_8BIT: &str = "E1470";
/// Not supported yet: a register-A WGMMA written `.sp`, `.scale` or under `promote`.
pub const NOT_LOWERED_REG_A_FORM: &str = "E1471";
/// Not supported yet: an accumulator that a standalone `mma.scale` scales and that a `.scale`
/// `mma`, a register-A `mma` or `promote` also accumulates into.
pub const NOT_LOWERED_SCALE_MIX: &str = "E1472";
/// Not supported yet: `pingpong` under a `: cluster` level.
pub const NOT_LOWERED_PINGPONG_CLUSTER: &str = "E1473";
/// Not supported yet: a WGMMA operand fragment `mma.load`ed twice under one name in one block.
pub const NOT_LOWERED_FRAG_REBIND: &str = "E1474";
/// Not supported yet: a name declared again inside a nested `parallel` (the lowering emits a
/// nested level's body in its parent's C++ scope).
pub const NOT_LOWERED_PARALLEL_SHADOW: &str = "E1475";
/// Not supported yet: a 6- or 4-bit float element type (`f6_e2m3`, `f6_e3m2`, `f4_e2m1`).
pub const NOT_LOWERED_FP6_FP4: &str = "E1635";
/// `pingpong` in a kernel that is not `persistent`.
pub const PINGPONG_PERSISTENT: &str = "E1630";
/// `pingpong` without one producer branch on warpgroup 0 and one consumer branch `wg >= L`.
pub const PINGPONG_ROLES: &str = "E1631";
/// `pingpong`: a `wait e.at(k)` in the consumer branch.
pub const PINGPONG_GENERATION: &str = "E1632";
/// `pingpong`: an event the consumer branch triggers is triggered outside it too.
pub const PINGPONG_TRIGGER: &str = "E1633";
/// `pingpong`: an `mma.store` of the consumer branch into one shared tile for all consumers.
pub const PINGPONG_SHARED_STORE: &str = "E1634";

/// `streamk` in a kernel that is not `persistent`.
pub const STREAMK_PERSISTENT: &str = "E1650";
/// `streamk` together with `pingpong`.
pub const STREAMK_PINGPONG: &str = "E1651";
/// `streamk` under a `: cluster` level.
pub const STREAMK_CLUSTER_LEVEL: &str = "E1652";
/// `streamk`: an `inthreads` branch without one main k-loop, or main loops over different extents.
pub const STREAMK_MAIN_LOOP: &str = "E1653";
/// `streamk`: the main loops accumulate into other than one `mma.fill.f32` fragment.
pub const STREAMK_ACCUMULATOR: &str = "E1654";

/// `[[frag_prefetch]]` not on a one-variable `foreach` of warp-level `mma`s, or with arguments.
pub const FRAG_PREFETCH_TARGET: &str = "E1600";
/// A `[[frag_prefetch]]` loop that does not begin with the `dma.wait` that lands its tile.
pub const FRAG_PREFETCH_WAIT: &str = "E1601";
/// A `[[frag_prefetch]]` loop that does not end with its k-step loop, or that holds statements
/// other than `dma.copy.async` between the wait and that loop.
pub const FRAG_PREFETCH_BODY: &str = "E1602";
/// A `[[frag_prefetch]]` k-step that is not its `mma.load`s followed by plain `mma`s.
pub const FRAG_PREFETCH_ORDER: &str = "E1603";
/// A `[[frag_prefetch]]` k-step whose `mma` reads a fragment loaded elsewhere, or that loads a
/// fragment no `mma` of the step reads as an operand.
pub const FRAG_PREFETCH_OPERAND: &str = "E1604";
/// A `[[frag_prefetch]]` operand not loaded from shared memory.
pub const FRAG_PREFETCH_SOURCE: &str = "E1605";
/// A `[[frag_prefetch]]` tile whose k-step count is not a compile-time even number.
pub const FRAG_PREFETCH_STEPS: &str = "E1606";

/// A statement outside every `parallel` with an effect (a tensor write, a copy, a print, an
/// `mma`, a barrier): Croqtile runs it once on the host, every thread would repeat it.
pub const KERNEL_SCOPE_EFFECT: &str = "E1610";

/// Not supported yet: a swizzled warp-level `mma` operand tile (TMA path) that is not whole
/// full-shape `mma.sync` instructions (A's M a multiple of 16, K of the full K), or stored in
/// the other major order with 8-bit or 32-bit elements.
pub const NOT_LOWERED_WARP_SWIZZLE_SHAPE: &str = "E1670";
/// Not supported yet: a swizzled warp-level `mma` operand tile in a kernel without TMA loads
/// (its `dma.copy`s write plain rows).
pub const NOT_LOWERED_WARP_SWIZZLE_CP_ASYNC: &str = "E1671";
/// Not supported yet: a warp accumulator loaded from or stored to a swizzled shared tile.
pub const NOT_LOWERED_WARP_SWIZZLE_ACC: &str = "E1672";
/// Not supported yet: element-wise work on a warp accumulator (`mc *= s`, `apply`), a `frag`
/// tile, a fragment operation or an accumulator re-fill in a warp kernel with TMA copies or
/// events.
pub const NOT_LOWERED_WARP_TMA_ELEMENTWISE: &str = "E1673";
/// Not supported yet: `persistent`, `cluster`, a `: cluster` level, `pingpong`, a `.multicast`
/// load, `promote` or a scaled `mma` in a warp kernel with TMA copies or events.
pub const NOT_LOWERED_WARP_TMA_SCHEDULE: &str = "E1674";

/// A block barrier (`sync.shared`, `sync.barrier : block`) under an `if` whose condition may
/// differ between the threads of a block, or under `inthreads`; a warp's barrier
/// (`sync.barrier : group`) under one that may differ between the lanes of a warp: the threads
/// that skip it never arrive.
pub const BARRIER_DIVERGENT: &str = "E1690";
/// A `return` inside a `parallel` (a function returns once, from its own code).
pub const RETURN_IN_PARALLEL: &str = "E1682";
/// A `return` of something that is not data: a copy future, a placeholder, a loop or bounded
/// index, an i-tuple.
pub const RETURN_KIND: &str = "E1683";
/// Not supported yet: a shared or local buffer whose shape is known only at launch (problem
/// sizes, scalar parameters).
pub const NOT_LOWERED_LAUNCH_SIZED: &str = "E1686";
/// `dma.pad` with other than four arguments (low, high, middle padding, pad value).
pub const PAD_ARITY: &str = "E1695";
/// Not supported yet: a scalar parameter hidden by a typed scalar or a loop or parallel
/// variable of the same name inside the body.
pub const NOT_LOWERED_HEADER_SHADOW: &str = "E0109";
/// `mma.load src, t;` into something other than a declared `frag` tile.
pub const LOAD_INTO_NOT_FRAG: &str = "E0110";
/// `mma.load src, t;` of a tile whose shape is not the `frag` tile's.
pub const LOAD_INTO_SHAPE: &str = "E0111";
/// A `parallel` extent that is no integer (a float or `bool` literal or scalar).
pub const EXTENT_NOT_INTEGER: &str = "E0108";
/// A floating-point (or `bool`) value where C++ takes an integer: an index, an operand of
/// `&`, `|`, `^`, `<<`, `>>`.
pub const NOT_INTEGER_OPERAND: &str = "E0112";
/// A `dma.pad` padding i-tuple whose entry count is not the source's rank.
pub const PAD_RANK: &str = "E1696";
/// A `dma.pad` with a non-zero middle (interior) padding: no CUDA code generator emits it.
pub const PAD_MIDDLE: &str = "E1697";
/// Not supported yet: a thread-level `parallel` extent known only at launch (a problem size,
/// a scalar parameter).
pub const NOT_LOWERED_LAUNCH_THREADS: &str = "E1698";
/// An event declared under `inthreads` or an `if` that may differ between the threads of a block.
pub const EVENT_DIVERGENT_DECL: &str = "E1691";
/// Not supported yet: a TMA load on no event under `inthreads` or an `if` that may differ
/// between the threads of a block.
pub const NOT_LOWERED_DIVERGENT_SYNC_TMA: &str = "E1692";
/// Not supported yet: a `dma.copy` to or from shared memory under `inthreads` or an `if` that
/// may differ between the threads of a block.
pub const NOT_LOWERED_DIVERGENT_DMA: &str = "E1693";

pub const TABLE: &[(&str, &str)] = &[
    (
        UNKNOWN_NAME,
        "unknown identifier, tensor or event (suggests the nearest name)",
    ),
    (WILDCARD, "`_` outside `.chunkat(...)`"),
    (
        DUPLICATE_DECL,
        "name declared twice in one scope, or a body name shadowing a header name",
    ),
    (
        RESERVED_NAME,
        "name that is a C++ keyword, a CUDA built-in or in the `tsl_`/`__` namespaces",
    ),
    (
        WRONG_KIND,
        "name of the wrong kind (tensor used as a value, non-event waited on, ...)",
    ),
    (
        BAD_CALL,
        "unknown function / wrong argument count / unknown field",
    ),
    (
        NOT_ASSIGNABLE,
        "assignment target is not a scalar or an element",
    ),
    (
        EVAL,
        "expression has no compile-time value, overflows or divides by zero",
    ),
    (
        COPY_SHAPE,
        "copy source and destination tiles differ in shape",
    ),
    (
        COPY_DTYPE,
        "copy source and destination differ in element type",
    ),
    (
        CHUNK,
        "`.chunkat` cannot infer or evenly split a chunk size",
    ),
    (
        VIEW,
        "malformed view (index count, `.subspan` without `.at`, array not indexed)",
    ),
    (
        STORE_DTYPE,
        "`mma.store` into a tile of an incompatible element type",
    ),
    (WGMMA_M, "WGMMA M is not 64 per warpgroup"),
    (WGMMA_N, "WGMMA N is not a multiple of 8 in 8..=256"),
    (
        WGMMA_K,
        "WGMMA K not a multiple of the instruction K (16, or 32 for 8-bit) or A/B disagree on K",
    ),
    (
        WGMMA_DTYPE,
        "WGMMA operand dtypes differ or are not f16/bf16",
    ),
    (
        WGMMA_ACC,
        "accumulator not f16/f32, or bf16 operands without an f32 accumulator",
    ),
    (
        F8,
        "an 8-bit element type (f8, s8) outside a WGMMA operand tile or its TMA source",
    ),
    (
        MMA_OPERAND,
        "mma operand of the wrong role, or mma outside a `: group-4` level",
    ),
    (SWIZZLE_VALUE, "swizzle not in {32, 64, 128}"),
    (
        SWIZZLE_MISMATCH,
        "tma.copy and mma.load of one shared tensor disagree on the swizzle",
    ),
    (
        SWIZZLE_ROW,
        "tile row bytes (last dim x dtype size) differ from the swizzle width",
    ),
    (SMEM_BUDGET, "shared memory over the per-block budget"),
    (
        STATIC_SHAPE,
        "shared/local shape or array count not a positive compile-time value",
    ),
    (THREADS, "more than 1024 threads per block"),
    (GROUP4, "`group-4` level encloses more than 128 threads"),
    (GROUP, "`group` level encloses more than 32 threads"),
    (
        LEVEL_ORDER,
        "parallel levels out of order (block > group-4 > group > thread)",
    ),
    (
        NO_BLOCK,
        "no `: block` level at the top, or several top-level parallels",
    ),
    (
        EXTENT,
        "level variables/extents disagree, or thread extent not a positive constant",
    ),
    (
        THREAD_MISMATCH,
        "sibling parallels with different thread counts",
    ),
    (ARRAY_RANGE, "index can leave a tensor or event array"),
    (
        TILE_RANGE,
        "tile coordinate or element index can leave a shared/local tensor",
    ),
    (
        FROM_OFFSET,
        "`.from` offset of a `.view` window may be below 0",
    ),
    (
        INDEX_OVERFLOW,
        "index arithmetic can leave 32-bit `int` (it wraps)",
    ),
    (
        EVENT_INDEX,
        "event array used without an index, or a plain event indexed",
    ),
    (EVENT_SPACE, "event not declared `shared`"),
    (
        DEADLOCK,
        "`wait` on an event that nothing triggers (deadlock)",
    ),
    (
        DECL_PLACE,
        "shared/local declaration outside any parallel, or a global one inside",
    ),
    (
        MMA_LOAD_SPACE,
        "WGMMA `mma.load` from a tensor not in shared memory",
    ),
    (
        MMA_STORE_SHAPE,
        "`mma.store` into a tile whose shape is not the stored accumulator's (or slice's)",
    ),
    (
        COPY_SPACE,
        "copy between the wrong memory spaces (tma.copy: global <-> shared)",
    ),
    (OUTSIDE_PARALLEL, "statement outside any parallel"),
    (
        LOCAL_INDEX,
        "register tile (`local`) indexed by a run-time value (use `: unroll` loop variables)",
    ),
    (
        REDUCE,
        "`reduce` not across a warp (`: group`), under a condition, or not f32/int",
    ),
    (
        TRANSPOSE,
        "`.transpose()` not used as a `dma.copy` destination",
    ),
    (DMA_WAIT, "`dma.wait N` with N not a constant in 0..=7"),
    (
        ACC_SLICE_ROWS,
        "`mma.store` slice of an accumulator that does not span all its rows",
    ),
    (
        ACC_SLICE_COLS,
        "`mma.store` slice width not a multiple of 8 dividing the accumulator's N",
    ),
    (
        MMA_STORE_DENSE,
        "`mma.store` into a sub-tile of a wider tensor (rows not contiguous)",
    ),
    (
        MMA_TILE_VARIES,
        "`mma.load`/`mma.store` tile that differs between the threads of its warp or warpgroup",
    ),
    (REQUIRE, "`require` false for this configuration / problem"),
    (
        ASSERT_FAILED,
        "`assert` false for this configuration / problem",
    ),
    (
        DEFAULT_DOMAIN,
        "tunable default outside its domain, or empty domain",
    ),
    (DUPLICATE_NAME, "header name declared twice"),
    (
        CONFIG,
        "config value outside the domain, or naming no tunable",
    ),
    (
        OCCUPANCY,
        "`occupancy` not an integer in 1..=32 blocks per SM",
    ),
    (
        OCCUPANCY_PATH,
        "`occupancy` on a Hopper (TMA/WGMMA) kernel: it applies to SIMT kernels",
    ),
    (
        LAUNCH_ATTRIBUTE,
        "`[[launch_bounds]]` / `[[maxnreg]]` no launch can meet, or that contradict each other",
    ),
    (
        CLUSTER,
        "`cluster` not an integer in 1..=8 blocks per cluster",
    ),
    (
        ACC_REGISTERS,
        "WGMMA accumulator larger than the registers a thread of its block can have",
    ),
    (
        CLUSTER_PATH,
        "`cluster` on a kernel without TMA/events or without `raster`",
    ),
    (
        TILE_COVER,
        "thread tile does not divide its tile (an extent `A / B` with a remainder)",
    ),
    (
        UNINIT_READ,
        "shared/local tile read before it is written, or never written",
    ),
    (
        UNUSED_PARAM,
        "warning: kernel parameter never used (the emitted signature leaves it out)",
    ),
    (NON_POSITIVE_EXTENT, "loop or grid extent zero or negative"),
    (
        DIV_ZERO,
        "division or `cdiv` by zero in a kernel expression",
    ),
    (OVERFLOW, "integer arithmetic overflows 64 bits"),
    (
        ARRIVALS,
        "`trigger` arrivals per phase differ from the barrier's count (other threads)",
    ),
    (
        RING_DEADLOCK,
        "event ring deadlocks: a `wait` nothing can satisfy (missing initial credits)",
    ),
    (
        RING_AHEAD,
        "event ring runs ahead: a phase completes twice before it is waited on (double trigger)",
    ),
    (
        TILE_STRIDE,
        "warning: `block # ...` stride or loaded tile size differs from the grid's tile",
    ),
    (
        GLOBAL_RW,
        "warning: global tensor written and read at other elements (race between blocks)",
    ),
    (
        SAME_ELEMENT_STORE,
        "warning: store index ignores a thread variable of the executing level (same element)",
    ),
    (
        SHARED_RACE,
        "warning: shared element written by one thread, read by another, no barrier between",
    ),
    (
        SHARED_WRITE_RACE,
        "warning: shared element written by two threads with no barrier between",
    ),
    (
        EVENT_PARTICIPANTS,
        "warning: `event<N>` states another number of threads than wait on or trigger the event",
    ),
    (
        NAMED_BARRIER_COUNTS,
        "warning: two uses of one named barrier count different numbers of threads",
    ),
    (
        UNBOUNDED_INDEX,
        "warning: an index into a shared or local tensor that nothing bounds on some side",
    ),
    (
        ASYNC_IN_FLIGHT,
        "warning: a shared tile read while an `.async` copy into it may still be in flight",
    ),
    (
        FRESH_COPY,
        "copy into a fresh buffer (`=> shared`): declare the destination",
    ),
    (
        ASYNC_REGISTER_COPY,
        "`dma.copy.async` into or out of registers",
    ),
    (
        COPY_DIRECTION,
        "`dma.copy` direction not implemented (shared → global, shared → shared)",
    ),
    (
        SHARED_COPY_RANK,
        "cooperative copy between global and shared memory of a tile that is not made of rows",
    ),
    (
        REGISTER_COPY_RANK,
        "register-tile copy of a tile that is not 1-D or 2-D",
    ),
    (
        TRANSPOSE_TARGET,
        "`.transpose()` as a register tile copy's destination",
    ),
    (COMPOUND_GLOBAL, "compound assignment to a global element"),
    (
        ASSIGN_TILE,
        "assignment to a view that is not a single element",
    ),
    (BLOCK_VARS, "`: block` level of more than 3 variables"),
    (RASTER_RANK, "`raster` on a `: block` level that is not 2-D"),
    (
        PERSISTENT_RANK,
        "`persistent` on a `: block` level that is not 1-D or 2-D",
    ),
    (TRIGGER_IN_IF, "`trigger` under an `if`"),
    (TMA_RANK, "`tma.copy` of a tile that is not 2-D"),
    (
        ACC_UNUSED,
        "`mma.fill` accumulator that no `mma.row.row` uses",
    ),
    (
        STAGE_SHAPE,
        "async copies into one `.transpose()`d tensor with different tile shapes",
    ),
    (
        NOT_INTEGER,
        "extent, shape, count or `.subspan` size that is not integer arithmetic",
    ),
    (
        MULTICAST_WAIT,
        "multicast TMA load under `cluster` without a `wait` before it",
    ),
    (
        REGISTER_ROWS,
        "2-D register tile copy whose other side's row count is written differently",
    ),
    (
        COMPOSE_STRIDE,
        "`a # b` with `b` not a loop or parallel variable",
    ),
    (
        CHUNK_INDEX,
        "a `.chunkat` index that is not a loop or parallel variable, a composition of them or `_`",
    ),
    (
        EVENT_WAIT_MIX,
        "an event waited both by generation (`e.at(k)`) and by barrier (`e[i]`)",
    ),
    (
        COPY_TILE_VARIES,
        "a copy through shared memory, made by the whole block together, whose tile differs between the block's threads",
    ),
    (
        NOT_LOWERED_DEVICE_ASSERT,
        "not supported yet: an `assert` over a value the kernel computes",
    ),
    (
        LOWER_INTERNAL,
        "lowering failed on a checked kernel (internal error)",
    ),
    (
        NOT_LOWERED_STMT,
        "not supported yet: a statement no lowering handles (`return`, `call`, `println`, …)",
    ),
    (
        NOT_LOWERED_DTYPE,
        "not supported yet: an element type no lowering handles",
    ),
    (
        NOT_LOWERED_FP6_FP4,
        "not supported yet: a 6-/4-bit float element type (`f6_e2m3`, `f6_e3m2`, `f4_e2m1`)",
    ),
    (
        NOT_LOWERED_RETURN,
        "not supported yet: a `__co__` function that returns a value",
    ),
    (
        NOT_LOWERED_MATH,
        "not supported yet: a math built-in (`exp`, `sqrt`, …) in a kernel",
    ),
    (
        NOT_LOWERED_GLOBAL_DECL,
        "not supported yet: a global tensor declared in the kernel body",
    ),
    (
        NOT_LOWERED_DECL,
        "not supported yet: a declaration initializer, `= ready` events or `frag` tiles",
    ),
    (
        NOT_LOWERED_VIEW,
        "not supported yet: a view or field beyond `.at`, `.subspan`, `.chunkat`, `.data`",
    ),
    (
        TRIGGER_AFTER_WAITED,
        "`trigger … after f` on a future already waited on",
    ),
    (
        TRIGGER_AFTER_DMA,
        "`trigger … after f` where `f` is not a TMA copy's future",
    ),
    (
        NOT_LOWERED_WARP_MMA,
        "not supported yet: a warp-level `mma` (under `: group`) in a kernel with a `: group-4` level",
    ),
    (
        WARP_MMA_SHAPE,
        "warp-level `mma` A tile not 2-D, or an M no `mma.sync` shape of its type tiles",
    ),
    (
        WARP_MMA_N,
        "warp-level `mma` B tile's N not a multiple of 8",
    ),
    (
        WARP_MMA_K,
        "warp-level `mma` K no `mma.sync` shape of its type tiles",
    ),
    (
        WARP_MMA_K_MISMATCH,
        "warp-level `mma` A and B tiles of different K",
    ),
    (
        WARP_MMA_DTYPE,
        "warp-level `mma` operand types differ, or no `mma.sync` takes them",
    ),
    (
        WARP_MMA_ACC,
        "warp-level `mma` accumulator type the instruction does not have",
    ),
    (
        WARP_MMA_STATIC,
        "warp-level `mma` fragment shape known only at launch",
    ),
    (
        WARP_MMA_ACC_SHAPE,
        "one warp accumulator updated as tiles of two shapes",
    ),
    (
        WARP_MMA_STORE_SHAPE,
        "`mma.store` of a warp accumulator into a tile of another shape",
    ),
    (
        WARP_MMA_SPACE,
        "warp-level `mma` operand or store in local memory",
    ),
    (
        WARP_MMA_COMMIT,
        "`mma.commit` in a kernel whose `mma`s are warp-level",
    ),
    (
        WARP_MMA_ROLE,
        "warp-level `mma` operand used as A and B, or in two major orders",
    ),
    (WARP_MMA_UNUSED, "warp-level `mma.load` that no `mma` reads"),
    (
        NOT_LOWERED_WARP_STORE_VIEW,
        "not supported yet: `mma.store` of a view of a warp accumulator",
    ),
    (
        NOT_LOWERED_FRAG_ARRAY,
        "not supported yet: an accumulator array outside a warp-level `mma` kernel",
    ),
    (ATTRIBUTE, "malformed or misplaced `[[…]]` attribute"),
    (
        NOT_LOWERED_ATTRIBUTE,
        "not supported yet: `[[…]]` attributes",
    ),
    (
        TMA_BOX_RUNTIME,
        "TMA box extent depends on a value known only in the kernel",
    ),
    (
        NOT_LOWERED_DIRECT_OPERAND,
        "not supported yet: shared tensors read directly as `mma` operands",
    ),
    (
        MISPLACED_JUMP,
        "`break`/`continue` outside a loop, or `yield` outside a `parallel`",
    ),
    (
        NOT_LOWERED_SCALAR_PARAM,
        "not supported yet: scalar parameters",
    ),
    (
        NOT_LOWERED_MN_MAJOR,
        "not supported yet: an MN-major (`col`) WGMMA operand of 16-bit elements",
    ),
    (
        NOT_LOWERED_STORE_MODS,
        "not supported yet: `mma.store.transp` / `.mask` of a warp-level accumulator",
    ),
    (
        WGMMA_8BIT_MAJOR,
        "8-bit WGMMA (f8, s8) needs both operands K-major (`mma.row.row`)",
    ),
    (
        WGMMA_K_SPLIT,
        "a WGMMA operand read in several K-steps from a shared tensor without a swizzle",
    ),
    (
        PROMOTE,
        "`promote P;` with P not an integer ≥ 0, or no f8 `mma` with an f32 accumulator",
    ),
    (
        MMA_SCALE_TYPE,
        "`mma….scale` with integer operands or an accumulator other than f32/f16",
    ),
    (
        MMA_SCALE_LHS,
        "`mma….scale` A-side scale that is neither one value nor an f32 `[M, 1]` column",
    ),
    (
        MMA_SCALE_RHS,
        "`mma….scale` B-side scale that is not one value",
    ),
    (
        NOT_LOWERED_WARP_ASYNC,
        "not supported yet: `mma….async` of a warp-level `mma`",
    ),
    (
        NOT_LOWERED_WARP_SCALE,
        "not supported yet: `mma….scale` of a warp-level `mma`",
    ),
    (
        ASYNC_STORE,
        "`dma.copy.async` from shared to global memory (the store is synchronous)",
    ),
    (
        STORE_TRANSPOSE,
        "a shared → global `dma.copy` with a `.transpose()`d side",
    ),
    (
        FRESH_SHAPE,
        "a fresh `=> shared` buffer whose shape is not a static `.subspan(…)` tile",
    ),
    (
        NOT_LOWERED_FUTURE,
        "not supported yet: a `dma.copy` future with modifiers, `after`, `=> local`, or on the TMA/WGMMA path",
    ),
    (
        CLUSTER_SHAPE,
        "`: cluster` blocks per cluster not in 1..=8 (1..=16 with `nonportable_cluster;`)",
    ),
    (
        CLUSTER_NESTING,
        "`: cluster` level not directly above the `: block` level",
    ),
    (MULTICAST_NO_CLUSTER, "`.multicast` without a cluster"),
    (
        MULTICAST_NOT_TMA,
        "`.multicast` on a copy that is not a TMA load into shared memory",
    ),
    (
        MULTICAST_UNSHARED,
        "`.multicast` load whose tile differs in every block of the cluster",
    ),
    (
        CLUSTER_GRID,
        "`: cluster` over a `: block` level it cannot tile (not 2-D, not Hopper)",
    ),
    (
        CLUSTER_PADDED_WRITE,
        "global write other than a TMA store under a `: cluster` level",
    ),
    (
        MULTICAST_SLICE,
        "`.multicast` tile rows not a multiple of 8 × the blocks sharing it",
    ),
    (
        NOT_LOWERED_CLUSTER_RANK,
        "not supported yet: `: cluster` variables used as values",
    ),
    (
        NOT_LOWERED_SYNC_MULTICAST,
        "not supported yet: `.multicast` on a TMA load bound to a future",
    ),
    (
        CLUSTER_TRIGGER,
        "`trigger.cluster` in a kernel without clusters",
    ),
    (
        NOT_LOWERED_CLUSTER_TRIGGER,
        "not supported yet: `trigger.cluster` on an event that does not guard a multicast load",
    ),
    (
        NOT_LOWERED_PARTIAL_GROUP,
        "not supported yet: a `group`/`group-4` level whose inner levels span fewer threads",
    ),
    (
        NOT_LOWERED_UNNAMED_DIM,
        "not supported yet: unnamed parameter dimensions (`?`, `mdspan<N>`)",
    ),
    (
        MISSING_RETURN,
        "a function with a return type returns no value",
    ),
    (VOID_RETURN, "a `void` function returns a value"),
    (
        BAD_STREAM,
        "`parallel<s>` names no `stream` parameter, or a stream parameter is declared twice",
    ),
    (PARAM_DIM, "a parameter dimension below 1"),
    (
        UNROLL_FACTOR,
        "an unroll factor that is not a positive compile-time integer or exceeds the loop",
    ),
    (
        NOT_LOWERED_VIEW_LET,
        "not supported yet: a view bound to a name",
    ),
    (
        NOT_LOWERED_STREAM,
        "not supported yet: streams and asynchronous `parallel` launches",
    ),
    (
        SPARSE_K,
        "sparse WGMMA: B's K is not a multiple of the instruction's K (32 for 16-bit, 64 for 8-bit)",
    ),
    (
        SPARSE_PACKED_K,
        "sparse WGMMA: the packed A's K is not half of B's K",
    ),
    (
        SPARSE_META,
        "sparse WGMMA: the metadata is not an `mma.load` of a plain u8 shared tile",
    ),
    (
        SPARSE_META_SHAPE,
        "sparse WGMMA: the metadata tile is not [M, K/8]",
    ),
    (
        NOT_LOWERED_SPARSE_WARP,
        "not supported yet: a warp-level sparse `mma`",
    ),
    (NOT_LOWERED_SPARSE_INT, "not supported yet: sparse s8 WGMMA"),
    (
        NOT_LOWERED_SPARSE_PROMOTE,
        "not supported yet: `promote` of a sparse `mma`",
    ),
    (
        NOT_LOWERED_U8,
        "not supported yet: a u8 tensor that is not sparsity metadata",
    ),
    (
        BAD_SWAP,
        "`swap(a, b)` of names that are not two futures of one buffer shape",
    ),
    (
        ANY_FUTURE_UNUSED,
        "a placeholder future (`dma.any`) that no copy or `swap` gives a buffer",
    ),
    (
        NOT_LOWERED_SWAP,
        "not supported yet: `dma.any`/`tma.any` and `swap` beyond `dma.copy` futures of fresh shared buffers",
    ),
    (
        FRAG_ELEM_NOT_ACC,
        "element-wise work on a fragment that is not an accumulator",
    ),
    (
        FRAG_WHOLE_INDEXED,
        "whole-fragment arithmetic that indexes the fragment",
    ),
    (
        FRAG_ELEM_INDEX,
        "an accumulator inside its `apply` other than as `acc.at(i, j)`",
    ),
    (
        FRAG_APPLY_VARS,
        "`apply` over an accumulator without two variables",
    ),
    (
        FRAG_APPLY_BODY,
        "a copy, `mma` or loop inside an accumulator's `apply`",
    ),
    (
        NOT_LOWERED_FRAG_ELEM_ORDER,
        "not supported yet: element-wise work on a warp accumulator before its first `mma`",
    ),
    (
        FRAG_TILE_INDEX,
        "a `frag` tile inside an `apply` not at the element's own row and column",
    ),
    (
        FRAG_OP,
        "`copy` / `reduce_*` of fragments whose shapes do not match",
    ),
    (
        NOT_LOWERED_FRAG_TILE_USE,
        "not supported yet: a `frag` tile outside `apply`, `copy` and the row reductions",
    ),
    (
        REG_B,
        "register fragment as the B operand of a WGMMA (B comes from shared memory)",
    ),
    (
        REG_A_MAJOR,
        "register-A WGMMA with an MN-major (`col`) A: register fragments are K-major",
    ),
    (
        FRAG_LOAD_USE,
        "`mma.load.frag` result not used as the A operand of a warpgroup `mma`",
    ),
    (
        NOT_LOWERED_REG_A_8BIT,
        "not supported yet: register-A WGMMA with 8-bit operands",
    ),
    (
        NOT_LOWERED_REG_A_FORM,
        "not supported yet: register-A WGMMA written `.sp`, `.scale` or under `promote`",
    ),
    (
        NOT_LOWERED_PINGPONG_CLUSTER,
        "not supported yet: `pingpong` under a `: cluster` level",
    ),
    (
        NOT_LOWERED_PARALLEL_SHADOW,
        "not supported yet: a name declared again inside a nested `parallel`",
    ),
    (
        NOT_LOWERED_FRAG_REBIND,
        "not supported yet: a WGMMA operand fragment loaded twice under one name in one block",
    ),
    (
        PINGPONG_PERSISTENT,
        "`pingpong` in a kernel that is not `persistent`",
    ),
    (
        STREAMK_PERSISTENT,
        "`streamk` in a kernel that is not `persistent`",
    ),
    (STREAMK_PINGPONG, "`streamk` together with `pingpong`"),
    (STREAMK_CLUSTER_LEVEL, "`streamk` under a `: cluster` level"),
    (
        STREAMK_MAIN_LOOP,
        "`streamk` without one main k-loop per `inthreads` branch over one extent",
    ),
    (
        STREAMK_ACCUMULATOR,
        "`streamk` main loops not accumulating into one `mma.fill.f32` fragment",
    ),
    (
        PINGPONG_ROLES,
        "`pingpong` without one producer branch on warpgroup 0 and one consumer branch `wg >= L`",
    ),
    (
        PINGPONG_GENERATION,
        "`wait e.at(k)` in a `pingpong` consumer branch",
    ),
    (
        PINGPONG_TRIGGER,
        "an event the `pingpong` consumers trigger, triggered elsewhere too",
    ),
    (
        PINGPONG_SHARED_STORE,
        "a `pingpong` consumer's `mma.store` into a shared tile not chosen by its warpgroup",
    ),
    (
        NOT_LOWERED_SCALE_MIX,
        "not supported yet: an `mma.scale`d accumulator also fed by a `.scale` or register-A `mma` or under `promote`",
    ),
    (
        FRAG_PREFETCH_TARGET,
        "`[[frag_prefetch]]` not on a one-variable `foreach` of warp-level `mma`s",
    ),
    (
        FRAG_PREFETCH_WAIT,
        "`[[frag_prefetch]]` loop that does not begin with its `dma.wait`",
    ),
    (
        FRAG_PREFETCH_BODY,
        "`[[frag_prefetch]]` loop: not wait, async copies, then the k-step loop",
    ),
    (
        FRAG_PREFETCH_ORDER,
        "`[[frag_prefetch]]` k-step: not its loads followed by plain `mma`s",
    ),
    (
        FRAG_PREFETCH_OPERAND,
        "`[[frag_prefetch]]` k-step: an operand loaded elsewhere, or a load no `mma` reads",
    ),
    (
        FRAG_PREFETCH_SOURCE,
        "`[[frag_prefetch]]` operand not loaded from shared memory",
    ),
    (
        FRAG_PREFETCH_STEPS,
        "`[[frag_prefetch]]` tile with an odd or unknown number of k-steps",
    ),
    (
        KERNEL_SCOPE_EFFECT,
        "not supported yet: a statement with an effect outside every `parallel` (only scalar values are computed there)",
    ),
    (
        NOT_LOWERED_WARP_SWIZZLE_SHAPE,
        "not supported yet: a swizzled warp `mma` operand tile that is not whole full-shape `mma.sync` instructions",
    ),
    (
        NOT_LOWERED_WARP_SWIZZLE_CP_ASYNC,
        "not supported yet: a swizzled warp `mma` operand tile in a kernel without TMA loads",
    ),
    (
        NOT_LOWERED_WARP_SWIZZLE_ACC,
        "not supported yet: a warp accumulator loaded from or stored to a swizzled shared tile",
    ),
    (
        NOT_LOWERED_WARP_TMA_SCHEDULE,
        "not supported yet: `persistent`, clusters, `pingpong`, `.multicast`, `promote` or `.scale` in a warp kernel with TMA or events",
    ),
    (
        NOT_LOWERED_WARP_TMA_ELEMENTWISE,
        "not supported yet: element-wise work on warp accumulators, `frag` tiles or re-fills in a warp kernel with TMA or events",
    ),
    (
        TRIGGER_RUNTIME_THREADS,
        "a `trigger` under an `inthreads` condition on a value known only at run time",
    ),
    (TMA_BOX_TOO_LARGE, "a TMA box dimension over 256 elements"),
    (
        ATOMIC,
        "an atomic update of a register tile or of an element type its atomic does not take",
    ),
    (
        NAMED_BARRIER,
        "a named barrier whose id is not a constant in 1..=15 or whose thread count is not a constant multiple of 32 the block has",
    ),
    (
        BARRIER_DIVERGENT,
        "a block barrier under a condition that may differ between the threads of a block, or a warp's between the lanes of a warp",
    ),
    (RETURN_IN_PARALLEL, "a `return` inside a `parallel`"),
    (
        NOT_LOWERED_LAUNCH_SIZED,
        "not supported yet: a shared or local buffer sized at launch",
    ),
    (
        RETURN_KIND,
        "a `return` of a future, a placeholder, an index or an i-tuple (not a tensor or a scalar)",
    ),
    (
        NOT_LOWERED_HEADER_SHADOW,
        "not supported yet: a scalar parameter hidden by a body declaration of its name",
    ),
    (
        LOAD_INTO_NOT_FRAG,
        "`mma.load src, t;` into something other than a declared `frag` tile",
    ),
    (
        LOAD_INTO_SHAPE,
        "`mma.load src, t;` of a tile whose shape is not the `frag` tile's",
    ),
    (
        EXTENT_NOT_INTEGER,
        "a `parallel` extent that is a float or a `bool`, not an integer",
    ),
    (
        NOT_INTEGER_OPERAND,
        "a floating-point value where C++ takes an integer (an index, `&`, `|`, `^`, `<<`, `>>`)",
    ),
    (
        PAD_ARITY,
        "`dma.pad` without its four arguments `<low, high, mid, value>`",
    ),
    (
        PAD_RANK,
        "a `dma.pad` padding i-tuple with other than one entry per source dimension",
    ),
    (
        NOT_LOWERED_LAUNCH_THREADS,
        "not supported yet: a thread-level `parallel` extent known only at launch",
    ),
    (
        PAD_MIDDLE,
        "a `dma.pad` with non-zero middle padding (not supported on the CUDA target)",
    ),
    (
        EVENT_DIVERGENT_DECL,
        "an event declared under a condition that may differ between the threads of a block",
    ),
    (
        NOT_LOWERED_DIVERGENT_SYNC_TMA,
        "not supported yet: a TMA load on no event under a condition that may differ between the threads of a block",
    ),
    (
        NOT_LOWERED_DIVERGENT_DMA,
        "not supported yet: a `dma.copy` to or from shared memory under a condition that may differ between the threads of a block",
    ),
];
