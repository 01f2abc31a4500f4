//! SIMT-path statements: `dma.copy`, `dma.wait` and `reduce`.
//!
//! A `dma.copy` global → shared is cooperative: every thread of the block copies a strided share
//! of the tile with 16-byte `cp.async` (LDGSTS) when the whole tile is in bounds and 16-byte
//! aligned, and element by element with zero fill otherwise (edges, odd leading dimensions).
//! Into a `.transpose()`d shared tile it is cooperative too, with 16-byte global loads
//! (LDG.E.128) and a transposed store. The synchronous forms are synchronous, as the DSL says: a
//! barrier before the first copy (earlier readers of the buffer are done) and after the last one
//! (the tile is visible to every thread). `dma.copy.async` leaves the copy in flight until a
//! `dma.wait N` (at most N copies of this thread still in flight, then a barrier).
//!
//! `dma.copy.async … => t.transpose()` is staged through registers: the issue is the 16-byte
//! loads into a per-destination `tsl_stage_t` (declared once at the top of the kernel body), and
//! the copy lands — the transposed shared stores — at the next `dma.wait`, so the loads overlap
//! whatever runs in between (the register-prefetch double buffer of hand-written SGEMMs). An
//! async copy right after a barrier (a `dma.wait`) or right after another async copy needs no
//! barrier of its own.
//!
//! A copy with a `local` side moves one thread's register tile ([`super::regtile`]).
//!
//! Inside a loop, the entry of a shared tensor array whose index does not change in the loop
//! (`b_s[kt % 2]` in `foreach {k}`) is computed once, before the loop ([`hoist_entries`]): NVVM
//! otherwise folds the stage offset into every fragment address (with OR, when the stage stride
//! is a power of two) and recomputes each one instead of using immediate offsets.
//!
//! `reduce.sum x : group` is a butterfly all-reduce over the warp's 32 lanes (SHFL.BFLY).

use super::LowerError;
use super::body::Emitter;
use super::cexpr::cpp_paren;
use crate::ir::{CopyDst, Expr, ExprId, Ident, MemSpace, Module, ReduceOp, Stmt, StmtId};

