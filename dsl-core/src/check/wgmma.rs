//! WGMMA legality (an `mma` under a `: group-4` level lowers to `wgmma.mma_async.m64nNkK`):
//! M = 64 per warpgroup, N a multiple of 8 in 8..=256, K a multiple of the instruction's K
//! (16 for f16/bf16, 32 for the 8-bit types; a wider operand becomes several instructions with
//! the descriptors advanced along K), operand dtypes agree and are f16, bf16, f8_e4m3, f8_e5m2
//! or s8; the accumulator is f16 or f32 (f32 for bf16; s32 for s8); 8-bit operands are K-major
//! (`mma.row.row`). Also builds the fragment table; `mma_store` checks the stores of the
//! accumulators.

use super::resolve::Role;
use super::view::Views;
use super::{Cx, Dim, FragInfo, FragKind, all_stmts, at_expr, codes};
use super::{dim_span, frag_def};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{DType, Major, Stmt, StmtId};
use std::collections::HashMap;

/// Whether `d` is an 8-bit WGMMA operand type.
pub(crate) fn is_8bit(d: DType) -> bool {
    d.is_f8() || d == DType::S8
}

/// The K of one `wgmma.mma_async` for operands of type `d`: 32 bytes of K.
pub(crate) fn instr_k(d: DType) -> i64 {
    32 / d.size_bytes().max(1) as i64
}

/// The `frag` declaration an operand load reads as a whole: the parser's load of a name written
/// straight into `mma` (`mma.row.row mc, a_frag, b_s;` with `frag f16 [64, 16] a_frag;`).
pub(crate) fn frag_decl_operand(cx: &Cx, load: StmtId) -> Option<StmtId> {
    let m = cx.m;
    let Stmt::MmaLoad { src, .. } = &m.stmts[load] else {
        return None;
    };
    match cx.res.bindings.get(src)? {
        super::Binding::Tensor(d, _)
            if m.decl_ext
                .iter()
                .any(|x| matches!(x, crate::ir::DeclExt::Frag { decl } if decl == d)) =>
        {
            Some(*d)
        }
        _ => None,
    }
}

