//! Pass `even`: loop versioning for the SIMT path's async tile copies.
//!
//! An async copy of a tile of a global tensor's own grid (`a.subspan(BM, BK).at(bm, kt + 1)`)
//! tests its tile against the tensor's edges: chunk by chunk at a ragged edge, with a uniform
//! test per tile in the interior. Those tests are branches, and a branch ends a basic block:
//! ptxas then schedules the copy code and the loop's FMAs separately, and the FMA block's
//! register allocation suffers for it (the SGEMM k8 loop ran 1,271 SASS instructions in a dozen
//! blocks). When the grid divides the tensor (`M % BM == 0 && K % BK ==
//! 0`), every tile lies wholly inside it or wholly past its end, so one predicate per tile
//! decides everything and the copy needs no branch.
//!
//! A loop whose trip count depends on a dimension and that issues such copies is therefore
//! emitted twice, behind one block-uniform test of the conditions of all its copies:
//!
//! ```text
//! const bool tsl_even = M % BM == 0 && K % BK == 0 && N % BN == 0;
//! if (tsl_even) {
//!   for (…) { … tsl_copy_g2s_async<…, true>(…); … }   // branch-free copies
//! } else {
//!   for (…) { … tsl_copy_g2s_async<…>(…); … }         // the general copies
//! }
//! ```
//!
//! Loops of a static trip count (`#pragma unroll`ed prologues) are left alone, and so is a loop
//! nested in one already versioned.

use super::cexpr::View;
use super::cxx::{CExpr, COp};
use super::kernel::{Line, Mark, Op};
use super::lowered::Body;
use crate::check::KernelInfo;
use crate::ir::ExprId;
use crate::sym::Sym;

/// For a copy from `src` (resolved as `sv`): when `src` is `t.subspan(R, C).at(i, j)` on a
/// tensor — a tile of the tensor's own [R, C] grid, origin `(i·R, j·C)` — the C++ conditions
/// under which that grid divides the tensor (`["M % BM == 0", "K % BK == 0"]`, none for a
/// tile of 1 × 1): then the tile lies wholly inside it or wholly past its end, and 16-byte
/// aligned, its rows being whole chunks.
pub fn grid_tile_conditions(info: &KernelInfo, src: ExprId, sv: &View) -> Option<Vec<CExpr>> {
    if !info.sym_views.get(&src)?.as_ref().ok()?.grid_tile {
        return None;
    }
    Some(
        (0..sv.tile.len())
            .filter(|&d| sv.tile[d] != Sym::Int(1))
            .map(|d| {
                CExpr::sym(&sv.tensor.shape[d])
                    .rem(CExpr::sym_operand(&sv.tile[d]))
                    .eq(CExpr::int(0))
            })
            .collect(),
    )
}

/// Pass `versioning`: versions the outermost dimension-bounded loops in `lines[start..end]` (a
/// `parallel` body) that issue async grid-tile copies (recorded in `e.even_copies` by
/// `super::simt::dma_copy`).
/// A nested `parallel` region is left alone (its own run of the pass versioned it), and so is
/// a loop that holds one: versioning it would copy the region, whose copies the pass would then
/// find again.
pub fn version_loops(e: &mut Body, start: usize, mut end: usize) {
    let mut i = start;
    while i < end {
        if e.lines[i].op == Op::Mark(Mark::ParallelStart) {
            i = region_end(&e.lines, i) + 1;
            continue;
        }
        let Some(end_of_loop) = loop_end(&e.lines, i) else {
            i += 1;
            continue;
        };
        if e.lines[i..=end_of_loop]
            .iter()
            .any(|l| matches!(l.op, Op::Mark(_)))
        {
            i += 1;
            continue;
        }
        match copy_conditions(e, i, end_of_loop) {
            Some(conds) => {
                let n = version(e, i, end_of_loop, &conds);
                end = end + n - (end_of_loop + 1 - i);
                i += n;
            }
            None => i += 1,
        }
    }
}

