//! `mma.store` of a column slice of an accumulator (`mc.subspan(WARP_M, W).at(0, h)`,
//! `mc.chunkat(_, h)`): whole rows, a width that is a multiple of 8 dividing N, the
//! destination's shape, a dense destination, indices known after unrolling and in range.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::codes as c;
use dsl_core::ir::{DType, Module};

const F16: DType = DType::F16;
const A: &str = "lhs_s.chunkat(_, iv_wk)";
const BB: &str = "rhs_s.chunkat(_, iv_wk)";

/// v2 (WARP_N = 128) whose epilogue is `foreach {h} in [halves] : unroll` (or a plain
/// `foreach` when `unroll` is false) storing `view` into `dst`; `output_s` is `[WARP_M, cols]`.
fn sliced(cols: &str, halves: &str, unroll: bool, view: &str, dst: &str) -> Module {
    wgmma(
        |_| {},
        |b| {
            let mut v = v2_body(b, A, BB, F16, DType::F32);
            v[2] = b.shared(F16, &["WARP_M", cols], "output_s", None);
            let body = |b: &mut check_support::B| vec![b.store_view("mc", view, dst)];
            v[5] = match unroll {
                true => b.foreach_unroll(&["h"], &[halves], body),
                false => b.foreach(&["h"], &[halves], body),
            };
            v
        },
    )
}

#[test]
fn column_slices_pass() {
    check_ok(&sliced(
        "64",
        "2",
        true,
        "mc.subspan(WARP_M, 64).at(0, h)",
        "output_s",
    ));
    check_ok(&sliced("64", "2", true, "mc.chunkat(_, h)", "output_s"));
    check_ok(&sliced(
        "WARP_N / 4",
        "4",
        true,
        "mc.subspan(WARP_M, WARP_N / 4).at(0, h)",
        "output_s",
    ));
    // A constant column needs no loop at all.
    let m = wgmma(
        |_| {},
        |b| {
            let mut v = v2_body(b, A, BB, F16, F16);
            v[2] = b.shared(F16, &["WARP_M", "8"], "output_s", None);
            v[5] = b.store_view("mc", "mc.subspan(WARP_M, 8).at(0, 15)", "output_s");
            v
        },
    );
    check_ok(&m);
}

#[test]
fn a_slice_spans_all_rows() {
    let m = sliced("64", "2", true, "mc.subspan(32, 64).at(0, h)", "output_s");
    let d = check_err(&m);
    let e = only(&d, c::ACC_SLICE_ROWS);
    assert_eq!(e.span, m.expr_span(find(&m, "32")[0]));
    assert!(
        e.message
            .contains("must span all of its WARP_M = 64 rows (a WGMMA fragment splits by columns only); this one has 32"),
        "{e}"
    );
    assert!(mentions(e, "`mc.subspan(WARP_M, W).at(0, j)`"), "{e}");
    assert_eq!(d.len(), 1, "{d}");
    // chunkat over the rows: the same error, at the view.
    let m = sliced("WARP_N", "2", true, "mc.chunkat(h, _)", "output_s");
    let d = check_err(&m);
    let e = only(&d, c::ACC_SLICE_ROWS);
    assert_eq!(e.span, m.expr_span(find(&m, "mc.chunkat(h, _)")[0]));
    assert_eq!(d.len(), 1, "{d}");
}

#[test]
fn a_slice_is_whole_8_column_groups_dividing_n() {
    // 4 divides 128 but splits the register groups.
    let m = sliced("4", "2", true, "mc.subspan(WARP_M, 4).at(0, h)", "output_s");
    let d = check_err(&m);
    let e = only(&d, c::ACC_SLICE_COLS);
    assert_eq!(e.span, m.expr_span(find(&m, "4")[1]));
    assert!(
        e.message.contains(
            "must be whole 8-column register groups, a multiple of 8 columns dividing N = WARP_N = 128; this one is 4 wide — try 8"
        ),
        "{e}"
    );
    assert!(mentions(e, "8, 16, 32, 64, 128"), "{e}");
    assert_eq!(d.len(), 1, "{d}");
    // 48 is whole groups but does not divide 128.
    let m = sliced(
        "48",
        "2",
        true,
        "mc.subspan(WARP_M, 48).at(0, h)",
        "output_s",
    );
    let d = check_err(&m);
    let e = only(&d, c::ACC_SLICE_COLS);
    assert!(
        e.message.ends_with("this one is 48 wide — try 32 or 64"),
        "{e}"
    );
    assert_eq!(d.len(), 1, "{d}");
}