/// The `frag` declarations read whole as the A operand of a warpgroup `mma` with 16-bit
/// operands, and named nowhere else: the lowering declares them as A-fragment registers (an
/// element access of such a tile would need the fragment layout, which no lowering reads yet).
pub(crate) fn register_a_frags(cx: &Cx) -> Vec<StmtId> {
    let m = cx.m;
    // Every name that refers to each declaration, and the operand loads that read it whole.
    let mut uses: HashMap<StmtId, usize> = HashMap::new();
    for b in cx.res.bindings.values() {
        if let super::Binding::Tensor(d, _) = b {
            *uses.entry(*d).or_default() += 1;
        }
    }
    let mut a_loads: HashMap<StmtId, usize> = HashMap::new();
    for s in all_stmts(m) {
        if matches!(m.stmts[s], Stmt::MmaLoad { .. })
            && let Some(d) = frag_decl_operand(cx, s)
        {
            *a_loads.entry(d).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    for s in all_stmts(m) {
        if !matches!(m.stmts[s], Stmt::Mma { .. }) || !cx.in_group4(s) || cx.in_warp_mma(s) {
            continue;
        }
        let Some(a_def) = frag_def(cx, s, Role::A) else {
            continue;
        };
        if let Some(d) = frag_decl_operand(cx, a_def)
            && let Stmt::TensorDecl { dtype, shape, .. } = &m.stmts[d]
            && matches!(dtype, DType::F16 | DType::BF16)
            && shape.len() == 2
            && uses.get(&d) == a_loads.get(&d)
            && !out.contains(&d)
        {
            out.push(d);
        }
    }
    out
}

/// Whether an operand load puts its operand in registers (a register-A WGMMA operand):
/// `mma.load.frag` of a shared tile, or a whole `frag` register tile.
pub(crate) fn is_register_operand(cx: &Cx, load: StmtId) -> bool {
    cx.m.is_frag_load(load) || frag_decl_operand(cx, load).is_some()
}

/// Register-A rules of one warpgroup `mma` `s` (operand loads `a_def`, `b_def`): B comes from
/// shared memory (E1560); A in registers is K-major (E1561) and, for now, 16-bit and plain
/// (not `.sp`, `.scale` or promoted: E1470, E1471).
fn check_register_operands(
    cx: &Cx,
    s: StmtId,
    (a_def, b_def): (StmtId, StmtId),
    (a_major, a_dtype): (Major, DType),
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    let Stmt::Mma { a, b, .. } = &m.stmts[s] else {
        return;
    };
    if is_register_operand(cx, b_def) {
        diags.push(
            Diagnostic::new(
                codes::REG_B,
                b.span,
                format!("`{}` is a register fragment; WGMMA reads its B operand from shared memory (only A may come from registers)", b.name),
            )
            .with_help("pass the shared tile itself as B (`mma.row.row mc, a, b_s;`), or swap the roles of the operands"),
        );
    }
    if !is_register_operand(cx, a_def) {
        return;
    }
    if a_major != Major::Row {
        diags.push(
            Diagnostic::new(
                codes::REG_A_MAJOR,
                m.stmt_span(s),
                format!("`{}` is a register fragment, and register fragments of A are K-major: this `mma` names A MN-major (`col`)", a.name),
            )
            .with_help("write `mma.row.<b>` with the fragment as a [M, K] tile (load it from a K-major [M, K] shared tile)"),
        );
    }
    let gate = |code, what: &str| {
        Diagnostic::new(code, m.stmt_span(s), format!("not supported yet: {what}"))
            .with_help("`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet")
    };
    if is_8bit(a_dtype) {
        diags.push(gate(
            codes::NOT_LOWERED_REG_A_8BIT,
            &format!("a register-A WGMMA with {a_dtype} operands (A from shared memory lowers)"),
        ));
    }
    let form = if super::sparse::is_sparse(m, s) {
        Some("`.sp`")
    } else if m.mma_scale(s).is_some() {
        Some("`.scale`")
    } else if m.promote.is_some_and(|p| cx.value(p) != Some(0)) && a_dtype.is_f8() {
        Some("`promote`")
    } else {
        None
    };
    if let Some(f) = form {
        diags.push(gate(
            codes::NOT_LOWERED_REG_A_FORM,
            &format!("a register-A WGMMA written with {f}"),
        ));
    }
}

/// Every `mma.load.frag` is the A operand of some warpgroup `mma` (E1562): its registers have
/// the A-fragment layout and nothing else reads them.
pub(crate) fn check_frag_loads(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let mmas: Vec<StmtId> = all_stmts(m)
        .into_iter()
        .filter(|&s| matches!(m.stmts[s], Stmt::Mma { .. }))
        .collect();
    for &s in &m.frag_loads {
        let Stmt::MmaLoad { name, .. } = &m.stmts[s] else {
            continue;
        };
        let used = |role| mmas.iter().any(|&x| frag_def(cx, x, role) == Some(s));
        // As B it is E1560 (`check_register_operands`).
        if !used(Role::A) && !used(Role::B) {
            diags.push(
                Diagnostic::new(
                    codes::FRAG_LOAD_USE,
                    name.span,
                    format!("`{}` is loaded into registers (`mma.load.frag`) but is not the A operand of a warpgroup `mma`", name.name),
                )
                .with_help(format!("use it as A: `mma.row.row acc, {}, b_s;` under a `: group-4` level, or describe the tile with a plain `mma.load`", name.name)),
            );
        }
    }
}

/// 8-bit element types are lowered only as WGMMA operands: shared tiles that a warpgroup
/// `mma` reads, and the global tensors TMA copies into them. Anywhere else (a tensor no `mma`
/// reads, a scalar, an accumulator) they are rejected.
pub(crate) fn check_f8(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    use super::Binding;
    use crate::ir::CopyDst;
    let m = cx.m;
    let mut operands: Vec<Binding> = Vec::new();
    for s in all_stmts(m) {
        if let Stmt::MmaLoad { src, .. } = &m.stmts[s]
            && cx.in_group4(s)
            && !cx.in_warp_mma(s)
        {
            // A view of a future's fresh buffer has no published view; its root is the future.
            if let Some(b) = views
                .get(*src)
                .map(|v| v.root)
                .or_else(|| super::sparse::root_binding(cx, *src))
            {
                operands.push(b);
            }
        }
    }
    let mut sources: Vec<Binding> = Vec::new();
    for s in all_stmts(m) {
        if let Stmt::TmaCopy {
            src,
            dst: CopyDst::Expr(d),
            ..
        } = &m.stmts[s]
            && let (Some(sv), Some(dv)) = (views.get(*src), views.get(*d))
            && operands.contains(&dv.root)
        {
            sources.push(sv.root);
        }
        // `f = tma.copy … => shared;` whose buffer an `mma` reads: its source is an operand's.
        if let Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
            tma: true,
            bind: Some(_),
            src,
            ..
        }) = &m.stmts[s]
            && operands.contains(&Binding::Future(s))
            && let Some(b) = super::sparse::root_binding(cx, *src)
        {
            sources.push(b);
        }
    }
    // A warp-level `mma` kernel (`lower/warp.rs`) lowers its own s8 operands (`mma.sync`); the
    // SIMT path s8 as an integer element type (`signed char`, promoted to `int` in arithmetic
    // as in C++), and f8 tensors whose values it only moves (`f8_moves`).
    let simt = cx.lowering_path() == super::LoweringPath::Simt;
    let warp_s8 = |d: DType| (d == DType::S8 && (cx.warp_kernel() || simt)) || (d.is_f8() && simt);
    if simt {
        super::simt::f8_moves(cx, views, diags);
    }
    let tensor = |d: DType, span, name: &str| {
        Diagnostic::new(
            codes::F8,
            span,
            format!("{d} tensor `{name}` is not a WGMMA operand: tessel lowers 8-bit types only as `mma` operand tiles and their TMA sources"),
        )
        .with_help("read the tile with `mma.row.row` under a `: group-4` level (filled by `tma.copy.swiz<…>`), or declare it f16/bf16/f32")
    };
    for (i, p) in m.kernel.params.iter().enumerate() {
        if is_8bit(p.dtype) && !warp_s8(p.dtype) && !sources.contains(&Binding::Param(i)) {
            diags.push(tensor(p.dtype, p.dtype_span, &p.name.name));
        }
    }
    for s in all_stmts(m) {
        match &m.stmts[s] {
            Stmt::TensorDecl {
                dtype,
                dtype_span,
                names,
                ..
            } if is_8bit(*dtype) && !warp_s8(*dtype) => {
                for (j, d) in names.iter().enumerate() {
                    if !operands.contains(&Binding::Tensor(s, j)) {
                        diags.push(tensor(*dtype, *dtype_span, &d.name.name));
                    }
                }
            }
            Stmt::ScalarDecl {
                dtype: DType::S8, ..
            } if simt => {}
            Stmt::ScalarDecl { dtype, .. } | Stmt::MmaFill { dtype, .. } if is_8bit(*dtype) => {
                let acc = matches!(m.stmts[s], Stmt::MmaFill { .. });
                diags.push(
                    Diagnostic::new(
                        codes::F8,
                        m.stmt_span(s),
                        format!(
                            "{dtype} cannot be {}: 8-bit types are WGMMA operand tiles only",
                            if acc { "an accumulator" } else { "a scalar" }
                        ),
                    )
                    .with_help(if acc {
                        "accumulate 8-bit products in `mma.fill.f32` (f8) or `mma.fill.s32` (s8)"
                    } else {
                        "declare the scalar as f32 or int"
                    }),
                );
            }
            _ => {}
        }
    }
}

