//! `[[frag_prefetch]]` on the K-tile loop of a warp-level `mma` kernel: the lowering
//! (`lower/warp_pipe.rs`) loads each k-step's operand fragments one step ahead, into a register
//! double buffer, so that `ldmatrix` runs under the previous step's `mma.sync`s — across the
//! tile boundary too: the loop's `dma.wait` (and its barrier) moves before the tile's last
//! k-step, whose loads then read the next tile. That reorders the program, so the loop must
//! have the one shape the reordering is known to keep the meaning of:
//!
//! ```text
//! [[frag_prefetch]]
//! foreach {kt} in [n] {
//!   dma.wait N;                     // first: lands tile kt (E1601)
//!   dma.copy.async … ;              // only async copies in between (E1602)
//!   foreach {kk} in [F] {           // last: the k-steps, F even (E1602, E1606)
//!     a = mma.load shared … ;       // first every load, from shared memory (E1603, E1605)
//!     mma.row.row acc, a, b;        // then every mma, reading this step's loads (E1604)
//!   }
//! }
//! ```
//!
//! The attribute itself belongs on such a `foreach` of a warp-level kernel (E1600). Why this
//! shape keeps the meaning: each tile's wait and copies still run in the same order and number,
//! right after one another, only one k-step earlier — so every wait sees the same async-copy
//! groups outstanding; the loads that move ahead read a tile only after the wait and barrier
//! that land it; and the copies that refill a stage come after a barrier that every warp
//! reaches only once it has loaded its last fragments of that stage (a tile's last k-step's
//! fragments are loaded one step before the barrier). A synchronous copy or other work between
//! the wait and the k-steps would run after the next tile's first fragments are loaded, hence
//! E1602; a load after an `mma` could not move ahead of it, hence E1603.

use super::resolve::Role;
use super::{Binding, Cx, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Attribute, Expr, ExprId, MemSpace, Stmt, StmtId};

/// The statements of a loop `[[frag_prefetch]]` accepts: the tile loop's wait, its copies and
/// its k-step loop; the k-step loop's loads and `mma`s.
#[derive(Clone, Debug, PartialEq)]
pub struct PrefetchLoop {
    pub wait: StmtId,
    pub copies: Vec<StmtId>,
    pub steps: StmtId,
    pub loads: Vec<StmtId>,
    pub mmas: Vec<StmtId>,
}

