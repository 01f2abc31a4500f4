//! Static hazards: kernels that the other passes accept but that would compute the wrong
//! result, hang or race on the GPU. Each class is a file of its own and has its own code
//! (`E12xx` errors, `W12xx` warnings); every check runs under the configuration (and the
//! problem sizes when given), so the tuner's legality filter and the launcher apply them too.
//!
//! - `extent`: loop and grid extents that are zero or negative; extents that truncate (`/`
//!   that leaves a remainder), so the threads do not cover their tile;
//! - `tiles` (warnings): `block # inner` indices whose inner extents do not multiply to the
//!   grid's tile, and block tiles loaded at another size than the grid's;
//! - `arith`: division by zero and 64-bit overflow in any kernel expression;
//! - `init`: shared/local tiles read before written; parameters never used (a warning);
//! - `ring`: event protocols (arrival counts, initial credits, double triggers);
//! - `races`: warnings for writes to global tensors read elsewhere, and for stores every
//!   thread of a level makes to one element.

mod arith;
mod extent;
mod init;
mod races;
mod ring;
mod tiles;

use super::Cx;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Block, ExprId, Module, Stmt, StmtId};

/// Runs every hazard check but the arithmetic and event-protocol ones: errors into `diags`,
/// warnings into `warnings`.
pub(crate) fn check_hazards(cx: &Cx, diags: &mut Diagnostics, warnings: &mut Vec<Diagnostic>) {
    extent::check(cx, diags);
    tiles::check(cx, warnings);
    init::check(cx, diags, warnings);
    races::check(cx, warnings);
    ring::participants(cx, warnings);
}

/// Division by zero and 64-bit overflow in kernel expressions, and event protocols (arrival
/// counts, deadlocks, double triggers): they need only resolved names and values (the protocol
/// is left unchecked where something cannot be evaluated), so they run on kernels the lowering
/// does not support too — a deadlock is the program's, whatever compiles it.
pub(crate) fn check_program_hazards(cx: &Cx, diags: &mut Diagnostics) {
    arith::check(cx, diags);
    if diags.is_empty() {
        ring::check(cx, diags);
    }
}

/// What encloses a statement.
#[derive(Clone, Default)]
pub(crate) struct Scope {
    /// Conditions of the enclosing `inthreads` and `if` statements (with whether each is an
    /// `inthreads`), outermost first; an `else` branch records its `if`'s condition too.
    pub conds: Vec<(ExprId, bool)>,
    /// Enclosing `foreach` statements, outermost first.
    pub loops: Vec<StmtId>,
    /// Enclosing `if` statements (any branch).
    pub ifs: usize,
}

/// Calls `f` on every statement of `b` (pre-order) with what encloses it.
pub(crate) fn visit(m: &Module, b: &Block, scope: &mut Scope, f: &mut impl FnMut(StmtId, &Scope)) {
    for &s in b {
        f(s, scope);
        match &m.stmts[s] {
            Stmt::Parallel { body, .. } => visit(m, body, scope, f),
            Stmt::Foreach { body, .. } => {
                scope.loops.push(s);
                visit(m, body, scope, f);
                scope.loops.pop();
            }
            Stmt::InThreads { cond, body, .. } => {
                scope.conds.push((*cond, true));
                visit(m, body, scope, f);
                scope.conds.pop();
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                scope.conds.push((*cond, false));
                scope.ifs += 1;
                visit(m, then_body, scope, f);
                if let Some(e) = else_body {
                    visit(m, e, scope, f);
                }
                scope.ifs -= 1;
                scope.conds.pop();
            }
            _ => {}
        }
    }
}

/// Every statement of the kernel with its scope, pre-order.
pub(crate) fn statements(m: &Module) -> Vec<(StmtId, Scope)> {
    let mut out = Vec::new();
    visit(m, &m.kernel.body, &mut Scope::default(), &mut |s, sc| {
        out.push((s, sc.clone()))
    });
    out
}