/// `promote P;`: P evaluates to an integer ≥ 0 under the configuration, and unless it is 0 (off)
/// some warpgroup `mma` has 8-bit float operands and an f32 accumulator (the only WGMMAs whose
/// accumulation is narrower than their accumulator).
pub(crate) fn check_promote(cx: &Cx, frags: &HashMap<StmtId, FragInfo>, diags: &mut Diagnostics) {
    let m = cx.m;
    let Some(p) = m.promote else { return };
    if let Some(v) = cx.value(p)
        && v < 0
    {
        diags.push(
            at_expr(
                m,
                codes::PROMOTE,
                p,
                format!(
                    "`promote` takes the k-tiles between promotions (0 = off), not {}",
                    cx.describe_value(p, v)
                ),
            )
            .with_help("use 0 (off) or a positive count, e.g. a tunable `PROMOTE in [0, 1, 2, 4]`"),
        );
    }
    // `promote 0` is off: nothing needs promoting (a dtype variant of the kernel may have
    // none).
    if cx.value(p) == Some(0) || !promoted_accs(cx, frags).is_empty() {
        return;
    }
    diags.push(
        at_expr(
            m,
            codes::PROMOTE,
            p,
            "`promote` has nothing to promote: no warpgroup `mma` here has f8 operands and an f32 accumulator",
        )
        .with_help("remove `promote`, or accumulate the f8 `mma` in `mma.fill.f32`"),
    );
}

