//! Element-wise work on `mma` accumulators: `mc op= value;` (whole-fragment arithmetic) and
//! `apply {i, j} in acc.span { … }`.
//!
//! Both lower to one unrolled loop over the elements the thread holds, in the accumulator's
//! register order (`lowering/frag_elem.cuh` numbers them and gives each element's row and
//! column in the tile):
//!
//! ```text
//! #pragma unroll
//! for (int tsl_e = 0; tsl_e < ELEMS; ++tsl_e) {
//!   const int i = tsl_frag_warp_row<FN, MB>(tsl_e);   // apply only: the element's row …
//!   const int j = tsl_frag_warp_col<FN>(tsl_e);       // … and column
//!   acc[tsl_e] = …;                                    // the body, `acc.at(i, j)` = acc[tsl_e]
//! }
//! ```
//!
//! Inside the loop the accumulator's name is bound to the element ([`Local::FragElem`]), so the
//! body's statements lower as usual: `acc.at(i, j)` (and, in whole-fragment arithmetic, `acc`)
//! reads and writes the register. On the WGMMA path the loop first waits for the WGMMAs that
//! write the accumulator, and a `wgmma.fence` follows it when a later WGMMA accumulates into the
//! registers the loop wrote.
//!
//! The checker (`check/frag_elem.rs`) guarantees the forms: an accumulator, indexed by the
//! apply's own variables, a warp accumulator laid out by an `mma` before the loop.

use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, KernelPath, Op};
use super::scope::{FragKind, Local};
use super::sym::Sym;
use super::warp_frags::Frag;
use crate::ir::{AssignOp, BinaryOp, DType, Expr, ExprId, Stmt, StmtId, ViewOp};

/// The helpers of `lowering/frag_elem.cuh` (the writer includes the section when a body names
/// one).
pub const HELPERS: [&str; 5] = [
    "tsl_frag_warp_row",
    "tsl_frag_warp_col",
    "tsl_frag_wgmma_row",
    "tsl_frag_wgmma_col",
    "tsl_frag_f16",
];

/// The C++ element variable of the loops.
const ELEM: &str = "tsl_e";

/// How a thread's elements of one accumulator are laid out.
struct Layout {
    /// The accumulator's C++ name.
    cpp: String,
    dtype: DType,
    /// Elements per thread (C++).
    elems: String,
    /// Row and column of element `tsl_e` (C++).
    row: String,
    col: String,
    /// Elements a thread's registers hold but the tile does not (an 8-row warp tile's upper
    /// half): skipped.
    skip: Option<String>,
    /// The WGMMA path: its registers are written asynchronously.
    wgmma: bool,
}

impl Layout {
    /// The C++ place of element `tsl_e`.
    fn place(&self) -> String {
        match self.dtype {
            DType::F16 => format!("tsl_frag_f16({}, {ELEM})", self.cpp),
            _ => format!("{}[{ELEM}]", self.cpp),
        }
    }
}

/// The C++ name of a warp accumulator (an element `mc[0][1]` of an array is `mc_0_1`).
fn cpp_name(name: &str) -> String {
    name.replace("][", "_")
        .replace(['[', ']'], "_")
        .trim_end_matches('_')
        .to_string()
}

fn layout(e: &Emitter, name: &str, at: crate::span::Span) -> Result<Layout, LowerError> {
    match e.path {
        KernelPath::Simt => match e.warp.frags.get(name) {
            Some(Frag::Acc {
                dtype,
                tiles: Some((fm, fnn)),
                rows,
                ..
            }) => Ok(Layout {
                cpp: cpp_name(name),
                dtype: *dtype,
                elems: Sym::mul(Sym::mul(fm.clone(), fnn.clone()), Sym::Int(4)).to_cpp(),
                row: format!("tsl_frag_warp_row<{}, {rows}>({ELEM})", fnn.to_cpp()),
                col: format!("tsl_frag_warp_col<{}>({ELEM})", fnn.to_cpp()),
                skip: (*rows == 8).then(|| format!("({ELEM} & 2) != 0")),
                wgmma: false,
            }),
            _ => Err(LowerError::new(
                at,
                format!("internal: `{name}` is not a warp accumulator laid out by an `mma`"),
            )),
        },
        KernelPath::Hopper => match e.frag(name) {
            Some(FragKind::Acc { n, dtype }) => Ok(Layout {
                cpp: name.to_string(),
                dtype,
                elems: Sym::bin(BinaryOp::Div, n, Sym::Int(2)).to_cpp(),
                row: format!("tsl_frag_wgmma_row({ELEM})"),
                col: format!("tsl_frag_wgmma_col({ELEM})"),
                skip: None,
                wgmma: true,
            }),
            _ => Err(LowerError::new(
                at,
                format!("internal: `{name}` is not a WGMMA accumulator"),
            )),
        },
    }
}

