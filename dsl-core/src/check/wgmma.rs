//! WGMMA legality (an `mma` under a `: group-4` level lowers to `wgmma.mma_async.m64nNk16`):
//! M = 64 per warpgroup, N a multiple of 8 in 8..=256, K = 16 for f16/bf16, operand dtypes
//! agree and are f16/bf16, the accumulator is f16 or f32 (f32 for bf16 operands); f8 is not
//! supported anywhere yet. Also builds the fragment table; `mma_store` checks the stores of
//! the accumulators.

use super::resolve::Role;
use super::view::Views;
use super::{Cx, Dim, FragInfo, FragKind, all_stmts, at_expr, codes};
use super::{dim_span, frag_def};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{DType, Major, Stmt, StmtId};
use std::collections::HashMap;

/// f8 element types are rejected wherever they are written.
pub(crate) fn check_f8(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let msg = |d: DType| format!("{d} is not supported yet: tessel lowers f16, bf16 and f32 only");
    let help = "use f16 or bf16 operands (f8 WGMMA needs K = 32 and a different fragment layout)";
    for p in &m.kernel.params {
        if p.dtype.is_f8() {
            diags.push(Diagnostic::new(codes::F8, p.dtype_span, msg(p.dtype)).with_help(help));
        }
    }
    for s in all_stmts(m) {
        let (dt, span) = match &m.stmts[s] {
            Stmt::TensorDecl {
                dtype, dtype_span, ..
            } => (*dtype, *dtype_span),
            Stmt::ScalarDecl { dtype, .. } | Stmt::MmaFill { dtype, .. } => {
                (*dtype, m.stmt_span(s))
            }
            _ => continue,
        };
        if dt.is_f8() {
            diags.push(Diagnostic::new(codes::F8, span, msg(dt)).with_help(help));
        }
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
) -> HashMap<String, FragInfo> {
    let m = cx.m;
    let mut frags: HashMap<String, FragInfo> = HashMap::new();
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
        let mut operand = |id: &crate::ir::Ident, def: StmtId, which: &str| -> Option<StmtId> {
            match &m.stmts[def] {
                Stmt::MmaLoad { .. } => Some(def),
                _ => {
                    diags.push(
                        Diagnostic::new(
                            codes::MMA_OPERAND,
                            id.span,
                            format!(
                                "`{}` is an accumulator, not a loaded {which} operand",
                                id.name
                            ),
                        )
                        .with_help(format!("load the {which} operand with `mma.load`")),
                    );
                    None
                }
            }
        };
        let (Some(a_def), Some(b_def)) = (operand(a, a_def, "A"), operand(b, b_def, "B")) else {
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
            for (k, src) in [(ak, a_src), (bk, b_src)] {
                if let Some(kv) = cx.dim_value(&k)
                    && kv != 16
                    && !av.dtype.is_f8()
                {
                    diags.push(
                            Diagnostic::new(
                                codes::WGMMA_K,
                                dim_span(cx, &k, m.expr_span(src)),
                                format!("WGMMA K must be 16 for {} operands; {} here", av.dtype, cx.describe_dim(&k)),
                            )
                            .with_note(sspan, "in this mma")
                            .with_help("load 16-wide K slices, e.g. `.chunkat(_, k)` over `cdiv(TILE_K, 16)` steps"),
                        );
                }
            }
        }
        let operand_ok = |d: DType| matches!(d, DType::F16 | DType::BF16) || d.is_f8();
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
                    format!("WGMMA operands must be f16 or bf16, found {}", av.dtype),
                )
                .with_help("declare the operand tiles as f16 or bf16"),
            );
        }
        let fill_span = m.stmt_span(acc_def);
        if !matches!(acc_dtype, DType::F16 | DType::F32) && !acc_dtype.is_f8() {
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
            acc.name.clone(),
            FragInfo {
                kind: FragKind::Acc,
                dtype: acc_dtype,
                shape: vec![am, bn],
                def: acc_def,
            },
        );
        frags.insert(
            a.name.clone(),
            FragInfo {
                kind: FragKind::A,
                dtype: av.dtype,
                shape: vec![am, ak],
                def: a_def,
            },
        );
        frags.insert(
            b.name.clone(),
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