/// The accumulators `promote` applies to (their `mma.fill`s): those of warpgroup `mma`s with
/// 8-bit float operands and an f32 accumulator.
pub(crate) fn promoted_accs(cx: &Cx, frags: &HashMap<StmtId, FragInfo>) -> Vec<StmtId> {
    let m = cx.m;
    let mut out = Vec::new();
    for s in all_stmts(m) {
        if !matches!(m.stmts[s], Stmt::Mma { .. }) {
            continue;
        }
        let (Some(a), Some(acc)) = (frag_def(cx, s, Role::A), frag_def(cx, s, Role::Acc)) else {
            continue;
        };
        let (Some(af), Some(cf)) = (frags.get(&a), frags.get(&acc)) else {
            continue;
        };
        if af.dtype.is_f8() && cf.dtype == DType::F32 && !out.contains(&acc) {
            out.push(acc);
        }
    }
    out
}

/// Every WGMMA operand is read through a swizzled shared-memory descriptor: its shared tensor
/// must be swizzled (stated on the `mma.load` or on the `tma.copy` that fills it).
/// Only loads the WGMMA check accepted as operands (`frags`) are looked at.
pub(crate) fn check_operand_swizzle(
    cx: &Cx,
    frags: &HashMap<StmtId, FragInfo>,
    swizzle: &HashMap<StmtId, u32>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    // A stated swizzle that is invalid or disputed is reported by `swizzle` (E04xx) already.
    if diags.iter().any(|d| d.code.starts_with("E04")) {
        return;
    }
    for s in all_stmts(m) {
        let Stmt::MmaLoad { src, .. } = &m.stmts[s] else {
            continue;
        };
        let operand = frags
            .get(&s)
            .is_some_and(|f| matches!(f.kind, FragKind::A | FragKind::B));
        // A register operand is read by ordinary loads (or is registers already): any layout.
        if !operand || is_register_operand(cx, s) || swizzle.get(&s).copied().unwrap_or(0) != 0 {
            continue;
        }
        diags.push(
            at_expr(
                m,
                codes::WGMMA_K_SPLIT,
                *src,
                "this WGMMA operand's shared tensor has no swizzle; tessel reads WGMMA operands through swizzled K-major descriptors",
            )
            .with_help("state a swizzle: `tma.copy.swiz<128>` (rows of 128 bytes), or `.swiz<N>` on the `mma.load`; tessel picks one itself only for a tile whose rows are 32, 64 or 128 bytes, written whole by TMA loads or by `t = dma.copy … => shared;` futures the whole block runs (not inside a level that splits it), and read by nothing but `mma`s"),
        );
    }
}

/// `176 or 184` for 180.
fn n_suggestion(n: i64) -> String {
    if n > 256 {
        "try 256".into()
    } else if n < 8 {
        "try 8".into()
    } else {
        let lo = n / 8 * 8;
        format!("try {lo} or {}", lo + 8)
    }
}

