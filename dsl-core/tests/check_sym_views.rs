//! The checker's symbolic facts the lowering prints: every view's tile and origin
//! (`KernelInfo::sym_views`) and the launch geometry (`KernelInfo::sym_geometry`), over
//! tunables, constants and problem sizes whatever the configuration.

use dsl_core::check::{self, Config, Limits, SymView, TermForm};
use dsl_core::ir::{ExprId, Module};

const KERNEL: &str = r#"
tunable BM in [16, 32] = 32;
tunable BK in [8, 16] = 16;
__co__ void views(global f32 [M, K] x, global f32 [M, K] y) {
  parallel {bm} by [cdiv(M, BM)] : block, {t} by [BM] : thread {
    shared f32 [BM, BK] xs[2];
    foreach {kt} in [cdiv(K, BK)] {
      dma.copy x.subspan(BM, BK).at(bm, kt) => xs[kt % 2];
      foreach {j} in [BK]
        y.chunkat(bm, _).at(t, kt # j) = xs[kt % 2].at(t, j) + x.subspan(BM, BK).step(BM, 4).at(bm, kt).at(t, j);
    }
  }
}
"#;

fn checked() -> (Module, check::KernelInfo) {
    let m = dsl_core::parse::parse_str(KERNEL, None)
        .expect("parses")
        .module;
    let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::default())
        .unwrap_or_else(|d| panic!("checks:\n{d}"));
    (m, info)
}

/// The expression printed as `text`.
fn expr(m: &Module, text: &str) -> ExprId {
    m.exprs
        .iter()
        .map(|(e, _)| e)
        .find(|&e| m.expr_to_string(e) == text)
        .unwrap_or_else(|| panic!("no expression `{text}`"))
}

fn view<'a>(m: &Module, info: &'a check::KernelInfo, text: &str) -> &'a SymView {
    match &info.sym_views[&expr(m, text)] {
        Ok(v) => v,
        Err(e) => panic!("`{text}` has no symbolic view: {}", e.msg),
    }
}

fn tile(v: &SymView) -> Vec<String> {
    v.tile.iter().map(|s| s.to_cpp()).collect()
}

/// Per dimension, the origin's terms as `index*stride`.
fn origin(m: &Module, v: &SymView) -> Vec<Vec<String>> {
    v.origin
        .iter()
        .map(|ts| {
            ts.iter()
                .map(|t| format!("{}*{}", m.expr_to_string(t.index), t.stride.to_cpp()))
                .collect()
        })
        .collect()
}

#[test]
fn a_grid_tile_is_its_extent_times_its_index() {
    let (m, info) = checked();
    let v = view(&m, &info, "x.subspan(BM, BK).at(bm, kt)");
    assert_eq!(tile(v), ["BM", "BK"]);
    assert_eq!(origin(&m, v), [vec!["bm*BM"], vec!["kt*BK"]]);
    assert!(v.origin.iter().flatten().all(|t| t.form == TermForm::Tile));
    assert!(v.grid_tile && !v.element && !v.transposed);
    // The whole tensor: its declared shape, no origin terms.
    let w = view(&m, &info, "x");
    assert_eq!(tile(w), ["M", "K"]);
    assert!(w.origin.iter().all(Vec::is_empty) && !w.grid_tile);
}

#[test]
fn a_stepped_tiling_strides_by_its_step_and_is_no_grid_tile() {
    let (m, info) = checked();
    let v = view(&m, &info, "x.subspan(BM, BK).step(BM, 4).at(bm, kt)");
    assert_eq!(tile(v), ["BM", "BK"]);
    assert_eq!(origin(&m, v), [vec!["bm*BM"], vec!["kt*4"]]);
    assert!(!v.grid_tile);
    // An element of it adds the element's indices.
    let e = view(
        &m,
        &info,
        "x.subspan(BM, BK).step(BM, 4).at(bm, kt).at(t, j)",
    );
    assert!(e.element);
    assert_eq!(tile(e), ["1", "1"]);
    assert_eq!(origin(&m, e), [vec!["bm*BM", "t*1"], vec!["kt*4", "j*1"]]);
}

