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

use super::cxx::{CExpr, COp};
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, KernelPath, Op};
use super::scope::{FragKind, Local};
use super::warp_frags::{Frag, TileFrag};
use crate::check::Binding;
use crate::ir::{AssignOp, BinaryOp, DType, Expr, ExprId, Stmt, StmtId, ViewOp};
use crate::sym::Sym;

/// The helpers of `lowering/frag_elem.cuh` (the writer includes the section when a body names
/// one).
pub const HELPERS: [&str; 6] = [
    "tsl_frag_warp_row",
    "tsl_frag_warp_col",
    "tsl_frag_wgmma_row",
    "tsl_frag_wgmma_col",
    "tsl_frag_f16",
    "tsl_frag_pin",
];

/// The helpers of `lowering/frag_rows.cuh` (`frag` tiles; it builds on `frag_elem.cuh`, which
/// the writer includes with it).
pub const ROWS_HELPERS: [&str; 9] = [
    "tsl_frag_all_reduce",
    "tsl_frag_fill",
    "tsl_frag_copy",
    "tsl_frag_warp_reduce",
    "tsl_frag_wgmma_reduce",
    "tsl_frag_warp_slot",
    "tsl_frag_warp_slot_row",
    "tsl_frag_wgmma_slot",
    "tsl_frag_wgmma_slot_row",
];

/// The C++ element variable of the loops.
const ELEM: &str = "tsl_e";

/// How a thread's elements of one fragment are laid out, and the loop over them.
struct Layout {
    /// The fragment's C++ name.
    cpp: String,
    dtype: DType,
    /// Loop trips: elements, or row slots of a one-value-per-row fragment.
    elems: CExpr,
    /// Row and column of trip `tsl_e`; a row fragment has no column.
    row: CExpr,
    col: Option<CExpr>,
    /// The row slot of trip `tsl_e` (where a row fragment keeps that row's value).
    slot: CExpr,
    /// Trips a thread's registers hold but the tile does not (an 8-row warp tile's upper
    /// half): skipped.
    skip: Option<CExpr>,
    /// An accumulator on the WGMMA path: its registers are written asynchronously.
    wgmma: bool,
    /// Warp layouts: the tiles along M and N and the rows per tile.
    warp_tiles: Option<(CExpr, CExpr, i64)>,
}

impl Layout {
    /// The C++ place of element `tsl_e`.
    fn place(&self) -> CExpr {
        element(&self.cpp, self.dtype)
    }
}

/// Element `tsl_e` of the registers `cpp` holding `dtype` values (f16 ones packed in pairs).
fn element(cpp: &str, dtype: DType) -> CExpr {
    match dtype {
        DType::F16 => CExpr::call("tsl_frag_f16", vec![CExpr::var(cpp), elem()]),
        _ => CExpr::var(cpp).index(elem()),
    }
}

/// `tsl_e`, the element loop's variable.
fn elem() -> CExpr {
    CExpr::var(ELEM)
}

/// `name<targs…>(tsl_e)`: a layout helper at element `tsl_e`.
fn at_elem(name: &str, targs: Vec<CExpr>) -> CExpr {
    CExpr::call_t(name, targs, vec![elem()])
}

/// The C++ name of a warp accumulator (an element `mc[0][1]` of an array is `mc_0_1`).
fn cpp_name(name: &str) -> String {
    name.replace("][", "_")
        .replace(['[', ']'], "_")
        .trim_end_matches('_')
        .to_string()
}

/// Rows per mma.sync tile of a warp fragment of `m` rows.
fn warp_rows(m: i64) -> i64 {
    if m % 16 == 0 { 16 } else { 8 }
}

/// The warp (`mma.sync`) layout of `fm × fnn` tiles of `rows` rows.
fn warp_layout(cpp: String, dtype: DType, fm: Sym, fnn: Sym, rows: i64) -> Layout {
    let fnc = CExpr::sym(&fnn);
    let fmc = CExpr::sym(&fm);
    let r = CExpr::int(rows);
    Layout {
        cpp,
        dtype,
        elems: CExpr::sym(&Sym::mul(Sym::mul(fm, fnn), Sym::Int(4))),
        row: at_elem("tsl_frag_warp_row", vec![fnc.clone(), r.clone()]),
        col: Some(at_elem("tsl_frag_warp_col", vec![fnc.clone()])),
        slot: at_elem("tsl_frag_warp_slot", vec![fnc.clone(), r]),
        skip: (rows == 8).then(|| {
            elem()
                .bin(COp::BitAnd, CExpr::int(2))
                .paren()
                .bin(COp::Ne, CExpr::int(0))
        }),
        wgmma: false,
        warp_tiles: Some((fmc, fnc, rows)),
    }
}

