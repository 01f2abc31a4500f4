//! `.view(R, C).from(i, j)`: a window of R × C elements placed at element (i, j). It lowers as a
//! whole operand of a `dma.copy` on a global tensor (the copies bound it by the tensor's
//! extents, zeros past the edge); each offset must be at least 0 where it is used (`E0703`);
//! other windows (of shared tensors, under an element access) are not lowered yet (`E1307`).

mod source_support;

use source_support::{body, lowered};

/// A block stages `window` of x into `s` and stores `s` through `out` (each a copy operand).
fn kernel(params: &str, window: &str, out: &str) -> String {
    format!(
        "__co__ void k(f32 [M, N] x, f32 [M, N] y{params}) {{\n  parallel {{p}} by [cdiv(M, 16)] : block, {{t}} by [64] : thread {{\n    shared f32 [16, 32] s;\n    dma.copy {window} => s;\n    dma.copy s => {out};\n  }}\n}}\n"
    )
}

#[test]
fn windows_of_global_tensors_lower_as_copy_operands() {
    let k = lowered(&kernel(
        "",
        "x.view(16, 32).from(p * 16 + 1, 3)",
        "y.view(16, 32).from(p * 16, 0)",
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    assert!(
        b.contains("tsl_copy_g2s<16, 32, 32, tsl_threads>(s, x, p * 16 + 1, 3, M, N);"),
        "{b}"
    );
    assert!(
        b.contains("tsl_copy_s2g<16, 32, 32, tsl_threads>(y, p * 16, 0, M, N, s);"),
        "{b}"
    );
}

#[test]
fn an_offset_that_may_be_negative_is_an_error() {
    for (params, window, want) in [
        ("", "x.view(16, 32).from(p * 16 - 1, 0)", "it can be -1"),
        (
            ", int o",
            "x.view(16, 32).from(p * 16 + o, 0)",
            "nothing here bounds it",
        ),
    ] {
        let c = lowered(&kernel(params, window, "y.view(16, 32).from(p * 16, 0)"))
            .err()
            .unwrap_or_default();
        assert_eq!(c.len(), 1, "{window}: {c:?}");
        assert_eq!(c[0].0, "E0703", "{window}: {c:?}");
        assert!(c[0].1.contains(want), "{window}: {c:?}");
    }
}

#[test]
fn a_guard_bounds_the_offset() {
    let src = kernel(
        ", int o",
        "x.view(16, 32).from(p * 16 + o, 0)",
        "y.view(16, 32).from(p * 16, 0)",
    )
    .replace(
        "    dma.copy x.view",
        "    if (p * 16 + o >= 0)\n      dma.copy x.view",
    );
    lowered(&src).unwrap_or_else(|c| panic!("{c:?}"));
}

#[test]
fn other_windows_are_not_lowered_yet() {
    // A window of a shared tensor, and one under an element access.
    for src in [
        kernel("", "x.subspan(16, 32).at(p, 0)", "y.subspan(16, 32).at(p, 0)").replace(
            "dma.copy s => y",
            "dma.copy x.subspan(8, 32).at(p, 0) => s.view(8, 32).from(8, 0);\n    dma.copy s => y",
        ),
        kernel("", "x.subspan(16, 32).at(p, 0)", "y.subspan(16, 32).at(p, 0)").replace(
            "dma.copy s => y",
            "y.at(p * 16, t % 32) = x.view(16, 32).from(p * 16, 0).at(0, t % 32);\n    dma.copy s => y",
        ),
    ] {
        let c = lowered(&src).err().unwrap_or_default();
        assert!(!c.is_empty() && c.iter().all(|(code, _)| *code == "E1307"), "{src}\n{c:?}");
    }
}