#[test]
fn a_chunk_of_a_cdiv_extent_is_the_divisor_and_an_array_entry_is_recorded() {
    let (m, info) = checked();
    let v = view(&m, &info, "y.chunkat(bm, _).at(t, kt # j)");
    assert!(v.element);
    // `bm` has extent cdiv(M, BM): chunks of BM rows.
    assert_eq!(origin(&m, v)[0], ["bm*BM", "t*1"]);
    assert_eq!(v.origin[0][0].form, TermForm::Chunk);
    // `kt # j` composes: kt's steps are BK columns, j's one (the alignment strides).
    assert_eq!(origin(&m, v)[1], ["kt # j*1"]);
    let strides: Vec<String> = v.terms[1].iter().map(|s| s.to_cpp()).collect();
    assert_eq!(strides, ["BK", "1"]);
    let a = view(&m, &info, "xs[kt % 2].at(t, j)");
    assert_eq!(
        a.array_index.map(|i| m.expr_to_string(i)).as_deref(),
        Some("kt % 2")
    );
    let entry: Vec<String> = a.array_terms.iter().map(|s| s.to_cpp()).collect();
    assert_eq!(entry, ["BM * BK"]);
}

#[test]
fn the_geometry_is_symbolic() {
    let (_, info) = checked();
    let g = info.sym_geometry.as_ref().expect("a geometry");
    let grid: Vec<String> = g.grid.iter().map(|s| s.to_cpp()).collect();
    assert_eq!(grid, ["tsl_cdiv(M, BM)"]);
    assert_eq!(g.threads.to_cpp(), "BM");
    let t = g.var("t").expect("t");
    let formula = |i| {
        dsl_core::lower::emitter::par_index(i, dsl_core::lower::cxx::CExpr::var("threadIdx.x"))
            .to_string()
    };
    assert_eq!(formula(&t.index), "threadIdx.x");
    assert_eq!(formula(&g.var("bm").unwrap().index), "blockIdx.x");
}

#[test]
fn a_view_method_with_the_wrong_number_of_arguments_is_refused_without_a_panic() {
    let src = KERNEL.replace("y.chunkat(bm, _)", "y.chunkat(bm, _, t)");
    let m = dsl_core::parse::parse_str(&src, None)
        .expect("parses")
        .module;
    // The checker rejects it; the symbolic analysis, which runs all the same, does not panic.
    assert!(check::check(&m).is_err());
}

/// The declared tensors the lowering lays out (`KernelInfo::tensors`): parameters and each
/// declarator, shapes and counts in symbolic form, and the dimensions no tunable changes.
#[test]
fn declared_tensors_carry_symbolic_shapes_and_fixed_dimensions() {
    use check::Binding;
    let src = r#"
tunable BM in [16, 32] = 32;
const W = 8;
const H = BM / 2;
__co__ void decls(global f32 [M, K] x) {
  parallel {bm} by [cdiv(M, BM)] : block, {t} by [BM] : thread {
    shared f32 [BM, W] a[2], b;
    local f32 [W, H] r;
    foreach {j} in [W] : unroll {
      a[0].at(t, j) = x.at(bm, j);
      b.at(t, j) = x.at(bm, j);
      r.at(j, 0) = a[0].at(t, j) + b.at(t, j);
      x.at(bm, j) = r.at(j, 0);
    }
  }
}
"#;
    let m = dsl_core::parse::parse_str(src, None)
        .expect("parses")
        .module;
    let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::default())
        .unwrap_or_else(|d| panic!("checks:\n{d}"));
    let shape = |t: &check::DeclaredTensor| -> Vec<String> {
        t.shape
            .as_ref()
            .unwrap()
            .iter()
            .map(|s| s.to_cpp())
            .collect()
    };
    let x = &info.tensors[&Binding::Param(0)];
    assert_eq!(
        (x.name.as_str(), shape(x)),
        ("x", vec!["M".into(), "K".into()])
    );
    assert_eq!(x.fixed, [None, None]);
    let decl = |name: &str| {
        info.tensors
            .iter()
            .find(|(b, t)| matches!(b, Binding::Tensor(..)) && t.name == name)
            .map(|(_, t)| t)
            .unwrap_or_else(|| panic!("no tensor `{name}`"))
    };
    let (a, b, r) = (decl("a"), decl("b"), decl("r"));
    assert_eq!(shape(a), ["BM", "W"]);
    assert_eq!(
        a.count.as_ref().map(|c| c.as_ref().unwrap().to_cpp()),
        Some("2".into())
    );
    assert_eq!(b.count, None);
    // BM is a tunable and H is computed from it; W is a constant no tunable changes.
    assert_eq!(a.fixed, [None, Some(8)]);
    assert_eq!(shape(r), ["W", "H"]);
    assert_eq!(r.fixed, [Some(8), None]);
}
