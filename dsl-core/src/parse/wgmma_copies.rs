//! In a kernel with a `: group-4` level (the WGMMA path), a synchronous swizzled copy of a
//! global tile into a shared tile that a WGMMA operand is read from, `dma.copy.swiz<N> g => s;`,
//! is the TMA load `tma.copy.swiz<N> g => s;`: both leave the tile in shared memory in the
//! N-byte swizzled layout the operand's descriptor reads, and both complete before the next
//! statement. The statement is rewritten here so the checks, the swizzle agreement and the
//! lowering treat it as the TMA copy it lowers to.

use crate::ir::{Arena, CopyDst, Expr, ExprId, ExtStmt, Level, Stmt};

/// The tensor a view or array entry is rooted at.
fn root(exprs: &Arena<Expr>, mut e: ExprId) -> Option<&str> {
    loop {
        match &exprs[e] {
            Expr::View { base, .. } | Expr::Index { base, .. } => e = *base,
            Expr::Name(n) => return Some(n),
            _ => return None,
        }
    }
}

pub(crate) fn desugar(stmts: &mut Arena<Stmt>, exprs: &Arena<Expr>) {
    let wgmma = stmts.iter().any(|(_, s)| {
        matches!(s, Stmt::Parallel { levels, .. } if levels.iter().any(|l| l.level == Level::Group4))
    });
    if !wgmma {
        return;
    }
    let operands: Vec<&str> = stmts
        .iter()
        .filter_map(|(_, s)| match s {
            Stmt::MmaLoad { src, .. } => root(exprs, *src),
            _ => None,
        })
        .collect();
    let copies: Vec<_> = stmts
        .iter()
        .filter_map(|(h, s)| match s {
            Stmt::Ext(ExtStmt::DmaFuture {
                tma: false,
                bind: None,
                is_async: false,
                modifiers,
                dst: CopyDst::Expr(d),
                after: None,
                ..
            }) if modifiers.len() == 1
                && modifiers[0].0.name == "swiz"
                && modifiers[0].1.len() == 1
                && root(exprs, *d).is_some_and(|r| operands.contains(&r)) =>
            {
                Some(h)
            }
            _ => None,
        })
        .collect();
    for h in copies {
        if let Stmt::Ext(ExtStmt::DmaFuture {
            modifiers,
            src,
            dst,
            ..
        }) = stmts[h].clone()
        {
            stmts[h] = Stmt::TmaCopy {
                event: None,
                swizzle: Some(modifiers[0].1[0]),
                src,
                dst,
                bind: None,
            };
        }
    }
}