/// The index of the `ParallelEnd` closing the region opened at `lines[i]`.
fn region_end(lines: &[Line], i: usize) -> usize {
    let mut depth = 0usize;
    for (j, l) in lines.iter().enumerate().skip(i) {
        match l.op {
            Op::Mark(Mark::ParallelStart) => depth += 1,
            Op::Mark(Mark::ParallelEnd) => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    lines.len()
}

/// If `lines[i]` opens a loop whose trip count is not static, the index of its `End`.
fn loop_end(lines: &[Line], i: usize) -> Option<usize> {
    let l = &lines[i];
    if !matches!(l.op, Op::For { .. }) {
        return None;
    }
    // A fully unrolled loop has a static trip count; one unrolled by a factor need not.
    if i > 0 && lines[i - 1].op == Op::Unroll(None) {
        return None;
    }
    (i + 1..lines.len()).find(|&j| lines[j].indent == l.indent && lines[j].op == Op::End)
}

/// The distinct conditions of the recorded grid-tile copies in `lines[from..=to]`, in order
/// (`["true"]` when they have none); `None` when the range has no such copy.
fn copy_conditions(e: &Body, from: usize, to: usize) -> Option<Vec<CExpr>> {
    let mut conds: Option<Vec<CExpr>> = None;
    for l in &e.lines[from..=to] {
        let Some(c) = l.op.call() else { continue };
        if let Some((_, c)) = e.even_copies.iter().find(|(copy, _)| copy == c) {
            let all = conds.get_or_insert_with(Vec::new);
            for part in c {
                if !all.contains(part) {
                    all.push(part.clone());
                }
            }
        }
    }
    conds.map(|c| {
        if c.is_empty() {
            vec![CExpr::Lit("true")]
        } else {
            c
        }
    })
}

/// Replaces the loop `lines[from..=to]` by the test and both versions; returns the number of
/// nodes that now stand in its place.
fn version(e: &mut Body, from: usize, to: usize, conds: &[CExpr]) -> usize {
    let indent = e.lines[from].indent;
    let dsl_line = e.lines[from].dsl_line;
    let name = (0..)
        .map(|n| match n {
            0 => "tsl_even".to_string(),
            _ => format!("tsl_even{n}"),
        })
        .find(|n| !e.lines.iter().any(|l| l.op.declared() == Some(n.as_str())))
        .unwrap_or_default();
    let body: Vec<Line> = e.lines[from..=to].to_vec();
    let shift = |l: &Line| Line {
        indent: l.indent + 1,
        ..l.clone()
    };
    let node = |op: Op, note: &str, dsl_line: Option<u32>| Line {
        indent,
        op,
        dsl_line,
        note: Some(note.into()),
    };
    let mut out = vec![
        node(
            Op::Decl {
                ty: "const bool".into(),
                name: name.clone(),
                init: CExpr::join(COp::And, conds.iter().cloned()),
            },
            "each tile this loop copies lies wholly inside its tensor or wholly past its end",
            dsl_line,
        ),
        node(
            Op::If {
                cond: CExpr::var(name),
                constexpr: false,
            },
            "the copies without bounds tests or branches",
            dsl_line,
        ),
    ];
    for l in &body {
        let mut l = shift(l);
        if let Op::Call(c) = &mut l.op
            && e.even_copies.iter().any(|(copy, _)| copy == c)
        {
            // The branch-free form: `EVEN = true` after the copy's template arguments.
            c.targs.push(CExpr::Lit("true"));
        }
        out.push(l);
    }
    out.push(node(
        Op::Else,
        "a ragged edge or an unaligned row: the copies test their chunks",
        None,
    ));
    out.extend(body.iter().map(shift));
    out.push(Line::new(indent, Op::End));
    let n = out.len();
    e.lines.splice(from..=to, out);
    n
}