pub(crate) fn check_mma(
    cx: &Cx,
    views: &mut Views,
    diags: &mut Diagnostics,
) -> HashMap<StmtId, FragInfo> {
    let m = cx.m;
    let mut frags: HashMap<StmtId, FragInfo> = HashMap::new();
    let mut acc_shape: HashMap<StmtId, Vec<Dim>> = HashMap::new();
    for s in all_stmts(m) {
        let Stmt::Mma {
            a_major,
            b_major,
            acc,
            a,
            b,
        } = &m.stmts[s]
        else {
            continue;
        };
        let sspan = m.stmt_span(s);
        if cx.in_warp_mma(s) {
            // Warp-level MMA: its shapes are not WGMMA's; the lowering gate reports it.
            continue;
        }
        if !cx.in_group4(s) {
            diags.push(
                Diagnostic::new(codes::MMA_OPERAND, sspan, "`mma` outside a `: group-4` level: tessel lowers mma only to WGMMA")
                    .with_help("run it under a warpgroup level, e.g. `parallel … : block, by 1 : group-4 { … }`"),
            );
        }
        let (Some(acc_def), Some(a_def), Some(b_def)) = (
            frag_def(cx, s, Role::Acc),
            frag_def(cx, s, Role::A),
            frag_def(cx, s, Role::B),
        ) else {
            continue;
        };
        let acc_dtype = match &m.stmts[acc_def] {
            Stmt::MmaFill { dtype, .. } => *dtype,
            _ => {
                diags.push(
                    Diagnostic::new(
                        codes::MMA_OPERAND,
                        acc.span,
                        format!("`{}` is a loaded operand, not an accumulator", acc.name),
                    )
                    .with_note(m.stmt_span(acc_def), "loaded here")
                    .with_help(format!(
                        "create the accumulator with `{} = mma.fill.f32 0.0f;`",
                        acc.name
                    )),
                );
                continue;
            }
        };
        let a_def = super::loaded_operand(m, a, a_def, "A", diags);
        let b_def = super::loaded_operand(m, b, b_def, "B", diags);
        let (Some(a_def), Some(b_def)) = (a_def, b_def) else {
            continue;
        };
        let src_of = |d: StmtId| match &m.stmts[d] {
            Stmt::MmaLoad { src, .. } => Some(*src),
            _ => None,
        };
        let (Some(a_src), Some(b_src)) = (src_of(a_def), src_of(b_def)) else {
            continue;
        };
        let (Some(av), Some(bv)) = (views.get(a_src), views.get(b_src)) else {
            continue;
        };
        if av.shape.len() != 2 || bv.shape.len() != 2 {
            let (bad, v) = if av.shape.len() != 2 {
                (a_src, av)
            } else {
                (b_src, bv)
            };
            diags.push(
                at_expr(
                    m,
                    codes::WGMMA_M,
                    bad,
                    format!(
                        "WGMMA operands are 2-D tiles; this one has {} dimensions",
                        v.shape.len()
                    ),
                )
                .with_help("load a [64, 16] (A) or [N, 16] (B) tile"),
            );
            continue;
        }
        let (am, ak) = if *a_major == Major::Row {
            (av.shape[0], av.shape[1])
        } else {
            (av.shape[1], av.shape[0])
        };
        let (bn, bk) = if *b_major == Major::Row {
            (bv.shape[0], bv.shape[1])
        } else {
            (bv.shape[1], bv.shape[0])
        };
        let group4 = cx.in_group4(s);

        if group4 {
            if let Some(mv) = cx.dim_value(&am)
                && mv != 64
            {
                diags.push(
                        Diagnostic::new(
                            codes::WGMMA_M,
                            dim_span(cx, &am, m.expr_span(a_src)),
                            format!("WGMMA M must be 64 per warpgroup; the A tile has M = {} here", cx.describe_dim(&am)),
                        )
                        .with_note(sspan, "in this mma")
                        .with_help("give each warpgroup a 64-row A tile, e.g. `lhs_s.subspan(64, 16).at(w, k)`"),
                    );
            }
            if let Some(nv) = cx.dim_value(&bn)
                && (nv % 8 != 0 || !(8..=256).contains(&nv))
            {
                diags.push(
                    Diagnostic::new(
                        codes::WGMMA_N,
                        dim_span(cx, &bn, m.expr_span(b_src)),
                        format!(
                            "WGMMA N must be a multiple of 8 in 8..=256; {} here — {}",
                            cx.describe_dim(&bn),
                            n_suggestion(nv)
                        ),
                    )
                    .with_note(
                        sspan,
                        format!("the B operand `{}` of this mma has N = {nv}", b.name),
                    )
                    .with_help(format!(
                        "there is no m64n{nv}k16 instruction; {}",
                        n_suggestion(nv)
                    )),
                );
            }
        }
        if group4 && super::sparse::is_sparse(m, s) {
            super::sparse::check_k(cx, s, (&ak, a_src), (&bk, b_src), av.dtype, diags);
        } else if group4 {
            let ik = instr_k(av.dtype);
            let mut k_ok = true;
            for (k, src) in [(ak, a_src), (bk, b_src)] {
                if let Some(kv) = cx.dim_value(&k)
                    && (kv <= 0 || kv % ik != 0)
                {
                    k_ok = false;
                    diags.push(
                            Diagnostic::new(
                                codes::WGMMA_K,
                                dim_span(cx, &k, m.expr_span(src)),
                                format!("WGMMA K must be a multiple of {ik} for {} operands; {} here", av.dtype, cx.describe_dim(&k)),
                            )
                            .with_note(sspan, format!("in this mma (one wgmma.mma_async takes K = {ik}; a wider tile is issued in K-steps of {ik})"))
                            .with_help(format!("read K in multiples of {ik}, e.g. the whole swizzled row of the tile or `.chunkat(_, k)` over `cdiv(TILE_K, {ik})` steps")),
                        );
                }
            }
            if k_ok
                && let (Some(ka), Some(kb)) = (cx.dim_value(&ak), cx.dim_value(&bk))
                && ka != kb
            {
                diags.push(
                    Diagnostic::new(
                        codes::WGMMA_K,
                        dim_span(cx, &bk, m.expr_span(b_src)),
                        format!("the B operand has K = {kb}, but A has K = {ka}"),
                    )
                    .with_note(
                        dim_span(cx, &ak, m.expr_span(a_src)),
                        format!("A's K = {ka}"),
                    )
                    .with_help("read the same K range of both operands"),
                );
            }
        }
        let operand_ok = |d: DType| matches!(d, DType::F16 | DType::BF16) || is_8bit(d);
        let reg_a = is_register_operand(cx, a_def);
        if group4 {
            check_register_operands(cx, s, (a_def, b_def), (*a_major, av.dtype), diags);
        }
        // A K-major A with an MN-major B of 16-bit elements (`mma.row.col`: B as [K, N]) lowers
        // through WGMMA's B transpose (`lower/mn_major.rs`; an unswizzled operand is E1422), but not with the
        // `.scale`/`promote`/sparse forms.
        let mn_major_b = *a_major == Major::Row
            && *b_major != Major::Row
            && matches!(av.dtype, DType::F16 | DType::BF16)
            && m.mma_scale(s).is_none()
            && !super::sparse::is_sparse(m, s)
            && m.promote.is_none();
        if group4
            && av.dtype == bv.dtype
            && !mn_major_b
            && !(reg_a && *a_major != Major::Row && *b_major == Major::Row)
            && (*a_major != Major::Row || *b_major != Major::Row)
        {
            let (which, major_ok) = if *a_major != Major::Row {
                ("A", "row")
            } else {
                ("B", "row")
            };
            let d = if is_8bit(av.dtype) {
                Diagnostic::new(
                    codes::WGMMA_8BIT_MAJOR,
                    sspan,
                    format!(
                        "8-bit WGMMA ({}) reads both operands K-major; the {which} operand here is MN-major (`col`)",
                        av.dtype
                    ),
                )
                .with_help(format!(
                    "store {which} with K contiguous (A as [M, K], B as [N, K]) and write `mma.{major_ok}.{major_ok}`"
                ))
            } else {
                Diagnostic::new(
                    codes::NOT_LOWERED_MN_MAJOR,
                    sspan,
                    format!(
                        "not supported yet: an MN-major (`col`) {which} operand of {} WGMMA",
                        av.dtype
                    ),
                )
                .with_help("write `mma.row.row` with A as [M, K] and B as [N, K] tiles")
            };
            diags.push(d);
        }
        if av.dtype != bv.dtype {
            diags.push(
                Diagnostic::new(
                    codes::WGMMA_DTYPE,
                    b.span,
                    format!(
                        "mma operands differ in type: `{}` is {} but `{}` is {}",
                        a.name, av.dtype, b.name, bv.dtype
                    ),
                )
                .with_note(
                    m.expr_span(a_src),
                    format!("A is loaded from {} here", av.dtype),
                )
                .with_help("load both operands from tensors of one element type"),
            );
        } else if !operand_ok(av.dtype) {
            diags.push(
                Diagnostic::new(
                    codes::WGMMA_DTYPE,
                    a.span,
                    format!(
                        "WGMMA operands must be f16, bf16, f8_e4m3, f8_e5m2 or s8, found {}",
                        av.dtype
                    ),
                )
                .with_help("declare the operand tiles as f16, bf16, f8_e4m3, f8_e5m2 or s8"),
            );
        }
        let fill_span = m.stmt_span(acc_def);
        if av.dtype == bv.dtype && av.dtype == DType::S8 {
            if acc_dtype != DType::I32 {
                diags.push(
                    Diagnostic::new(
                        codes::WGMMA_ACC,
                        fill_span,
                        format!(
                            "s8 operands need an s32 accumulator, but `{}` is {acc_dtype}",
                            acc.name
                        ),
                    )
                    .with_note(sspan, "s8 mma here")
                    .with_help(format!("write `{} = mma.fill.s32 0;`", acc.name)),
                );
            }
        } else if acc_dtype == DType::I32 {
            diags.push(
                Diagnostic::new(
                    codes::WGMMA_ACC,
                    fill_span,
                    format!("an s32 accumulator takes s8 operands, not {}", av.dtype),
                )
                .with_note(sspan, "used by this mma")
                .with_help(format!("write `{} = mma.fill.f32 0.0f;`", acc.name)),
            );
        } else if !matches!(acc_dtype, DType::F16 | DType::F32) {
            diags.push(
                Diagnostic::new(
                    codes::WGMMA_ACC,
                    fill_span,
                    format!("the accumulator is {acc_dtype}; WGMMA accumulates in f16 or f32"),
                )
                .with_note(sspan, "used by this mma")
                .with_help(format!("write `{} = mma.fill.f32 0.0f;`", acc.name)),
            );
        } else if av.dtype == DType::BF16 && acc_dtype != DType::F32 {
            diags.push(
                Diagnostic::new(
                    codes::WGMMA_ACC,
                    fill_span,
                    format!(
                        "bf16 operands need an f32 accumulator, but `{}` is {acc_dtype}",
                        acc.name
                    ),
                )
                .with_note(sspan, "bf16 mma here")
                .with_help(format!("write `{} = mma.fill.f32 0.0f;`", acc.name)),
            );
        }
        acc_shape.entry(acc_def).or_insert_with(|| vec![am, bn]);
        frags.insert(
            acc_def,
            FragInfo {
                kind: FragKind::Acc,
                dtype: acc_dtype,
                shape: vec![am, bn],
                def: acc_def,
            },
        );
        frags.insert(
            a_def,
            FragInfo {
                kind: FragKind::A,
                dtype: av.dtype,
                shape: vec![am, ak],
                def: a_def,
            },
        );
        frags.insert(
            b_def,
            FragInfo {
                kind: FragKind::B,
                dtype: bv.dtype,
                shape: vec![bn, bk],
                def: b_def,
            },
        );
    }
    super::mma_store::check_stores(cx, views, &acc_shape, diags);
    frags
}