/// The WGMMA layout of a 64 × `n` fragment.
fn wgmma_layout(cpp: String, dtype: DType, n: Sym, acc: bool) -> Layout {
    Layout {
        cpp,
        dtype,
        elems: CExpr::sym(&Sym::bin(BinaryOp::Div, n, Sym::Int(2))),
        row: at_elem("tsl_frag_wgmma_row", vec![]),
        col: Some(at_elem("tsl_frag_wgmma_col", vec![])),
        slot: at_elem("tsl_frag_wgmma_slot", vec![]),
        skip: None,
        wgmma: acc,
        warp_tiles: None,
    }
}

/// The layout of a `frag` tile on the kernel's path.
fn tile_layout(e: &Emitter, name: &str, t: &TileFrag) -> Layout {
    match (e.path, t.n) {
        (KernelPath::Simt, Some(n)) => {
            let rows = warp_rows(t.m);
            warp_layout(
                name.to_string(),
                t.dtype,
                Sym::Int(t.m / rows),
                Sym::Int(n / 8),
                rows,
            )
        }
        (KernelPath::Hopper, Some(n)) => {
            wgmma_layout(name.to_string(), t.dtype, Sym::Int(n), false)
        }
        (path, None) => {
            let (elems, row) = match path {
                KernelPath::Simt => {
                    let rows = warp_rows(t.m);
                    (
                        (t.m / rows) * (rows / 8),
                        at_elem("tsl_frag_warp_slot_row", vec![CExpr::int(rows)]),
                    )
                }
                KernelPath::Hopper => (2, at_elem("tsl_frag_wgmma_slot_row", vec![])),
            };
            Layout {
                cpp: name.to_string(),
                dtype: t.dtype,
                elems: CExpr::int(elems),
                row,
                col: None,
                slot: elem(),
                skip: None,
                wgmma: false,
                warp_tiles: None,
            }
        }
    }
}

/// The layout of the fragment the name `x` denotes: a `frag` tile, or the accumulator the
/// checker bound `x` to (its `mma.fill` or `mma.load`, [`acc_of`]).
fn layout(e: &Emitter, x: ExprId) -> Result<Layout, LowerError> {
    let m = e.m;
    let at = m.expr_span(x);
    let Expr::Name(name) = &m.exprs[x] else {
        return Err(LowerError::new(at, "internal: not a fragment"));
    };
    if let Some((_, t)) = tile_of(e, x) {
        return Ok(tile_layout(e, name, t));
    }
    match e.path {
        KernelPath::Simt => match acc_of(e, x).and_then(|b| e.warp.get(&b)) {
            Some(Frag::Acc {
                dtype,
                tiles: Some((fm, fnn)),
                rows,
                ..
            }) => Ok(warp_layout(
                cpp_name(name),
                *dtype,
                fm.clone(),
                fnn.clone(),
                *rows,
            )),
            _ => Err(LowerError::new(
                at,
                format!("internal: `{name}` is not a warp accumulator laid out by an `mma`"),
            )),
        },
        KernelPath::Hopper => match hopper_acc(e, x) {
            Some((n, dtype)) => Ok(wgmma_layout(name.to_string(), dtype, n, true)),
            _ => Err(LowerError::new(
                at,
                format!("internal: `{name}` is not a WGMMA accumulator"),
            )),
        },
    }
}

