//! Structured-sparse (2:4) WGMMA: `mma.row.row.sp acc, a, b, meta;` lowers to
//! `wgmma.mma_async.sp.m64nNkK`. A is the packed operand: of every four consecutive elements
//! along K of a row of the dense A, two are kept, so the packed tile is `[64, K/2]` beside B's
//! `[N, K]`. `meta` is a fragment loaded (`mma.load`) from a `u8` shared tile `[64, K/8]` whose
//! row `r` is the little-endian stream of 4-bit groups: group `g` (dense columns 4g..4g+3) sits
//! in bits 4g..4g+3 — in byte g/2, low nibble for even g — and holds the two kept positions
//! (0..3, the lower one in bits 0..1). One wgmma takes 64 bytes of dense K: 32 columns for
//! f16/bf16, 64 for f8_e4m3/f8_e5m2.
//!
//! Metadata is `u8` only: tessel reads it as bytes, and a wider element type would suggest a
//! different (pre-arranged, per-thread) layout, which tessel does not read.

use super::view::Views;
use super::{Cx, Dim, all_stmts, at_expr, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{DType, MemSpace, Module, Stmt, StmtId};
use std::collections::HashMap;

/// Whether `s` is a sparse `mma` (`mma.<a>.<b>.sp`).
pub(crate) fn is_sparse(m: &Module, s: StmtId) -> bool {
    m.sparse_meta(s).is_some()
}

/// The dense K of one sparse wgmma for operands of type `d`: 64 bytes of K.
pub(crate) fn instr_k(d: DType) -> i64 {
    64 / d.size_bytes().max(1) as i64
}

/// The operand types sparse WGMMA is lowered for.
fn operand_ok(d: DType) -> bool {
    matches!(d, DType::F16 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2)
}

/// The K rules of a sparse `mma` (in place of the dense ones of `check_mma`): B's K (dense) is
/// a multiple of the instruction's K and A's K is half of it.
pub(crate) fn check_k(
    cx: &Cx,
    s: StmtId,
    a: (&Dim, crate::ir::ExprId),
    b: (&Dim, crate::ir::ExprId),
    dtype: DType,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    let sspan = m.stmt_span(s);
    if !operand_ok(dtype) {
        // `check_dtype` reports it.
        return;
    }
    let ik = instr_k(dtype);
    let (ak, a_src) = a;
    let (bk, b_src) = b;
    let kb = cx.dim_value(bk);
    if let Some(kb) = kb
        && (kb <= 0 || kb % ik != 0)
    {
        diags.push(
            Diagnostic::new(
                codes::SPARSE_K,
                super::dim_span(cx, bk, m.expr_span(b_src)),
                format!(
                    "sparse WGMMA K must be a multiple of {ik} for {dtype} operands; B has K = {} here",
                    cx.describe_dim(bk)
                ),
            )
            .with_note(sspan, format!("one wgmma.mma_async.sp takes K = {ik} (A holds {} of them)", ik / 2))
            .with_help(format!("read B's K in multiples of {ik}, and A's in multiples of {}", ik / 2)),
        );
        return;
    }
    if let (Some(kb), Some(ka)) = (kb, cx.dim_value(ak))
        && ka * 2 != kb
    {
        diags.push(
            Diagnostic::new(
                codes::SPARSE_PACKED_K,
                super::dim_span(cx, ak, m.expr_span(a_src)),
                format!(
                    "the packed sparse A has K = {ka}, but B has K = {kb}: A keeps two of every four elements, so its K must be {}",
                    kb / 2
                ),
            )
            .with_note(
                super::dim_span(cx, bk, m.expr_span(b_src)),
                format!("B's K = {kb}"),
            )
            .with_help(format!(
                "give A the [64, {}] packed tile of the same K range as B",
                kb / 2
            )),
        );
    }
}

/// The rules of sparse `mma`s beyond the shapes `check_mma` checks: the metadata operand (an `mma.load` of a `u8` shared tile `[M, K/8]`, not swizzled).
pub(crate) fn check_sparse(
    cx: &Cx,
    views: &Views,
    swizzle: &HashMap<StmtId, u32>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    for s in all_stmts(m) {
        if !matches!(m.stmts[s], Stmt::Mma { .. }) {
            continue;
        }
        let Some(meta) = m.sparse_meta(s) else {
            continue;
        };
        // As Croqtile: the metadata is a register fragment, loaded by name before the `mma`
        // (a shared tile written as the operand is not loaded for it).
        if meta.name.starts_with("direct$") {
            diags.push(
                Diagnostic::new(
                    codes::SPARSE_META,
                    meta.span,
                    "sparse WGMMA metadata is loaded into registers with `mma.load` before its `mma`",
                )
                .with_help("write `me = mma.load meta_s;` and pass `me` as the fourth operand"),
            );
            continue;
        }
        let sspan = m.stmt_span(s);
        if !cx.in_group4(s) {
            // Warp-level sparse `mma` is gated (`gate`); `check_mma` reports other placements.
            continue;
        }
        let src_of = |role| match super::frag_def(cx, s, role) {
            Some(d) => match &m.stmts[d] {
                Stmt::MmaLoad { src, .. } => Some((d, *src)),
                _ => None,
            },
            None => None,
        };
        use super::resolve::Role;
        let (Some((_, a_src)), Some((_, b_src))) = (src_of(Role::A), src_of(Role::B)) else {
            continue;
        };
        let (Some(av), Some(bv)) = (views.get(a_src), views.get(b_src)) else {
            continue;
        };
        // The metadata operand.
        let Some(def) = super::frag_def(cx, s, Role::Meta) else {
            continue;
        };
        let Stmt::MmaLoad { src: meta_src, .. } = &m.stmts[def] else {
            diags.push(
                Diagnostic::new(
                    codes::SPARSE_META,
                    meta.span,
                    format!("`{}` is an accumulator, not sparsity metadata", meta.name),
                )
                .with_note(m.stmt_span(def), "defined here")
                .with_help("load the metadata with `me = mma.load meta_s;` (a u8 shared tile)"),
            );
            continue;
        };
        let Some(mv) = views.get(*meta_src) else {
            continue;
        };
        if mv.dtype != DType::U8 {
            diags.push(
                at_expr(
                    m,
                    codes::SPARSE_META,
                    *meta_src,
                    format!(
                        "sparsity metadata is a u8 tile (two 2-bit positions per group of four along K), but this one is {}",
                        mv.dtype
                    ),
                )
                .with_note(sspan, "the metadata of this sparse mma")
                .with_help("declare the metadata tensors as u8: row r holds 4 bits per group of four elements of A's dense row r"),
            );
            continue;
        }
        if mv.space != MemSpace::Shared {
            diags.push(
                at_expr(
                    m,
                    codes::SPARSE_META,
                    *meta_src,
                    format!(
                        "sparsity metadata is read from shared memory; this tile is {}",
                        mv.space
                    ),
                )
                .with_help("copy it into a shared u8 tile first (`dma.copy meta.subspan(64, K / 8).at(i, k) => meta_s;`)"),
            );
            continue;
        }
        if swizzle.get(&def).copied().unwrap_or(0) != 0 {
            diags.push(
                at_expr(
                    m,
                    codes::SPARSE_META,
                    *meta_src,
                    "sparsity metadata is read row by row from a plain (unswizzled) shared tile",
                )
                .with_help(
                    "copy the metadata tile with `dma.copy` (or `tma.copy` without `.swiz`)",
                ),
            );
            continue;
        }
        if mv.shape.len() != 2 || av.shape.len() != 2 || bv.shape.len() != 2 {
            continue;
        }
        let (rows, cols) = (cx.dim_value(&mv.shape[0]), cx.dim_value(&mv.shape[1]));
        let (am, bk) = (cx.dim_value(&av.shape[0]), cx.dim_value(&bv.shape[1]));
        if let (Some(r), Some(c), Some(am), Some(bk)) = (rows, cols, am, bk)
            && (r != am || c * 8 != bk)
        {
            diags.push(
                at_expr(
                    m,
                    codes::SPARSE_META_SHAPE,
                    *meta_src,
                    format!(
                        "the metadata tile is [{r}, {c}]; for A's {am} rows and a dense K of {bk} it is [{am}, {}] (4 bits per group of four along K)",
                        bk / 8
                    ),
                )
                .with_note(sspan, "the metadata of this sparse mma")
                .with_help(format!("load the metadata tile of the same rows and K range: [{am}, {}] u8", bk / 8)),
            );
        }
    }
}

/// The sparse forms tessel checks but does not lower, and u8 outside sparsity metadata
/// (E1360–E1363).
pub(crate) fn gate(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    gate_u8(cx, diags);
    for sp in &m.sparse {
        let s = sp.stmt;
        if cx.in_warp_mma(s) {
            diags.push(not_lowered(
                codes::NOT_LOWERED_SPARSE_WARP,
                sp.span,
                "a warp-level sparse `mma` (`mma.sp.sync`); tessel lowers `.sp` under `: group-4` (WGMMA)",
            ));
            continue;
        }
        if let Stmt::Mma { a, .. } = &m.stmts[s]
            && let Some(d) = super::frag_def(cx, s, super::resolve::Role::A)
            && let Stmt::MmaLoad { src, .. } = &m.stmts[d]
            && let Some(v) = operand_dtype(cx, *src)
            && v == DType::S8
        {
            diags.push(not_lowered(
                codes::NOT_LOWERED_SPARSE_INT,
                a.span,
                "sparse s8 WGMMA (`wgmma.mma_async.sp` with s32 accumulators)",
            ));
        }
        if m.promote.is_some_and(|p| cx.value(p) != Some(0)) {
            diags.push(not_lowered(
                codes::NOT_LOWERED_SPARSE_PROMOTE,
                sp.span,
                "`promote` (two-level accumulation) of a sparse `mma`",
            ));
        }
    }
}

/// On the TMA/WGMMA path u8 is lowered as sparsity metadata: the shared tiles sparse `mma`s
/// read their metadata from and the tensors copied into them. Any other u8 tensor there is
/// gated. A warp-level `mma` kernel's own gate decides its types, and the SIMT path lowers u8
/// as an integer element type (`unsigned char`, promoted to `int` in arithmetic as in C++).
fn gate_u8(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    if cx.warp_kernel() || cx.lowering_path() == super::LoweringPath::Simt {
        return;
    }
    let mut meta: Vec<super::Binding> = Vec::new();
    for sp in &m.sparse {
        if let Some(d) = super::frag_def(cx, sp.stmt, super::resolve::Role::Meta)
            && let Stmt::MmaLoad { src, .. } = &m.stmts[d]
            && let Some(b) = root_binding(cx, *src)
        {
            meta.push(b);
        }
    }
    let mut sources: Vec<super::Binding> = Vec::new();
    for s in all_stmts(m) {
        let (src, dst) = match &m.stmts[s] {
            Stmt::DmaCopy { src, dst, .. } | Stmt::TmaCopy { src, dst, .. } => (*src, dst),
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture { src, dst, .. }) => (*src, dst),
            _ => continue,
        };
        let dst_root = match dst {
            crate::ir::CopyDst::Expr(d) => root_binding(cx, *d),
            crate::ir::CopyDst::Fresh(_) => Some(super::Binding::Future(s)),
        };
        if dst_root.is_some_and(|d| meta.contains(&d))
            && let Some(b) = root_binding(cx, src)
        {
            sources.push(b);
        }
    }
    let used = |b: super::Binding| meta.contains(&b) || sources.contains(&b);
    let gate = |span| {
        not_lowered(
            codes::NOT_LOWERED_U8,
            span,
            "a u8 tensor that is not sparsity metadata (u8 is lowered as the metadata of `mma….sp`)",
        )
    };
    for (i, p) in m.kernel.params.iter().enumerate() {
        if p.dtype == DType::U8 && !used(super::Binding::Param(i)) {
            diags.push(gate(p.dtype_span));
        }
    }
    for s in all_stmts(m) {
        match &m.stmts[s] {
            Stmt::TensorDecl {
                dtype: DType::U8,
                dtype_span,
                names,
                ..
            } if (0..names.len()).any(|j| !used(super::Binding::Tensor(s, j))) => {
                diags.push(gate(*dtype_span));
            }
            Stmt::ScalarDecl {
                dtype: DType::U8, ..
            } => diags.push(gate(m.stmt_span(s))),
            _ => {}
        }
    }
}

/// The tensor (or future) a view expression is rooted at.
pub(crate) fn root_binding(cx: &Cx, e: crate::ir::ExprId) -> Option<super::Binding> {
    let mut root = e;
    loop {
        match &cx.m.exprs[root] {
            crate::ir::Expr::View { base, .. } | crate::ir::Expr::Index { base, .. } => {
                root = *base
            }
            crate::ir::Expr::Name(_) => break,
            _ => return None,
        }
    }
    cx.res.bindings.get(&root).cloned()
}

/// The element type of the tensor a view expression reads (a tensor's name, a view or an
/// array entry of it).
pub(crate) fn operand_dtype(cx: &Cx, e: crate::ir::ExprId) -> Option<DType> {
    match root_binding(cx, e)? {
        super::Binding::Param(i) => cx.m.kernel.params.get(i).map(|p| p.dtype),
        super::Binding::Tensor(d, _) => match &cx.m.stmts[d] {
            Stmt::TensorDecl { dtype, .. } => Some(*dtype),
            _ => None,
        },
        _ => None,
    }
}

fn not_lowered(code: &'static str, span: crate::span::Span, what: &str) -> Diagnostic {
    Diagnostic::new(code, span, format!("not supported yet: {what}")).with_help(
        "`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet",
    )
}
