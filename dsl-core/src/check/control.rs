//! Where jumps may stand: `break` and `continue` inside a loop (`foreach`, `while`) of the same
//! thread code, `yield` inside a `parallel` (it hands the thread's turn back within a launch).

use super::{Cx, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Block, ExtStmt, Stmt};

pub(crate) fn check_control(cx: &Cx, diags: &mut Diagnostics) {
    walk(cx, &cx.m.kernel.body, false, false, diags);
}

fn walk(cx: &Cx, b: &Block, in_loop: bool, in_parallel: bool, diags: &mut Diagnostics) {
    let m = cx.m;
    for &s in b {
        let span = m.stmt_span(s);
        match &m.stmts[s] {
            Stmt::Ext(ExtStmt::Jump { kind }) => {
                let bad = match *kind {
                    "yield" => (!in_parallel).then_some("`yield` outside every `parallel`"),
                    _ => (!in_loop).then_some("outside every loop"),
                };
                if let Some(why) = bad {
                    let msg = if *kind == "yield" {
                        why.to_string()
                    } else {
                        format!("`{kind}` {why}")
                    };
                    diags.push(Diagnostic::new(codes::MISPLACED_JUMP, span, msg).with_help(
                        "jumps leave a `foreach`/`while`; `yield` belongs in a `parallel` body",
                    ));
                }
            }
            Stmt::Parallel { body, .. } => walk(cx, body, false, true, diags),
            Stmt::Foreach { body, .. } | Stmt::Ext(ExtStmt::While { body, .. }) => {
                walk(cx, body, true, in_parallel, diags)
            }
            other => {
                for inner in super::stmt_blocks(other) {
                    walk(cx, inner, in_loop, in_parallel, diags);
                }
            }
        }
    }
}