#[test]
fn the_destination_has_the_slice_shape() {
    let m = sliced(
        "WARP_N",
        "2",
        true,
        "mc.subspan(WARP_M, 64).at(0, h)",
        "output_s",
    );
    let d = check_err(&m);
    let e = only(&d, c::MMA_STORE_SHAPE);
    // (The last `output_s`: v2_body's own store stays in the arena, out of the body.)
    assert_eq!(e.span, m.expr_span(*find(&m, "output_s").last().unwrap()));
    assert!(
        e.message.contains("writes a [WARP_M = 64, 64] slice of the [WARP_M = 64, WARP_N = 128] accumulator `mc` into a [WARP_M = 64, WARP_N = 128] tile"),
        "{e}"
    );
    assert_eq!(d.len(), 1, "{d}");
}

#[test]
fn the_destination_is_dense() {
    // The slice's shape, but rows WARP_N apart: the fragment would be written with pitch 64.
    let m = sliced(
        "WARP_N",
        "2",
        true,
        "mc.subspan(WARP_M, 64).at(0, h)",
        "output_s.subspan(WARP_M, 64).at(0, h)",
    );
    let d = check_err(&m);
    let e = only(&d, c::MMA_STORE_DENSE);
    assert!(
        e.message.contains(
            "writes rows of 64 elements back to back, but the rows of `output_s` are 128 elements apart"
        ),
        "{e}"
    );
    assert_eq!(d.len(), 1, "{d}");
    // The whole accumulator into a sub-tile of a wider tile: the same.
    let m = wgmma(
        |_| {},
        |b| {
            let mut v = v2_body(b, A, BB, F16, F16);
            v[2] = b.shared(F16, &["WARP_M", "2 * WARP_N"], "output_s", None);
            v[5] = b.store("mc", "output_s.subspan(WARP_M, WARP_N).at(0, 1)");
            v
        },
    );
    let d = check_err(&m);
    only(&d, c::MMA_STORE_DENSE);
    assert_eq!(d.len(), 1, "{d}");
}

#[test]
fn the_column_is_known_after_unrolling() {
    // A plain foreach of a static trip count unrolls whole, as `: unroll` does.
    check_ok(&sliced(
        "64",
        "2",
        false,
        "mc.subspan(WARP_M, 64).at(0, h)",
        "output_s",
    ));
    // A column that depends on the block is a run-time value: the accumulator would go to
    // local memory.
    let m = sliced(
        "64",
        "2",
        true,
        "mc.subspan(WARP_M, 64).at(0, (h + block_n) % 2)",
        "output_s",
    );
    let d = check_err(&m);
    let e = only(&d, c::LOCAL_INDEX);
    assert!(
        e.message.contains(
            "`mc` is a register tile, but the index `(h + block_n) % 2` depends on `block_n`, which is only known at run time"
        ),
        "{e}"
    );
    assert_eq!(d.len(), 1, "{d}");
}

#[test]
fn slice_indices_stay_in_range() {
    // Four 64-column slices of a 128-column accumulator.
    let m = sliced(
        "64",
        "4",
        true,
        "mc.subspan(WARP_M, 64).at(0, h)",
        "output_s",
    );
    let d = check_err(&m);
    let e = only(&d, c::TILE_RANGE);
    assert!(
        e.message.contains(
            "index `h` ranges over [0, 4) here, but `mc` has 2 tiles along dimension 1 in this view"
        ),
        "{e}"
    );
    assert_eq!(d.len(), 1, "{d}");
    // Row tile 1 of a 64-row accumulator.
    let m = sliced(
        "64",
        "2",
        true,
        "mc.subspan(WARP_M, 64).at(1, h)",
        "output_s",
    );
    let d = check_err(&m);
    only(&d, c::TILE_RANGE);
    assert_eq!(d.len(), 1, "{d}");
}

#[test]
fn a_transposed_slice_is_not_a_store() {
    let m = sliced("64", "2", true, "mc.transpose()", "output_s");
    let d = check_err(&m);
    only(&d, c::TRANSPOSE);
    assert_eq!(d.len(), 1, "{d}");
}
