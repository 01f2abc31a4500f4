//! `[[…]]` attributes of statements: `launch_bounds(threads | _, blocks)` and `maxnreg(n)` on a
//! `parallel` whose first level is written `: block`, `schedule(…)` on anything. Arguments are
//! integers (`_` lets `launch_bounds` take the computed thread count); a `launch_bounds` thread
//! count must cover the threads the block has. All are hints no lowering reads yet: the gate
//! reports them.

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
            "schedule" => {}
            other => diags.push(err(
                format!("unknown attribute `[[{other}]]`"),
                "attributes are `launch_bounds`, `maxnreg` and `schedule`",
            )),
        }
    }
}