/// An accumulator a standalone `mma.scale` scales sums its `mma`s' products into an f32 partial
/// fragment: not yet lowered when a `.scale` `mma`, a register-A `mma` or `promote` feeds it too
/// (E1472).
pub(crate) fn check_scale_mix(cx: &Cx, frags: &HashMap<StmtId, FragInfo>, diags: &mut Diagnostics) {
    let m = cx.m;
    let promoted = promoted_accs(cx, frags);
    let promote_on = m.promote.is_some_and(|p| cx.value(p) != Some(0));
    for s in all_stmts(m) {
        let Stmt::Ext(crate::ir::ExtStmt::MmaScaleAcc { acc, .. }) = &m.stmts[s] else {
            continue;
        };
        let acc_def = frag_def(cx, s, Role::Acc);
        let other = all_stmts(m).into_iter().find_map(|x| match &m.stmts[x] {
            Stmt::Mma { .. } if acc_def.is_some() && frag_def(cx, x, Role::Acc) == acc_def => {
                if m.mma_scale(x).is_some() {
                    Some("a `.scale` `mma`")
                } else if frag_def(cx, x, Role::A).is_some_and(|d| is_register_operand(cx, d)) {
                    Some("a register-A `mma`")
                } else {
                    None
                }
            }
            _ => None,
        });
        let promoted = acc_def.is_some_and(|d| promoted.contains(&d));
        let other = other.or((promote_on && promoted).then_some("`promote`"));
        if let Some(what) = other {
            diags.push(
                Diagnostic::new(
                    codes::NOT_LOWERED_SCALE_MIX,
                    m.stmt_span(s),
                    format!("not supported yet: `mma.scale` of `{}`, which {what} also feeds", acc.name),
                )
                .with_help("`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet"),
            );
        }
    }
}