/// `frag f32 [M] v {init};` / `frag f16 [M, N] x;`: each thread's registers of the tile in the
/// kernel's accumulator layout.
pub fn declare(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    let Stmt::TensorDecl { dtype, names, .. } = &m.stmts[s] else {
        return Err(LowerError::new(
            m.stmt_span(s),
            "internal: not a `frag` declaration",
        ));
    };
    // The checker's dimensions that no tunable changes (every declarator has the one shape).
    let dims: Vec<i64> = e
        .declared(Binding::Tensor(s, 0), m.stmt_span(s))?
        .fixed
        .into_iter()
        .collect::<Option<_>>()
        .ok_or_else(|| {
            LowerError::new(m.stmt_span(s), "internal: a `frag` tile of run-time shape")
        })?;
    let t = TileFrag {
        dtype: *dtype,
        m: dims[0],
        n: dims.get(1).copied(),
    };
    let init = match m.decl_init(s) {
        Some(v) => {
            let (v, ty) = e.cx().value(v)?;
            Some(super::cexpr::convert(v.clone(), ty, DType::F32))
        }
        None => None,
    };
    for (di, d) in names.iter().enumerate() {
        let name = &d.name.name;
        let rows = warp_rows(t.m);
        let elems = match (e.path, t.n) {
            (KernelPath::Simt, Some(n)) => (t.m / rows) * (n / 8) * 4,
            (KernelPath::Hopper, Some(n)) => n / 2,
            (KernelPath::Simt, None) => (t.m / rows) * (rows / 8),
            (KernelPath::Hopper, None) => 2,
        };
        let (ty, regs) = match (t.dtype, t.n) {
            (DType::F16, Some(_)) => ("tsl_u32", elems / 2),
            _ => ("float", elems),
        };
        let what = match t.n {
            Some(n) => format!("{} × {n} {}, in the accumulator layout", t.m, t.dtype),
            None => format!(
                "{} {}, one value per accumulator row this thread holds",
                t.m, t.dtype
            ),
        };
        e.emit(
            Op::Array {
                ty: ty.into(),
                name: name.clone(),
                len: CExpr::int(regs),
            },
            Some(&format!("fragment: {what}")),
            line,
        );
        if let Some(v) = &init {
            e.call(
                Call::new("tsl_frag_fill").args([CExpr::var(name), v.clone()]),
                None,
                line,
            );
        }
        e.warp
            .tiles
            .insert(Binding::Tensor(s, di), (name.clone(), t.clone()));
    }
    Ok(())
}

/// Whether `s` declares `frag` tiles.
pub fn is_tile_decl(e: &Emitter, s: StmtId) -> bool {
    let m = e.m;
    // A `frag` read whole as a register-A WGMMA operand is declared by `lower/hopper.rs`.
    let register_a = match &m.stmts[s] {
        Stmt::TensorDecl { names, .. } => {
            (0..names.len()).any(|di| super::hopper::is_register_a_frag(e, s, di))
        }
        _ => false,
    };
    !register_a
        && m.decl_ext
            .iter()
            .any(|x| matches!(x, crate::ir::DeclExt::Frag { decl } if *decl == s))
}

/// The C++ name and layout of what a fragment operand names: a tile or an accumulator.
fn operand(e: &Emitter, x: ExprId) -> Result<(String, Layout), LowerError> {
    let l = layout(e, x)?;
    Ok((l.cpp.clone(), l))
}

/// Waits for the WGMMAs writing accumulator `cpp` before its registers are read (when some
/// may still be running).
fn wgmma_ready(e: &mut Emitter, cpp: &str, line: Option<u32>) {
    if !all_waited(e) {
        // Uncommitted WGMMAs, or ones an `if` above may have committed and waited for on one
        // path only: commit (an empty group when there is nothing) and wait.
        if e.wgmma_uncommitted || waited_in_a_branch(e) {
            super::wgmma_issue::wgmma_commit_wait(e, line, "the accumulator's WGMMAs are done");
        } else {
            super::hopper::wgmma_wait_all(e, line, "the accumulator's WGMMAs are done");
        }
    }
    let pinned = matches!(
        e.lines.last().map(|l| &l.op),
        Some(Op::Call(c)) if c.name == "tsl_frag_pin" && c.args.first().is_some_and(|a| *a == CExpr::var(cpp))
    );
    if !pinned {
        e.call(
            Call::new("tsl_frag_pin").args([CExpr::var(cpp)]),
            Some("its registers are read after the WGMMAs' wait"),
            line,
        );
    }
}