/// The loop `s`'s parts, or the first rule it breaks (code, span, message, help).
pub(crate) fn parts(
    cx: &Cx,
    s: StmtId,
) -> Result<PrefetchLoop, (&'static str, crate::span::Span, String, String)> {
    let m = cx.m;
    let span = m.stmt_span(s);
    let one_var = |st: &Stmt| matches!(st, Stmt::Foreach { vars, .. } if vars.len() == 1);
    let Stmt::Foreach { body, .. } = &m.stmts[s] else {
        return Err((
            codes::FRAG_PREFETCH_TARGET,
            span,
            "`[[frag_prefetch]]` applies to a `foreach` over K tiles".into(),
            "put it right before `foreach {kt} in [cdiv(K, BK)] { … }`".into(),
        ));
    };
    if !one_var(&m.stmts[s]) || m.loop_range(s, 0).is_some() {
        return Err((
            codes::FRAG_PREFETCH_TARGET,
            span,
            "`[[frag_prefetch]]` applies to a `foreach` of one variable over its whole bound"
                .into(),
            "write `foreach {kt} in [n]` (no second variable, no `kt(lo:hi)` range)".into(),
        ));
    }
    if !cx.warp_kernel() || !cx.in_warp_mma(s) {
        return Err((
            codes::FRAG_PREFETCH_TARGET,
            span,
            "`[[frag_prefetch]]` applies to a loop of warp-level `mma`s (under `: group`)".into(),
            "the WGMMA path pipelines through its own rings; remove the attribute".into(),
        ));
    }
    let wait = match body.first() {
        Some(&w) if matches!(m.stmts[w], Stmt::DmaWait { .. }) => w,
        first => {
            return Err((
                codes::FRAG_PREFETCH_WAIT,
                first.map_or(span, |&f| m.stmt_span(f)),
                "the first statement of a `[[frag_prefetch]]` loop is the `dma.wait` that lands its tile".into(),
                "begin the loop body with `dma.wait N;` (the wait moves before the tile's last k-step)".into(),
            ));
        }
    };
    let steps = match body.last() {
        Some(&l) if body.len() >= 2 && matches!(m.stmts[l], Stmt::Foreach { .. }) => l,
        last => {
            return Err((
                codes::FRAG_PREFETCH_BODY,
                last.map_or(span, |&f| m.stmt_span(f)),
                "the last statement of a `[[frag_prefetch]]` loop is the `foreach` over its k-steps".into(),
                "end the loop body with `foreach {kk} in [BK / 16] { loads; mmas; }`".into(),
            ));
        }
    };
    if !one_var(&m.stmts[steps]) || m.loop_range(steps, 0).is_some() {
        return Err((
            codes::FRAG_PREFETCH_BODY,
            m.stmt_span(steps),
            "the k-step loop of a `[[frag_prefetch]]` loop has one variable over its whole bound"
                .into(),
            "write `foreach {kk} in [BK / 16]`".into(),
        ));
    }
    let copies: Vec<StmtId> = body[1..body.len() - 1].to_vec();
    if let Some(&c) = copies
        .iter()
        .find(|&&c| !matches!(m.stmts[c], Stmt::DmaCopy { is_async: true, .. }))
    {
        return Err((
            codes::FRAG_PREFETCH_BODY,
            m.stmt_span(c),
            "between the `dma.wait` and the k-step loop a `[[frag_prefetch]]` loop issues `dma.copy.async`s only".into(),
            "the next tile's fragments are read before these statements run; move other work out of the loop".into(),
        ));
    }
    let Stmt::Foreach {
        body: step_body,
        extents,
        ..
    } = &m.stmts[steps]
    else {
        unreachable!("checked above");
    };
    let mut loads = Vec::new();
    let mut mmas = Vec::new();
    for &t in step_body {
        match &m.stmts[t] {
            Stmt::MmaLoad { .. } if mmas.is_empty() => loads.push(t),
            Stmt::MmaLoad { name, .. } => {
                return Err((
                    codes::FRAG_PREFETCH_ORDER,
                    m.stmt_span(t),
                    format!(
                        "`{}` is loaded after an `mma` of the same k-step; a `[[frag_prefetch]]` step loads every fragment first",
                        name.name
                    ),
                    "move the `mma.load`s before the step's first `mma`".into(),
                ));
            }
            Stmt::Mma { .. } if m.sparse_meta(t).is_none() && m.mma_scale(t).is_none() => {
                mmas.push(t)
            }
            _ => {
                return Err((
                    codes::FRAG_PREFETCH_ORDER,
                    m.stmt_span(t),
                    "a `[[frag_prefetch]]` k-step holds `mma.load`s, then plain `mma`s, nothing else".into(),
                    "move this statement out of the k-step loop".into(),
                ));
            }
        }
    }
    if mmas.is_empty() {
        return Err((
            codes::FRAG_PREFETCH_ORDER,
            m.stmt_span(steps),
            "a `[[frag_prefetch]]` k-step has no `mma`".into(),
            "the k-step loop loads the operands and issues the `mma`s".into(),
        ));
    }
    // Every load is an operand of this step's `mma`s, and every operand is loaded here.
    for &x in &mmas {
        let Stmt::Mma { a, b, .. } = &m.stmts[x] else {
            continue;
        };
        for (id, role) in [(a, Role::A), (b, Role::B)] {
            let def = match cx.res.idents.get(&(x, role)) {
                Some(Binding::Frag(d)) => *d,
                _ => continue,
            };
            if !loads.contains(&def) {
                return Err((
                    codes::FRAG_PREFETCH_OPERAND,
                    id.span,
                    format!(
                        "`{}` is not loaded in this k-step; a `[[frag_prefetch]]` step's `mma`s read the fragments it loads",
                        id.name
                    ),
                    "load the operand in the k-step loop, before the `mma`s".into(),
                ));
            }
        }
    }
    for &l in &loads {
        let Stmt::MmaLoad { name, src, .. } = &m.stmts[l] else {
            continue;
        };
        let read = mmas.iter().any(|&x| {
            [Role::A, Role::B]
                .iter()
                .any(|r| cx.res.idents.get(&(x, *r)) == Some(&Binding::Frag(l)))
        });
        if !read {
            return Err((
                codes::FRAG_PREFETCH_OPERAND,
                name.span,
                format!(
                    "`{}` is not an A or B operand of this k-step's `mma`s",
                    name.name
                ),
                "a `[[frag_prefetch]]` step loads operands only (an accumulator stays outside the loop)"
                    .into(),
            ));
        }
        if space(cx, *src) != Some(MemSpace::Shared) {
            return Err((
                codes::FRAG_PREFETCH_SOURCE,
                m.expr_span(*src),
                format!(
                    "`{}` is not loaded from shared memory; `[[frag_prefetch]]` moves `ldmatrix` reads of staged tiles",
                    name.name
                ),
                "stage the operand in a `shared` tile with `dma.copy.async`".into(),
            ));
        }
    }
    // The double buffer alternates by the parity of the step: an even count keeps the next
    // tile's first step in slot 0.
    let f = extents.first().and_then(|&x| cx.static_value(x));
    if !f.is_some_and(|f| f >= 2 && f % 2 == 0) {
        let shown = f.map_or("not a compile-time value".to_string(), |f| f.to_string());
        return Err((
            codes::FRAG_PREFETCH_STEPS,
            extents.first().map_or(span, |&x| m.expr_span(x)),
            format!(
                "a `[[frag_prefetch]]` tile takes an even number of k-steps (2 or more); here: {shown}"
            ),
            "choose the K tile so that `BK / 16` is even (e.g. BK = 32 or 64)".into(),
        ));
    }
    Ok(PrefetchLoop {
        wait,
        copies,
        steps,
        loads,
        mmas,
    })
}

/// The memory space of the tensor a view expression reads.
fn space(cx: &Cx, x: ExprId) -> Option<MemSpace> {
    let m = cx.m;
    let mut x = x;
    loop {
        match &m.exprs[x] {
            Expr::View { base, .. } | Expr::Index { base, .. } => x = *base,
            Expr::Name(_) => break,
            _ => return None,
        }
    }
    match cx.res.bindings.get(&x)? {
        Binding::Param(_) => Some(MemSpace::Global),
        Binding::Tensor(d, _) => match &m.stmts[*d] {
            Stmt::TensorDecl { space, .. } => Some(*space),
            _ => None,
        },
        _ => None,
    }
}

/// `[[frag_prefetch]]` (no arguments) on a loop of the shape above.
pub(crate) fn check(cx: &Cx, a: &Attribute, diags: &mut Diagnostics) {
    if !a.args.is_empty() {
        diags.push(
            Diagnostic::new(
                codes::FRAG_PREFETCH_TARGET,
                a.span,
                "`[[frag_prefetch]]` takes no arguments",
            )
            .with_help("write `[[frag_prefetch]]`"),
        );
        return;
    }
    if let Err((code, span, msg, help)) = parts(cx, a.target) {
        diags.push(
            Diagnostic::new(code, span, msg)
                .with_note(a.span, "the attribute")
                .with_help(help),
        );
    }
}
