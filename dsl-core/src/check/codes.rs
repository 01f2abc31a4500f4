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
/// WGMMA K is not 16 (f16/bf16), or A and B disagree on K.
pub const WGMMA_K: &str = "E0303";
/// WGMMA operand dtypes differ or are not f16/bf16.
pub const WGMMA_DTYPE: &str = "E0304";
/// Accumulator dtype is not f16/f32, or bf16 operands with a non-f32 accumulator.
pub const WGMMA_ACC: &str = "E0305";
/// f8 element types: not supported yet.
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
/// A `group-4` level that does not enclose exactly 128 threads.
pub const GROUP4: &str = "E0602";
/// A `group` level that does not enclose exactly 32 threads.
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

/// A `require` that is false for this configuration / problem.
pub const REQUIRE: &str = "E1001";
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
/// `cluster C` with `C` not an integer in 1..=8 (blocks per cluster) for this configuration.
pub const CLUSTER: &str = "E1007";
/// `cluster` on a kernel that is not on the Hopper path or has no `raster`.
pub const CLUSTER_PATH: &str = "E1008";

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
/// Not supported yet: `mma` under a `: group` level (warp-level tensor cores).
pub const NOT_LOWERED_WARP_MMA: &str = "E1310";
/// A warp-level `mma` (under `: group`) whose operand shape no `mma.sync`/`wmma` has.
pub const WARP_MMA_SHAPE: &str = "E1311";
/// A malformed or misplaced `[[…]]` attribute.
pub const ATTRIBUTE: &str = "E1312";
/// Not supported yet: `[[…]]` attributes.
pub const NOT_LOWERED_ATTRIBUTE: &str = "E1313";
/// A TMA box extent that depends on values known only in the kernel.
pub const TMA_BOX_RUNTIME: &str = "E1314";
/// Not supported yet: shared tensors read directly as `mma` operands.
pub const NOT_LOWERED_DIRECT_OPERAND: &str = "E1315";
/// Not supported yet: a `dma.copy` direction or tile the copy lowering does not handle.
pub const NOT_LOWERED_COPY: &str = "E1316";
/// `break`/`continue` outside a loop, `yield` outside a `parallel`.
pub const MISPLACED_JUMP: &str = "E1317";
/// Not supported yet: scalar parameters.
pub const NOT_LOWERED_SCALAR_PARAM: &str = "E1309";

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
    (WGMMA_K, "WGMMA K is not 16 (f16/bf16) or A/B disagree on K"),
    (
        WGMMA_DTYPE,
        "WGMMA operand dtypes differ or are not f16/bf16",
    ),
    (
        WGMMA_ACC,
        "accumulator not f16/f32, or bf16 operands without an f32 accumulator",
    ),
    (F8, "f8 element types are not supported yet"),
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
    (
        GROUP4,
        "`group-4` level does not enclose exactly 128 threads",
    ),
    (GROUP, "`group` level does not enclose exactly 32 threads"),
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
    (REQUIRE, "`require` false for this configuration / problem"),
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
        CLUSTER,
        "`cluster` not an integer in 1..=8 blocks per cluster",
    ),
    (
        CLUSTER_PATH,
        "`cluster` on a kernel without TMA/events or without `raster`",
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
        "not supported yet: `mma` under a `: group` level (warp-level tensor cores)",
    ),
    (
        WARP_MMA_SHAPE,
        "warp-level `mma` operand shape not 8/16 rows × K 4/8/16/32",
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
        NOT_LOWERED_COPY,
        "not supported yet: a `dma.copy` direction or tile shape the lowering does not handle",
    ),
    (
        MISPLACED_JUMP,
        "`break`/`continue` outside a loop, or `yield` outside a `parallel`",
    ),
    (
        NOT_LOWERED_SCALAR_PARAM,
        "not supported yet: scalar parameters",
    ),
];