/// Whether `target` of an assignment is a whole accumulator (`mc *= s;`).
pub fn is_whole(e: &Emitter, target: ExprId) -> bool {
    let Expr::Name(n) = &e.m.exprs[target] else {
        return false;
    };
    match e.path {
        KernelPath::Simt => matches!(e.warp.frags.get(n), Some(Frag::Acc { .. })),
        KernelPath::Hopper => matches!(e.frag(n), Some(FragKind::Acc { .. })),
    }
}

/// The accumulator an `apply` walks (`apply {i, j} in acc.span`), if `s` is one.
pub fn walked(e: &Emitter, s: StmtId) -> Option<String> {
    let Stmt::Foreach { extents, .. } = &e.m.stmts[s] else {
        return None;
    };
    let name = crate::check::frag_elem::walked_name(e.m, extents)?;
    let acc = match e.path {
        KernelPath::Simt => matches!(e.warp.frags.get(&name), Some(Frag::Acc { .. })),
        KernelPath::Hopper => matches!(e.frag(&name), Some(FragKind::Acc { .. })),
    };
    acc.then_some(name)
}

/// Whether a WGMMA may accumulate into `name` after statement `s`: an `mma` into it later in
/// the program, or in a loop around `s` (its next iteration).
fn accumulated_after(e: &Emitter, s: StmtId, name: &str) -> bool {
    let m = e.m;
    let into = |st: &Stmt| matches!(st, Stmt::Mma { acc, .. } if acc.name == name);
    let order = crate::check::all_stmts(m);
    let at = order.iter().position(|&x| x == s).unwrap_or(0);
    order[at..].iter().any(|&x| into(&m.stmts[x]))
        || order[..at].iter().any(|&x| match &m.stmts[x] {
            Stmt::Foreach { body, .. } => {
                super::walk::contains(m, body, &|st| into(st))
                    && super::walk::contains(m, body, &|st| std::ptr::eq(st, &m.stmts[s]))
            }
            _ => false,
        })
}

/// Whether the body so far ends with the close of an element loop over a WGMMA accumulator
/// (its pin, then maybe its fence): no WGMMA was issued since, so nothing needs a wait; the
/// fence (if any) is dropped, as the next loop fences after its own writes. Returns the
/// accumulator that loop pinned.
fn after_element_loop(e: &mut Emitter) -> Option<String> {
    let is = |e: &Emitter, i: usize, name: &str| matches!(e.lines.get(i).map(|l| &l.op), Some(Op::Call(c)) if c.name == name);
    let n = e.lines.len();
    let fenced = n >= 2 && is(e, n - 1, "tsl_wgmma_fence") && is(e, n - 2, "tsl_frag_pin");
    let pin_at = if fenced { n - 2 } else { n.checked_sub(1)? };
    if !is(e, pin_at, "tsl_frag_pin") {
        return None;
    }
    let pinned = match &e.lines[pin_at].op {
        Op::Call(c) => c.args.first().cloned(),
        _ => None,
    };
    if fenced {
        e.lines.pop();
    }
    pinned
}

/// Opens the element loop over `name` and binds the name to the element.
fn open(e: &mut Emitter, name: &str, l: &Layout, what: &str, line: Option<u32>) {
    let after_loop = if l.wgmma && !e.wgmma_uncommitted && !e.wgmma_pending {
        after_element_loop(e)
    } else {
        None
    };
    if let Some(pinned) = after_loop {
        if pinned != l.cpp {
            e.call(
                Call::new("tsl_frag_pin").args([l.cpp.clone()]),
                Some("its registers are read after the wait"),
                line,
            );
        }
    } else if l.wgmma {
        if e.wgmma_uncommitted {
            super::hopper::wgmma_commit_wait(e, line, "the accumulator's WGMMAs are done");
        } else {
            super::hopper::wgmma_wait_all(e, line, "the accumulator's WGMMAs are done");
        }
        e.call(
            Call::new("tsl_frag_pin").args([l.cpp.clone()]),
            Some("its registers are read after the wait"),
            line,
        );
    }
    e.emit(Op::Unroll, None, None);
    e.open(
        Op::For {
            var: ELEM.into(),
            init: "0".into(),
            bound: l.elems.clone(),
            step: None,
        },
        Some(&format!(
            "{what}: each of this thread's elements of `{name}`, in register order"
        )),
        line,
    );
    if let Some(skip) = &l.skip {
        e.open(
            Op::If {
                cond: skip.clone(),
                constexpr: false,
            },
            Some("rows 8-15 of an 8-row tile: not in the accumulator"),
            line,
        );
        e.line("continue;", line);
        e.close(None);
    }
    e.scopes.push();
    let ty = match l.dtype {
        DType::I32 => DType::I32,
        _ => DType::F32,
    };
    e.scopes.insert(
        name,
        Local::FragElem {
            place: l.place(),
            dtype: ty,
        },
    );
}

