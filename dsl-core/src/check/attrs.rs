//! `[[…]]` attributes of statements: `launch_bounds(threads | _, blocks)` and `maxnreg(n)` on a
//! `parallel` whose first level is written `: block`, `schedule(…)` on anything. Arguments are
//! integers (`_` lets `launch_bounds` take the computed thread count); a `launch_bounds` thread
//! count must cover the threads the block has. `schedule(k_tiles(p0, p1, …))` orders the K
//! steps of the dense `mma` it annotates: a permutation of `0 … n-1`. The SIMT path prints the
//! first two (`launch_attrs.rs` has the rest of their rules); the others, and all on the Hopper
//! path, are hints no lowering reads yet: the gate reports them.

use super::{Cx, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Expr, Stmt};

pub(crate) fn check_attributes(cx: &Cx, threads_per_block: u32, diags: &mut Diagnostics) {
    let m = cx.m;
    for a in &m.attributes {
        let err = |msg: String, help: &str| {
            Diagnostic::new(codes::ATTRIBUTE, a.span, msg).with_help(help.to_string())
        };
        let name = a.name.name.as_str();
        let on_block = match &m.stmts[a.target] {
            // The first level was written `: block` (a level the default mapping added spans
            // the whole statement).
            Stmt::Parallel { levels, .. } => levels.first().is_some_and(|l| {
                l.level == crate::ir::Level::Block && l.level_span != m.stmt_span(a.target)
            }),
            _ => false,
        };
        match name {
            "launch_bounds" | "maxnreg" => {
                if !on_block {
                    diags.push(err(
                        format!("`[[{name}]]` applies to a `parallel … : block`"),
                        "put it right before the block-level `parallel`",
                    ));
                    continue;
                }
                let max_args = if name == "maxnreg" { 1 } else { 2 };
                if a.args.is_empty() || a.args.len() > max_args {
                    diags.push(err(
                        format!("`[[{name}]]` takes 1 to {max_args} integer arguments"),
                        if name == "maxnreg" {
                            "write `[[maxnreg(64)]]`"
                        } else {
                            "write `[[launch_bounds(256, 2)]]` or `[[launch_bounds(_, 2)]]`"
                        },
                    ));
                    continue;
                }
                for (i, &arg) in a.args.iter().enumerate() {
                    if matches!(m.exprs[arg], Expr::Wildcard) && name == "launch_bounds" && i == 0 {
                        continue;
                    }
                    match cx.static_value(arg) {
                        Some(v) if v > 0 => {
                            if name == "launch_bounds"
                                && i == 0
                                && (v as u64) < threads_per_block as u64
                            {
                                diags.push(err(
                                    format!("`[[launch_bounds]]` allows {v} threads per block, but the block has {threads_per_block}"),
                                    "raise the bound, or write `_` to use the block's thread count",
                                ));
                            }
                        }
                        _ => diags.push(err(
                            format!(
                                "`[[{name}]]` argument `{}` is not a positive integer",
                                m.expr_to_string(arg)
                            ),
                            "write a positive integer constant",
                        )),
                    }
                }
            }
            "schedule" => check_schedule(cx, a, diags),
            "frag_prefetch" => super::warp_pipe::check(cx, a, diags),
            other => diags.push(err(
                format!("unknown attribute `[[{other}]]`"),
                "attributes are `launch_bounds`, `maxnreg`, `schedule` and `frag_prefetch`",
            )),
        }
    }
}

/// `[[schedule(k_tiles(…))]]`: on a dense `mma` execution, one term `k_tiles` whose arguments
/// are integer constants forming a permutation of `0 … n-1` (the issue order of its K steps).
fn check_schedule(cx: &Cx, a: &crate::ir::Attribute, diags: &mut Diagnostics) {
    let m = cx.m;
    let err = |span, msg: String, help: &str| {
        Diagnostic::new(codes::ATTRIBUTE, span, msg).with_help(help.to_string())
    };
    if !matches!(m.stmts[a.target], Stmt::Mma { .. }) {
        diags.push(err(
            a.span,
            "`[[schedule]]` applies to an `mma` execution statement".into(),
            "put it right before `mma.row.row acc, a, b;` (or another `mma.<a>.<b>`)",
        ));
        return;
    }
    if m.sparse.iter().any(|s| s.stmt == a.target) {
        diags.push(err(
            a.span,
            "`[[schedule]]` does not apply to a sparse `mma` (`.sp`)".into(),
            "remove the attribute: sparse WGMMAs issue their K steps in order",
        ));
        return;
    }
    let term = match a.args.as_slice() {
        [t] => match &m.exprs[*t] {
            Expr::Call { func, args } if func.name == "k_tiles" => Some(args),
            _ => None,
        },
        _ => None,
    };
    let Some(args) = term else {
        diags.push(err(
            a.span,
            "`[[schedule]]` takes one term, `k_tiles(…)`".into(),
            "write `[[schedule(k_tiles(3, 2, 1, 0))]]`",
        ));
        return;
    };
    if args.is_empty() {
        diags.push(err(
            a.span,
            "`k_tiles()` names no K step".into(),
            "list the K steps in their issue order: `k_tiles(1, 0)`",
        ));
        return;
    }
    let n = args.len() as i64;
    let mut seen = vec![false; args.len()];
    for &arg in args {
        match cx.static_value(arg) {
            Some(v) if (0..n).contains(&v) && !seen[v as usize] => seen[v as usize] = true,
            Some(v) if (0..n).contains(&v) => {
                diags.push(err(
                    m.expr_span(arg),
                    format!(
                        "K step {v} appears twice: `k_tiles` must be a permutation of [0, {n})"
                    ),
                    "name every K step exactly once",
                ));
                return;
            }
            _ => {
                diags.push(err(
                    m.expr_span(arg),
                    format!(
                        "`{}` is not a K step: `k_tiles` must be a permutation of [0, {n})",
                        m.expr_to_string(arg)
                    ),
                    "write integer constants from 0 to the number of K steps minus 1",
                ));
                return;
            }
        }
    }
}