/// `copy(dst, src);` and `reduce_max(v, src, 1);` (`reduce_sum`, `reduce_min`).
pub fn frag_op(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    let Stmt::Ext(crate::ir::ExtStmt::FragOp { op, args }) = &m.stmts[s] else {
        return Err(LowerError::new(
            m.stmt_span(s),
            "internal: not a fragment operation",
        ));
    };
    let code = |op: &str| {
        CExpr::int(match op.trim_start_matches("all_") {
            "reduce_sum" => 0,
            "reduce_max" => 1,
            _ => 2,
        })
    };
    let (dst, dl) = operand(e, args[0])?;
    if args.len() == 1 {
        e.call(
            Call::new("tsl_frag_all_reduce")
                .targs([code(op)])
                .args([CExpr::var(dst)]),
            Some("each row's values combined across the row's quad"),
            line,
        );
        return Ok(());
    }
    let (src, sl) = operand(e, args[1])?;
    if sl.wgmma {
        wgmma_ready(e, &src, line);
    }
    if *op == "copy" {
        if dl.wgmma && !sl.wgmma {
            wgmma_ready(e, &dst, line);
        }
        e.call(
            Call::new("tsl_frag_copy").args([CExpr::var(&dst), CExpr::var(src)]),
            Some("element by element, in one layout"),
            line,
        );
        if dl.wgmma {
            e.call(
                Call::new("tsl_frag_pin").args([CExpr::var(dst.clone())]),
                Some("the writes stay before what follows"),
                line,
            );
            if !next_is_elementwise(e.m, s) {
                super::hopper::wgmma_fence(e, line);
            }
        }
        return Ok(());
    }
    let code = code(op);
    // The source's columns: from its layout's element count.
    let call = match e.path {
        KernelPath::Hopper => {
            let n = CExpr::int(2).mul(sl.elems.clone().paren());
            Call::new("tsl_frag_wgmma_reduce").targs([code, n])
        }
        KernelPath::Simt => {
            let (fm, fnn, mb) = sl.warp_tiles.clone().ok_or_else(|| {
                LowerError::new(
                    m.stmt_span(s),
                    "internal: a row reduction of a row fragment",
                )
            })?;
            Call::new("tsl_frag_warp_reduce").targs([code, fm, fnn, CExpr::int(mb)])
        }
    };
    e.call(
        call.args([CExpr::var(dst), CExpr::var(src)]),
        Some(&format!(
            "{op}: each row's elements this thread holds, then across the row's quad"
        )),
        line,
    );
    Ok(())
}

/// Whether `target` of an assignment is a whole accumulator (`mc *= s;`).
pub fn is_whole(e: &Emitter, target: ExprId) -> bool {
    matches!(e.m.exprs[target], Expr::Name(_)) && is_acc(e, target)
}

/// Whether the name `x` denotes a lowered accumulator: the checker's binding of `x` (a name
/// declared again in an inner scope is another fragment).
fn is_acc(e: &Emitter, x: ExprId) -> bool {
    match e.path {
        KernelPath::Simt => matches!(
            acc_of(e, x).and_then(|b| e.warp.get(&b)),
            Some(Frag::Acc { .. })
        ),
        KernelPath::Hopper => hopper_acc(e, x).is_some(),
    }
}

/// The checker's binding of the fragment name `x` (its `mma.fill` or `mma.load`).
fn acc_of(e: &Emitter, x: ExprId) -> Option<Binding> {
    match e.info.bindings.get(&x) {
        Some(b @ Binding::Frag(_)) => Some(*b),
        _ => None,
    }
}

/// The WGMMA accumulator `x` names, as lowered: its N and element type.
fn hopper_acc(e: &Emitter, x: ExprId) -> Option<(Sym, DType)> {
    match e.scopes.decl(&acc_of(e, x)?) {
        Some(Local::Frag(FragKind::Acc { n, dtype })) => Some((n.clone(), *dtype)),
        _ => None,
    }
}

/// The accumulator or `frag` tile an `apply` walks (`apply {i, j} in acc.span`), if `s` is
/// one: its name and the name's expression (of the first extent; all name the one fragment).
pub fn walked(e: &Emitter, s: StmtId) -> Option<(String, ExprId)> {
    let m = e.m;
    let Stmt::Foreach { extents, .. } = &m.stmts[s] else {
        return None;
    };
    let name = m.walked_fragment(extents)?;
    let x = match &m.exprs[*extents.first()?] {
        Expr::View { base, .. } | Expr::Field { base, .. } => *base,
        _ => return None,
    };
    (tile_of(e, x).is_some() || is_acc(e, x)).then_some((name, x))
}

/// The `frag` tile the name `x` denotes (the checker's binding of `x`): its name and shape.
fn tile_of<'e>(e: &'e Emitter, x: ExprId) -> Option<&'e (String, TileFrag)> {
    e.warp.tiles.get(e.info.bindings.get(&x)?)
}