/// Closes the element loop; on the WGMMA path fences the written registers before a later
/// WGMMA reads them.
fn close(e: &mut Emitter, s: StmtId, name: &str, l: &Layout, line: Option<u32>) {
    e.close(None);
    if l.wgmma {
        e.call(
            Call::new("tsl_frag_pin").args([l.cpp.clone()]),
            Some("the writes stay before what follows"),
            line,
        );
        if accumulated_after(e, s, name) {
            super::hopper::wgmma_fence(e, line);
        }
    }
}

/// `mc op= value;` on a whole accumulator.
pub fn whole(
    e: &mut Emitter,
    s: StmtId,
    target: ExprId,
    op: AssignOp,
    value: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let Expr::Name(name) = &m.exprs[target] else {
        return Err(LowerError::new(
            m.expr_span(target),
            "internal: not a fragment name",
        ));
    };
    let l = layout(e, name, m.expr_span(target))?;
    open(e, name, &l, "element-wise", line);
    let r = assign_elem(e, &l.place(), l.dtype, op, value, line);
    e.scopes.pop();
    close(e, s, name, &l, line);
    r
}

/// Opens the element loop of `apply {i, j} in acc.span` (the caller lowers the body, then
/// calls [`close_apply`]): `i` and `j` are the element's row and column.
pub fn open_apply(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    let Stmt::Foreach { vars, .. } = &m.stmts[s] else {
        return Err(LowerError::new(m.stmt_span(s), "internal: not an `apply`"));
    };
    let name =
        walked(e, s).ok_or_else(|| LowerError::new(m.stmt_span(s), "internal: not an `apply`"))?;
    let l = layout(e, &name, m.stmt_span(s))?;
    open(e, &name, &l, "apply", line);
    for (v, at) in vars.iter().zip([&l.row, &l.col]) {
        e.emit(
            Op::Decl {
                ty: "const int".into(),
                name: v.name.clone(),
                init: Some(at.clone()),
            },
            None,
            line,
        );
        e.scopes.insert(&v.name, Local::Let);
    }
    Ok(())
}

pub fn close_apply(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    // The loop's scope binds the name to the element; the accumulator is the enclosing one.
    e.scopes.pop();
    let name =
        walked(e, s).ok_or_else(|| LowerError::new(m.stmt_span(s), "internal: not an `apply`"))?;
    let l = layout(e, &name, m.stmt_span(s))?;
    close(e, s, &name, &l, line);
    Ok(())
}

/// The element a fragment-element target (`acc.at(i, j)` inside `apply`, or `acc` inside
/// whole-fragment arithmetic) names: its C++ place and type.
pub fn elem_target(e: &Emitter, target: ExprId) -> Option<(String, DType)> {
    let m = e.m;
    let n = match &m.exprs[target] {
        Expr::Name(n) => n,
        Expr::View {
            base,
            op: ViewOp::At,
            ..
        } => match &m.exprs[*base] {
            Expr::Name(n) => n,
            _ => return None,
        },
        _ => return None,
    };
    match e.scopes.get(n) {
        Some(Local::FragElem { place, dtype }) => Some((place.clone(), *dtype)),
        _ => None,
    }
}

/// `place op= value` for one element of type `dtype` (f32 for floating accumulators).
pub fn assign_elem(
    e: &mut Emitter,
    place: &str,
    dtype: DType,
    op: AssignOp,
    value: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let (v, t) = e.cx().value(value)?;
    let v = match dtype {
        DType::I32 => v,
        _ => super::cexpr::convert(&v, t, DType::F32),
    };
    let rhs = match op {
        AssignOp::Set => v,
        _ => format!("{place} {} ({v})", &op.symbol()[..1]),
    };
    e.emit(
        Op::Assign {
            place: place.to_string(),
            value: rhs,
        },
        None,
        line,
    );
    Ok(())
}