pub fn dma_copy(
    e: &mut Emitter,
    _s: StmtId,
    is_async: bool,
    src: ExprId,
    dst: &CopyDst,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let sv = e.cx().view(src)?;
    let CopyDst::Expr(d) = dst else {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.copy … => shared` (a fresh buffer) is not supported yet; declare the shared tensor and copy into it",
        ));
    };
    let dv = e.cx().view(*d)?;
    if sv.tensor.space == MemSpace::Local || dv.tensor.space == MemSpace::Local {
        if is_async {
            return Err(LowerError::new(
                m.expr_span(src),
                "a copy into or out of registers is per thread and synchronous; drop `.async`",
            ));
        }
        return super::regtile::copy(e, &sv, src, &dv, *d, line);
    }
    if sv.tensor.space != MemSpace::Global || dv.tensor.space != MemSpace::Shared {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.copy` lowers global → shared, global ↔ local and shared ↔ local copies; other directions are not supported yet",
        ));
    }
    if sv.tile.len() != 2 || sv.transposed {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.copy` into shared memory lowers 2-D tiles",
        ));
    }
    let p = sv.tensor.param.unwrap_or(0);
    e.pointer_params.insert(p);
    let (rows, cols) = (sv.tile[0].to_cpp(), sv.tile[1].to_cpp());
    let t = &sv.tensor;
    let ld = cpp_paren(&dv.tensor.ld());
    let barrier = if is_async {
        !follows_barrier_or_async_copy(e)
    } else {
        !e.pending_dma
    };
    if barrier {
        e.line(
            "__syncthreads();  // earlier readers of the destinations are done",
            line,
        );
    }
    let helper = match (dv.transposed, is_async) {
        (true, _) => "tsl_copy_g2s_t",
        (false, true) => "tsl_copy_g2s_async",
        (false, false) => "tsl_copy_g2s",
    };
    let targs = format!("{rows}, {cols}, {ld}, tsl_threads");
    let stage = if dv.transposed && is_async {
        // One register stage per destination tensor: every async copy into it has one shape.
        let stage = format!("tsl_stage_{}", dv.tensor.name);
        let issue = format!(">({stage}, ");
        if let Some(other) = e.lines.iter().find_map(|l| {
            let rest = l.code.strip_prefix("tsl_copy_g2s_t<")?;
            let (ta, _) = rest.split_once(&issue)?;
            (ta != targs).then_some(ta)
        }) {
            return Err(LowerError::new(
                m.expr_span(*d),
                format!(
                    "the async copies into `{}.transpose()` share one register stage, so they need one tile shape: `<{targs}>` here, `<{other}>` before",
                    dv.tensor.name
                ),
            ));
        }
        format!("{stage}, ")
    } else {
        String::new()
    };
    let code = format!(
        "{helper}<{targs}>({stage}{}, {}, {}, {}, {}, {});",
        dv.tile_ptr(),
        t.name,
        sv.origin[0],
        sv.origin[1],
        t.shape[0].to_cpp(),
        t.shape[1].to_cpp()
    );
    if is_async && let Some(cond) = super::even::grid_tile_conditions(m, src, &sv) {
        e.even_copies.push((code.clone(), cond));
    }
    e.line(code, line);
    if !is_async {
        // Waited for (with one barrier) before the next statement that is not a copy.
        e.pending_dma = true;
    }
    Ok(())
}

/// Whether the last line emitted is a barrier, or an async cooperative copy (a sync one leaves
/// `pending_dma` set): then the threads are already past every earlier reader of shared memory,
/// or the copy before this one emitted the barrier that covers both.
fn follows_barrier_or_async_copy(e: &Emitter) -> bool {
    e.lines.last().is_some_and(|l| {
        l.code.starts_with("__syncthreads();")
            || (!e.pending_dma && l.code.starts_with("tsl_copy_g2s"))
    })
}

/// The calls that bring `lowering/simt_tiles.cuh` into the emitted file (codegen-cuda reads
/// this list, together with `tsl_copy_g2s_async<`, which a kernel only keeps when one of these
/// is present — see `fallback_without_tile_helpers`).
pub const TILE_HELPERS: [&str; 7] = [
    "tsl_copy_g2r<",
    "tsl_copy_r2g<",
    "tsl_copy_tile<",
    "tsl_copy_tile_st<",
    "tsl_copy_g2s_t<",
    "tsl_warp_sum(",
    "tsl_warp_max(",
];

/// `tsl_copy_g2s_async` (the interior fast path) lives in `simt_tiles.cuh`; a kernel that calls
/// nothing else from that file takes `tsl_copy_g2s` (`simt.cuh`), which does the same copy.
fn fallback_without_tile_helpers(e: &mut Emitter, start: usize) {
    let tiles = e
        .lines
        .iter()
        .any(|l| TILE_HELPERS.iter().any(|h| l.code.contains(h)));
    if tiles {
        return;
    }
    for l in e.lines.iter_mut().skip(start) {
        if let Some(rest) = l.code.strip_prefix("tsl_copy_g2s_async<") {
            l.code = format!("tsl_copy_g2s<{rest}");
        }
    }
}

/// The register stages of `dma.copy.async … => t.transpose()` issued in `lines[start..]`: each
/// is declared at `start` (once, before the loops that issue and land it), and every
/// `dma.wait` in the range lands every stage just before it waits. Idempotent, so that nested
/// `parallel` statements may each call it.
pub fn finish_async_copies(e: &mut Emitter, start: usize) {
    let issued = e.lines.iter().skip(start).any(|l| {
        l.code.starts_with("tsl_copy_g2s_async<")
            || (l.code.starts_with("tsl_copy_g2s_t<")
                && l.code.contains(">(tsl_stage_")
                && !is_land(&l.code))
    });
    let drained = e
        .lines
        .last()
        .is_some_and(|l| l.code.starts_with("tsl_cp_async_wait_all();"));
    if issued && !drained {
        // Copies issued ahead (the last iterations' prefetches) do not outlive the block.
        e.line(
            "tsl_cp_async_wait_all();  // no async copy outlives the block",
            None,
        );
    }
    fallback_without_tile_helpers(e, start);
    // (stage name, template arguments, DSL line of its first issue)
    let mut stages: Vec<(String, String, Option<u32>)> = Vec::new();
    for l in e.lines.iter().skip(start) {
        let Some((targs, args)) = l
            .code
            .strip_prefix("tsl_copy_g2s_t<")
            .and_then(|r| r.split_once(">(tsl_stage_"))
        else {
            continue;
        };
        let Some((tensor, _)) = args.split_once(',') else {
            continue;
        };
        if !stages.iter().any(|st| st.0 == tensor) {
            stages.push((tensor.to_string(), targs.to_string(), l.dsl_line));
        }
    }
    let land = |tensor: &str, targs: &str| format!("tsl_copy_g2s_t<{targs}>(tsl_stage_{tensor});");
    // Lands before every wait that does not have them yet (from the back: indices stay valid).
    let waits: Vec<usize> = (start..e.lines.len())
        .filter(|&i| e.lines[i].code.starts_with("tsl_cp_async_wait<"))
        .collect();
    for &w in waits.iter().rev() {
        let (indent, dsl_line) = (e.lines[w].indent, e.lines[w].dsl_line);
        let before: Vec<String> = e.lines[..w]
            .iter()
            .rev()
            .map(|l| l.code.clone())
            .take_while(|c| is_land(c))
            .collect();
        for (tensor, targs, _) in stages.iter().rev() {
            let code = land(tensor, targs);
            if before.iter().any(|c| c.starts_with(&code)) {
                continue;
            }
            e.lines.insert(
                w,
                super::kernel::Line {
                    indent,
                    code: format!("{code}  // the transposed copy in flight lands"),
                    dsl_line,
                },
            );
        }
    }
    let indent = e.lines.get(start).map(|l| l.indent).unwrap_or(e.indent);
    for (tensor, targs, dsl_line) in stages.iter().rev() {
        // The element type is the destination's, from its `T* name = …;` line.
        let ty = e
            .lines
            .iter()
            .find_map(|l| {
                let (ty, rest) = l.code.split_once("* ")?;
                rest.starts_with(&format!("{tensor} = "))
                    .then(|| ty.to_string())
            })
            .unwrap_or_else(|| "float".into());
        let decl = format!("tsl_stage_t<{targs}, {ty}> tsl_stage_{tensor};");
        if e.lines.iter().any(|l| l.code.starts_with(&decl)) {
            continue;
        }
        e.lines.insert(
            start,
            super::kernel::Line {
                indent,
                code: format!("{decl}  // registers of the async transposed copies in flight"),
                dsl_line: *dsl_line,
            },
        );
    }
}

/// `tsl_copy_g2s_t<…>(tsl_stage_x);`: a stage landing (an issue passes more arguments).
fn is_land(code: &str) -> bool {
    code.strip_prefix("tsl_copy_g2s_t<")
        .and_then(|r| r.split_once(">(tsl_stage_"))
        .is_some_and(|(_, args)| {
            args.split_once(')')
                .is_some_and(|(name, _)| !name.contains(','))
        })
}

/// The loop-invariant shared array entries of a SIMT loop over `vars` with body `body`: for each,
/// the C++ of the entry pointer, a name for it, its element type and the tensor. Entries whose
/// index mentions a variable bound in the loop (its own, or one declared inside) are not.
pub fn hoist_entries(
    e: &Emitter,
    vars: &[Ident],
    body: &[StmtId],
) -> Vec<(String, String, &'static str, String)> {
    let m = e.m;
    let mut bound: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
    let mut indexed = Vec::new();
    walk(m, body, &mut bound, &mut indexed);
    let mut out: Vec<(String, String, &'static str, String)> = Vec::new();
    for ix in indexed {
        let Expr::Index { base, index } = &m.exprs[ix] else {
            continue;
        };
        let Expr::Name(tensor) = &m.exprs[*base] else {
            continue;
        };
        let shared_array = e
            .scopes
            .tensor(tensor)
            .is_some_and(|t| t.space == MemSpace::Shared && t.count.is_some());
        let mut names = Vec::new();
        free_names(m, *index, &mut names);
        if !shared_array || names.iter().any(|n| bound.contains(n)) {
            continue;
        }
        let Ok(v) = e.cx().view(ix) else { continue };
        let text = v.entry_ptr();
        // Hoisted already by an enclosing loop (its marker is in scope), or seen here.
        if e.scopes.get(&hoist_marker(&text)).is_some() || out.iter().any(|h| h.0 == text) {
            continue;
        }
        // A name no earlier line declares (sibling loops hoist into the same C++ scope).
        let name = (0..)
            .map(|n| match n {
                0 => format!("tsl_{tensor}_at"),
                _ => format!("tsl_{tensor}_at{n}"),
            })
            .find(|name| {
                let decl = format!("* const {name} = ");
                !e.lines.iter().any(|l| l.code.contains(&decl)) && !out.iter().any(|h| h.1 == *name)
            })
            .unwrap_or_default();
        out.push((
            text,
            name,
            super::body::scalar_type(v.tensor.dtype),
            tensor.clone(),
        ));
    }
    out
}

/// The scope entry that says `text` is hoisted by an enclosing loop (not a DSL name).
pub fn hoist_marker(text: &str) -> String {
    format!("tsl hoisted {text}")
}

/// The `base[index]` expressions of `stmts` (recursively), and every name they bind.
fn walk(m: &Module, stmts: &[StmtId], bound: &mut Vec<String>, out: &mut Vec<ExprId>) {
    for &s in stmts {
        let st = &m.stmts[s];
        for x in crate::check::stmt_exprs(st) {
            indexes(m, x, out);
        }
        match st {
            Stmt::Foreach { vars, body, .. } => {
                bound.extend(vars.iter().map(|v| v.name.clone()));
                walk(m, body, bound, out);
            }
            Stmt::Parallel { levels, body } => {
                bound.extend(
                    levels
                        .iter()
                        .flat_map(|l| l.vars.iter().map(|v| v.name.clone())),
                );
                walk(m, body, bound, out);
            }
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                walk(m, then_body, bound, out);
                if let Some(b) = else_body {
                    walk(m, b, bound, out);
                }
            }
            Stmt::InThreads { body, .. } => walk(m, body, bound, out),
            Stmt::Let { name, .. } | Stmt::ScalarDecl { name, .. } => bound.push(name.name.clone()),
            _ => {}
        }
    }
}

fn indexes(m: &Module, x: ExprId, out: &mut Vec<ExprId>) {
    match &m.exprs[x] {
        Expr::Index { base, .. } => {
            out.push(x);
            indexes(m, *base, out);
        }
        Expr::View { base, .. } | Expr::Field { base, .. } => indexes(m, *base, out),
        _ => {}
    }
}

fn free_names(m: &Module, x: ExprId, out: &mut Vec<String>) {
    match &m.exprs[x] {
        Expr::Name(n) => out.push(n.clone()),
        Expr::Unary { expr, .. } => free_names(m, *expr, out),
        Expr::Binary { lhs, rhs, .. } => {
            free_names(m, *lhs, out);
            free_names(m, *rhs, out);
        }
        Expr::Compose { outer, inner } => {
            free_names(m, *outer, out);
            free_names(m, *inner, out);
        }
        Expr::Call { args, .. } => args.iter().for_each(|a| free_names(m, *a, out)),
        Expr::Index { base, index } => {
            free_names(m, *base, out);
            free_names(m, *index, out);
        }
        Expr::View { base, args, .. } => {
            free_names(m, *base, out);
            args.iter().for_each(|a| free_names(m, *a, out));
        }
        Expr::Field { base, .. } => free_names(m, *base, out),
        Expr::Int(_) | Expr::Float { .. } | Expr::Bool(_) | Expr::Wildcard => {}
    }
}

/// `dma.wait N;`
pub fn dma_wait(e: &mut Emitter, pending: ExprId, line: Option<u32>) -> Result<(), LowerError> {
    let n = e.cx().sym(pending)?;
    e.line(format!("tsl_cp_async_wait<{}>();", n.to_cpp()), line);
    e.line(
        "__syncthreads();  // the landed tiles are visible to every thread",
        line,
    );
    Ok(())
}

/// `reduce.<op> x : group;`
pub fn reduce(
    e: &mut Emitter,
    op: ReduceOp,
    target: &Ident,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let f = match op {
        ReduceOp::Sum => "tsl_warp_sum",
        ReduceOp::Max => "tsl_warp_max",
    };
    e.line(
        format!(
            "{0} = {f}({0});  // across the 32 lanes of the warp",
            target.name
        ),
        line,
    );
    Ok(())
}

#[cfg(test)]
#[path = "simt_tests.rs"]
mod tests;