/// `mma.<a>.<b>.scale acc, a, b, sl, sr;` (a warpgroup `mma`; the warp-level form is the gate's):
/// float operands and an f32 or f16 accumulator (E1424); `sl` one value or an f32 `[M, 1]`
/// column of per-row scales over the `mma`'s M rows (E1425); `sr` one value (E1426).
pub(crate) fn check_scales(
    cx: &Cx,
    views: &Views,
    frags: &HashMap<StmtId, FragInfo>,
    diags: &mut Diagnostics,
) {
    use crate::ir::{Expr, ViewOp};
    let m = cx.m;
    let tensor_named = |e: crate::ir::ExprId| {
        match &m.exprs[e] {
        Expr::Name(n) => {
            m.kernel.params.iter().any(|p| &p.name.name == n && !p.shape.is_empty())
                || all_stmts(m).into_iter().any(|s| {
                    matches!(&m.stmts[s], Stmt::TensorDecl { names, .. } if names.iter().any(|d| &d.name.name == n))
                })
        }
        _ => false,
    }
    };
    for sc in m.all_scales() {
        let s = sc.stmt;
        if cx.in_warp_mma(s) || !cx.in_group4(s) {
            continue;
        }
        // The accumulator and the A operand, by the definitions the checker binds them to.
        let acc_def = frag_def(cx, s, Role::Acc);
        let acc_frag = acc_def.and_then(|d| frags.get(&d));
        let a = match &m.stmts[s] {
            Stmt::Mma { .. } => frag_def(cx, s, Role::A),
            // `mma.scale acc, …`: the operands of the `mma`s into `acc`.
            Stmt::Ext(crate::ir::ExtStmt::MmaScaleAcc { acc, .. }) => {
                if !acc_frag.is_some_and(|f| f.kind == FragKind::Acc) {
                    diags.push(
                        Diagnostic::new(
                            codes::MMA_OPERAND,
                            acc.span,
                            format!("`mma.scale` scales an accumulator of warpgroup `mma`s; `{}` is not one", acc.name),
                        )
                        .with_help(format!("accumulate into `{}` with `mma.row.row {}, a, b;` first", acc.name, acc.name)),
                    );
                    continue;
                }
                all_stmts(m).into_iter().find_map(|x| match &m.stmts[x] {
                    Stmt::Mma { .. } if frag_def(cx, x, Role::Acc) == acc_def => {
                        frag_def(cx, x, Role::A)
                    }
                    _ => None,
                })
            }
            _ => continue,
        };
        if let (Some(af), Some(cf)) = (a.and_then(|d| frags.get(&d)), acc_frag)
            && (!af.dtype.is_float() || !matches!(cf.dtype, DType::F32 | DType::F16))
        {
            diags.push(
                Diagnostic::new(
                    codes::MMA_SCALE_TYPE,
                    m.stmt_span(s),
                    format!(
                        "`mma….scale` scales a floating-point product into an f32 or f16 accumulator; this one multiplies {} into {}",
                        af.dtype, cf.dtype
                    ),
                )
                .with_help("scale f16, bf16 or f8 products accumulated in `mma.fill.f32` (or f16)"),
            );
        }
        // The A side: a tile (a `[M, 1]` f32 column) or one value.
        let is_tile = |e| {
            matches!(&m.exprs[e], Expr::View { op, .. } if *op != ViewOp::At)
                || super::views_ext::tile_pick(&m.exprs, e)
        };
        let lhs_tile = match is_tile(sc.lhs) {
            true => views.get(sc.lhs),
            false => None,
        };
        if let Some(v) = lhs_tile {
            let rows = v.shape.first().and_then(|d| cx.dim_value(d));
            let cols = v.shape.get(1).and_then(|d| cx.dim_value(d));
            let m_rows = acc_frag
                .and_then(|f| f.shape.first())
                .and_then(|d| cx.dim_value(d));
            let fits = v.shape.len() == 2
                && cols == Some(1)
                && (rows.is_none() || rows == m_rows)
                && v.dtype == DType::F32
                && !v.transposed;
            if !fits {
                diags.push(
                    at_expr(
                        m,
                        codes::MMA_SCALE_LHS,
                        sc.lhs,
                        format!(
                            "the A-side scale of `mma….scale` is one value or an f32 [{}, 1] column of per-row scales; this one is a [{}] tile of {}",
                            m_rows.map_or("M".to_string(), |r| r.to_string()),
                            v.shape.iter().map(|d| cx.describe_dim(d)).collect::<Vec<_>>().join(", "),
                            v.dtype
                        ),
                    )
                    .with_help("write e.g. `scale_lhs.subspan(64, 1).at(block_m, k)` (f32), or one value `scale.at(i, k)`"),
                );
            }
        } else if tensor_named(sc.lhs)
            || matches!(&m.exprs[sc.lhs], Expr::View { op, .. } if *op != ViewOp::At)
        {
            diags.push(
                at_expr(m, codes::MMA_SCALE_LHS, sc.lhs, "the A-side scale of `mma….scale` is one value or an f32 `[M, 1]` column view of per-row scales")
                    .with_help("write e.g. `scale_lhs.subspan(64, 1).at(block_m, k)`"),
            );
        }
        let rhs_tile = tensor_named(sc.rhs) || is_tile(sc.rhs);
        if rhs_tile {
            diags.push(
                at_expr(
                    m,
                    codes::MMA_SCALE_RHS,
                    sc.rhs,
                    "the B-side scale of `mma….scale` is one value (one scale per block of B)",
                )
                .with_help("pick one element, e.g. `scale_rhs.at(block_n, k)`"),
            );
        }
    }
}
