//! `dma.transp<p…>` and `dma.pad<low, high, mid, v>`: what they do to a tile
//! (`check::Transform`), the fresh buffers they fill, the shapes and types they must match, and
//! which of them the SIMT path lowers (`lower/dma_transform.rs`; the rest stay `E1345`).

use dsl_core::check::{self, Config, Limits, Transform};
use dsl_core::ir::{ExtStmt, Module, Stmt};
use dsl_core::parse::parse_str;
use dsl_core::sym::Sym;

fn module(src: &str) -> Module {
    dsl_core::lower::launch_form(
        parse_str(src, Some("t.co"))
            .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
            .module,
    )
}

fn check(m: &Module) -> Result<check::KernelInfo, Vec<&'static str>> {
    check::check_config(m, &Config::defaults(m), None, &Limits::SM90)
        .map_err(|d| d.iter().map(|x| x.code).collect())
}

/// A kernel of one block of 32 threads around `body`.
fn kernel(params: &str, body: &str) -> Module {
    module(&format!(
        "__co__ void k({params}) {{\n  parallel p by 1 : block, t by 32 : thread {{\n{body}\n  }}\n}}\n"
    ))
}

/// The transform of the first `dma` statement with modifiers, for a source of `rank`.
fn transform(m: &Module, rank: usize) -> Option<Transform> {
    m.stmts.iter().find_map(|(_, s)| match s {
        Stmt::Ext(ExtStmt::DmaFuture { modifiers, .. }) => Transform::of(m, modifiers, rank),
        _ => None,
    })
}

#[test]
fn a_transform_reads_its_permutation_or_its_padding() {
    let m = kernel(
        "s32 [3, 4, 5] a, s32 [5, 3, 4] c",
        "    dma.transp<2, 0, 1> a => c;",
    );
    let t = transform(&m, 3).expect("a permutation");
    assert_eq!(t, Transform::Transpose(vec![2, 0, 1]));
    let ints = |v: &[i64]| v.iter().map(|&x| Sym::Int(x)).collect::<Vec<_>>();
    assert_eq!(t.shape(&ints(&[3, 4, 5])), ints(&[5, 3, 4]));
    // Not a permutation of three dimensions: no transform (the checker reports it).
    assert_eq!(transform(&m, 2), None);
    let m = kernel("s32 [3, 4] a, s32 [3, 4] c", "    dma.transp<1, 1> a => c;");
    assert_eq!(transform(&m, 2), None);
    let m = kernel(
        "f32 [8, 8] a, f32 [12, 9] c",
        "    dma.pad<{1, 0}, {3, 1}, {0, 0}, 2.0f> a => c;",
    );
    let t = transform(&m, 2).expect("padding");
    assert_eq!(t.shape(&ints(&[8, 8])), ints(&[12, 9]));
    // Padding between elements (`mid`) is no transform the CUDA target has.
    let m = kernel(
        "f32 [8, 8] a, f32 [12, 9] c",
        "    dma.pad<{1, 0}, {3, 1}, {1, 0}, 2.0f> a => c;",
    );
    assert_eq!(transform(&m, 2), None);
}

#[test]
fn fresh_buffers_take_the_transformed_shape() {
    let m = kernel(
        "f32 [M, 48] x, f32 [48, 32] y",
        "    f = dma.transp<1, 0> x.subspan(32, 48).at(0, 0) => shared;\n    dma.copy f.data => y;",
    );
    let info = check(&m).expect("lowers");
    assert_eq!(info.smem_bytes, 48 * 32 * 4);
    dsl_core::lower::lower(&m, &info).expect("lowers");
    let m = kernel(
        "s32 [32, 64] x, s32 [36, 72] y",
        "    f = dma.pad<{2, 4}, {2, 4}, {0, 0}, 99> x => shared;\n    dma.copy f.data => y;",
    );
    let info = check(&m).expect("lowers");
    assert_eq!(info.smem_bytes, 36 * 72 * 4);
    dsl_core::lower::lower(&m, &info).expect("lowers");
}

#[test]
fn the_destination_must_be_the_transformed_tile() {
    // Padded [8, 8] by 1 + 3 rows and 0 + 1 columns is [12, 9], not [12, 8].
    let m = kernel(
        "f32 [8, 8] a, f32 [12, 8] c",
        "    dma.pad<{1, 0}, {3, 1}, {0, 0}, 2.0f> a => c;",
    );
    assert_eq!(check(&m).unwrap_err(), vec!["E0202"]);
    let m = kernel("f32 [8, 4] a, f32 [8, 4] c", "    dma.transp<1, 0> a => c;");
    assert_eq!(check(&m).unwrap_err(), vec!["E0202"]);
    // Copies do not convert element types.
    let m = kernel("f32 [8, 4] a, s32 [4, 8] c", "    dma.transp<1, 0> a => c;");
    assert_eq!(check(&m).unwrap_err(), vec!["E0203"]);
}

#[test]
fn an_async_transform_is_copied_as_it_is_issued() {
    // Its `wait` only synchronizes, and it is no `cp.async` group: waiting for the copy issued
    // before it waits for every group.
    let m = kernel(
        "s32 [32, 16] x, s32 [32, 16] b, s32 [16, 32] y, s32 [32, 16] z",
        "    g = dma.copy.async b => shared;\n    f = dma.transp<1, 0>.async x => shared;\n    wait g;\n    dma.copy g.data => z;\n    wait f;\n    dma.copy f.data => y;",
    );
    let info = check(&m).unwrap_or_else(|c| panic!("{c:?}"));
    let k = dsl_core::lower::lower(&m, &info).expect("check ok ⇒ lower ok");
    let body: String = k.body.iter().map(|l| format!("{}\n", l.op)).collect();
    assert!(body.contains("tsl_cp_async_wait_all();"), "{body}");
    assert!(!body.contains("tsl_cp_async_wait<"), "{body}");
    assert_eq!(
        body.matches("tsl_cp_async_wait_all();").count(),
        1,
        "{body}"
    );
}

#[test]
fn what_the_simt_path_does_not_lower_is_gated() {
    // A transform whose tile differs between the block's threads.
    for body in ["    dma.transp<1, 0> x.chunkat(t, _) => y.chunkat(_, t);"] {
        let m = kernel("f32 [32, 16] x, f32 [16, 32] y", body);
        let err = check(&m).unwrap_err();
        assert!(err.contains(&"E1345"), "{body}: {err:?}");
    }
}