/// Whether a WGMMA may accumulate into the accumulator `x` names after statement `s`: an
/// `mma` into it (the checker's binding of its accumulator operand) later in the program, or
/// in a loop around `s` (its next iteration).
fn accumulated_after(e: &Emitter, s: StmtId, x: ExprId) -> bool {
    let m = e.m;
    let Some(acc) = acc_of(e, x) else {
        return false;
    };
    let mmas: Vec<StmtId> = m
        .stmts
        .iter()
        .filter(|(id, st)| {
            matches!(st, Stmt::Mma { .. })
                && e.info.idents.get(&(*id, crate::check::IdentRole::Acc)) == Some(&acc)
        })
        .map(|(id, _)| id)
        .collect();
    let into = |st: &Stmt| mmas.iter().any(|&i| std::ptr::eq(&m.stmts[i], st));
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

/// Whether every WGMMA issued so far has completed: walking the body back, a full wait
/// (`wgmma.wait_group 0`) comes before any WGMMA (a loop's body is walked as written, so a
/// loop that waits at the end of each iteration counts as waited).
fn all_waited(e: &Emitter) -> bool {
    if e.wgmma_uncommitted || e.wgmma_pending {
        return false;
    }
    for l in e.lines.iter().rev() {
        let full_wait = l.op.calls().iter().any(|c| {
            c.name == "tsl_wgmma_wait" && c.targs.first().is_some_and(|t| t.as_int() == Some(0))
        });
        // A wait inside an `if` that has closed ran on one path only.
        if full_wait && !in_closed_branch(e, l) {
            return true;
        }
        let mut names = std::collections::BTreeSet::new();
        l.op.names(&mut names);
        let issues = names.iter().any(|n| {
            n == "mma"
                || (n.starts_with("tsl_wgmma")
                    && !matches!(
                        n.as_str(),
                        "tsl_wgmma_fence" | "tsl_wgmma_commit" | "tsl_wgmma_desc"
                    ))
        });
        if issues {
            return false;
        }
    }
    true
}

/// Whether line `l` (one of `e.lines`) lies inside an `if`/`else` block that has closed before
/// the current line: the block's openers, walking out from `l` to the current depth.
fn in_closed_branch(e: &Emitter, l: &super::kernel::Line) -> bool {
    let Some(w) = e.lines.iter().position(|x| std::ptr::eq(x, l)) else {
        return false;
    };
    let mut indent = l.indent;
    for x in e.lines[..w].iter().rev() {
        if indent <= e.indent {
            break;
        }
        if x.indent < indent {
            if matches!(x.op, Op::If { .. } | Op::Else) {
                return true;
            }
            indent = x.indent;
        }
    }
    false
}

/// Whether the last full WGMMA wait before the current line is inside a closed `if`/`else`.
fn waited_in_a_branch(e: &Emitter) -> bool {
    e.lines
        .iter()
        .rev()
        .find(|l| {
            l.op.calls().iter().any(|c| {
                c.name == "tsl_wgmma_wait" && c.targs.first().is_some_and(|t| t.as_int() == Some(0))
            })
        })
        .is_some_and(|l| in_closed_branch(e, l))
}

/// Opens the element loop over `name` and binds the name to the element.
fn open(e: &mut Emitter, x: ExprId, name: &str, l: &Layout, what: &str, line: Option<u32>) {
    if l.wgmma {
        wgmma_ready(e, &l.cpp, line);
    }
    e.emit(Op::Unroll(None), None, None);
    e.open(
        Op::For {
            var: ELEM.into(),
            init: CExpr::int(0),
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
        e.emit(Op::Continue, None, line);
        e.close(None);
    }
    e.scopes.push();
    // The `frag` tiles in this layout: an [M, N] one's element is the same register, a row
    // fragment's the row's slot (the checker allows only these uses).
    let walked = e.info.bindings.get(&x).copied();
    let tiles: Vec<(Binding, String, TileFrag)> = e
        .warp
        .tiles
        .iter()
        .map(|(b, (n, t))| (*b, n.clone(), t.clone()))
        .collect();
    for (tb, tn, t) in tiles {
        if Some(tb) == walked {
            continue;
        }
        let place = match t.n {
            Some(_) => element(&tn, t.dtype),
            None => CExpr::var(&tn).index(l.slot.clone()),
        };
        e.scopes.insert_elem(
            tb,
            Local::FragElem {
                place,
                dtype: DType::F32,
            },
        );
    }
    let ty = match l.dtype {
        DType::I32 => DType::I32,
        _ => DType::F32,
    };
    if let Some(b) = walked {
        e.scopes.insert_elem(
            b,
            Local::FragElem {
                place: l.place(),
                dtype: ty,
            },
        );
    }
}

/// Closes the element loop; on the WGMMA path fences the written registers before a later
/// WGMMA reads them.
fn close(e: &mut Emitter, s: StmtId, x: ExprId, l: &Layout, line: Option<u32>) {
    e.close(None);
    if l.wgmma {
        e.call(
            Call::new("tsl_frag_pin").args([CExpr::var(l.cpp.clone())]),
            Some("the writes stay before what follows"),
            line,
        );
        if accumulated_after(e, s, x) && !next_is_elementwise(e.m, s) {
            super::hopper::wgmma_fence(e, line);
        }
    }
}

/// Whether the statement after `s` in its block is element-wise work on fragments too (an
/// `apply`, `copy` or row reduction): a run of them fences once, after the last, so no
/// register access of a later one falls between a `wgmma.fence` and the WGMMA it orders
/// (ptxas would serialize the WGMMAs), and the one fence orders every write of the run.
fn next_is_elementwise(m: &crate::ir::Module, s: StmtId) -> bool {
    fn next_in(m: &crate::ir::Module, b: &[StmtId], s: StmtId) -> Option<Option<StmtId>> {
        for (i, &t) in b.iter().enumerate() {
            if t == s {
                return Some(b.get(i + 1).copied());
            }
            for inner in crate::check::stmt_blocks(&m.stmts[t]) {
                if let Some(r) = next_in(m, inner, s) {
                    return Some(r);
                }
            }
        }
        None
    }
    let Some(Some(n)) = next_in(m, &m.kernel.body, s) else {
        return false;
    };
    match &m.stmts[n] {
        Stmt::Foreach { extents, .. } => m.walked_fragment(extents).is_some(),
        Stmt::Ext(crate::ir::ExtStmt::FragOp { .. }) => true,
        _ => false,
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
    let l = layout(e, target)?;
    open(e, target, name, &l, "element-wise", line);
    let r = assign_elem(e, &l.place(), l.dtype, op, value, line);
    e.scopes.pop();
    close(e, s, target, &l, line);
    r
}

/// Opens the element loop of `apply {i, j} in acc.span` (the caller lowers the body, then
/// calls [`close_apply`]): `i` and `j` are the element's row and column.
pub fn open_apply(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    let Stmt::Foreach { vars, .. } = &m.stmts[s] else {
        return Err(LowerError::new(m.stmt_span(s), "internal: not an `apply`"));
    };
    let (name, x) =
        walked(e, s).ok_or_else(|| LowerError::new(m.stmt_span(s), "internal: not an `apply`"))?;
    let l = layout(e, x)?;
    open(e, x, &name, &l, "apply", line);
    let at = [Some(l.row.clone()), l.col.clone()];
    for (k, (v, at)) in vars.iter().zip(at).enumerate() {
        let Some(at) = at else { continue };
        e.emit(
            Op::Decl {
                ty: "const int".into(),
                name: v.name.clone(),
                init: Some(at),
            },
            None,
            line,
        );
        e.scopes.declare(
            crate::check::Binding::LoopVar { stmt: s, index: k },
            Local::Let,
        );
    }
    Ok(())
}

pub fn close_apply(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    // The loop's scope binds the name to the element; the accumulator is the enclosing one.
    e.scopes.pop();
    let (_, x) =
        walked(e, s).ok_or_else(|| LowerError::new(m.stmt_span(s), "internal: not an `apply`"))?;
    let l = layout(e, x)?;
    close(e, s, x, &l, line);
    Ok(())
}

/// The element a fragment-element target (`acc.at(i, j)` inside `apply`, or `acc` inside
/// whole-fragment arithmetic) names: its C++ place and type.
pub fn elem_target(e: &Emitter, target: ExprId) -> Option<(CExpr, DType)> {
    let m = e.m;
    let n = match &m.exprs[target] {
        Expr::Name(_) => target,
        Expr::View {
            base,
            op: ViewOp::At,
            ..
        } if matches!(m.exprs[*base], Expr::Name(_)) => *base,
        _ => return None,
    };
    match e.cx().local(n) {
        Some(Local::FragElem { place, dtype }) => Some((place.clone(), *dtype)),
        _ => None,
    }
}

/// `place op= value` for one element of type `dtype` (f32 for floating accumulators).
pub fn assign_elem(
    e: &mut Emitter,
    place: &CExpr,
    dtype: DType,
    op: AssignOp,
    value: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let (v, t) = e.cx().value(value)?;
    let v = match dtype {
        DType::I32 => v,
        _ => super::cexpr::convert(v.clone(), t, DType::F32),
    };
    let rhs = match COp::of_assign(op) {
        None => v,
        Some(op) => place.clone().bin(op, v.paren()),
    };
    e.emit(
        Op::Assign {
            place: place.clone(),
            value: rhs,
        },
        None,
        line,
    );
    Ok(())
}
