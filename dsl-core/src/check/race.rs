//! Shared-memory races between the threads of one block: warnings **W1212** (a read and a
//! write of one element) and **W1213** (two writes of one element).
//!
//! An access is an element of a `shared` tensor read in an expression (`… = s.at(i) * 2`,
//! an index, a condition), stored (`s.at(i) = …`; `s.at(i) += …` reads then stores it), or a
//! thread's own tile moved by a register copy (`dma.copy s.subspan(…).at(…) => r` reads it,
//! `dma.copy r => s.subspan(…).at(…)` stores it: `lower/regtile.rs` lowers those per thread,
//! without a barrier), an atomic update (`__atomic_add(s.at(i), 1)` reads and stores the element;
//! two atomics of one element never race, an atomic and a plain access do), or the tile of an `mma.store` / `mma.load`, which the threads running it
//! move together, each element by one of them (which one, the fragment layout decides). The
//! statements that order the threads of a block are those the lowering turns into a block
//! barrier or a wait on one: `sync.shared`, a cooperative `dma.copy` between global and shared
//! memory (with a barrier before and after it, `lower/simt.rs`), `dma.wait`, a TMA copy
//! without an event, an event's `wait` (the triggering threads' stores before their arrival
//! are visible after it); where the lowering does not go yet, `sync.barrier`, a device
//! function's `call` and inline `__asm__` too (either may hold a barrier).
//!
//! Two accesses race when one writes, nothing of the above lies between them on some path —
//! through `if`/`inthreads` branches (either may be taken) and across a loop's back edge (a
//! read at the top of iteration i+1 after a write at the bottom of iteration i) — and two
//! *different* threads touch one element. That last part is decided, not guessed: every thread
//! of the block (its `threadIdx.x`, each parallel variable recovered by the launch geometry's
//! formula) evaluates its `if`/`inthreads` conditions and its indices, under sampled values of
//! what all threads of the block share — block variables (0 and 1), loop variables (a handful
//! of iterations; the same one for both accesses when no back edge lies between them, the next
//! one across the back edge), problem sizes (those of the launch, else 4096) — and the race is
//! reported with the two threads and the element found. `s.at(t)` stored then read by the same
//! `t` is not a race; neither is an element a thread reads after storing it itself (every
//! thread storing the same element is `W1202`'s business). An access whose index or guard
//! cannot be evaluated (it reads memory, a mutable scalar, a run-time parameter) is never
//! reported.

mod threads;

use super::geometry::Geometry as Geo;
use super::view_sym::{SymView, root_of, sym_view};
use super::{Binding, Cx, codes, stmt_exprs, walk_expr};
use crate::diag::Diagnostic;
use crate::ir::{
    AssignOp, Block, CopyDst, Expr, ExprId, ExtStmt, Level, MemSpace, Stmt, StmtId, SyncKind,
    ViewOp,
};
use std::collections::{BTreeSet, HashMap, HashSet};
use threads::{Evaluator, Witness};

/// The value a problem size takes when the check runs without the launch's sizes: large
/// enough that bounds guards (`i < N`) let every thread of the sampled blocks through.
const DIM_SAMPLE: i64 = 4096;
/// Sampled assignments of the shared values (loop and block variables) per pair of accesses.
const MAX_COMBOS: usize = 48;
/// Pairs of accesses decided per kernel (a bound on the work, not on what is found: pairs are
/// taken in program order).
const MAX_PAIRS: usize = 2048;
/// Elements one access may touch over all threads under one assignment (register tiles).
const MAX_ELEMS: usize = 1 << 16;
/// Dimensions of the tensors looked at.
const MAX_RANK: usize = 4;
/// Work per kernel (elements evaluated and looked up): beyond it, the pairs left are not
/// decided, so that the check stays well under a second on any kernel.
const BUDGET: usize = 1_000_000;

pub(crate) fn check(cx: &Cx, geo: &Geo, warnings: &mut Vec<Diagnostic>) {
    let m = cx.m;
    let threads = geo.threads_per_block as usize;
    if threads == 0 || threads > 1024 {
        return;
    }
    let mut coll = Collect {
        cx,
        shared: super::smem::shared_buffers(m, &cx.res.bindings),
        list: Vec::new(),
        by_stmt: HashMap::new(),
        barriers: HashSet::new(),
        group_barriers: HashMap::new(),
        branches: Vec::new(),
    };
    coll.block(&m.kernel.body, &mut Vec::new(), &mut Vec::new());
    if coll.list.is_empty() {
        return;
    }
    let mut flow = Flow {
        m,
        accesses: &coll.list,
        by_stmt: &coll.by_stmt,
        barriers: &coll.barriers,
        group_barriers: &coll.group_barriers,
        pairs: BTreeSet::new(),
    };
    flow.block(&m.kernel.body, BTreeSet::new());
    if flow.pairs.is_empty() {
        return;
    }
    let chains: Vec<Vec<(StmtId, usize)>> = geo
        .chains
        .iter()
        .map(|c| c.iter().map(|l| (l.stmt, l.level)).collect())
        .collect();
    let Some(ev) = Evaluator::new(cx, &chains, threads) else {
        return;
    };
    let pairs = std::mem::take(&mut flow.pairs);
    let list = &coll.list;
    let mut reported: HashSet<ExprId> = HashSet::new();
    let mut found: Vec<Diagnostic> = Vec::new();
    let mut cache = HashMap::new();
    for &(first, second, carried, groups) in pairs.iter().take(MAX_PAIRS) {
        let (a, b) = (&list[first], &list[second]);
        if a.atomic && b.atomic {
            continue;
        }
        // The read is reported (or the second of two writes); once is enough.
        let at = match (a.write, b.write) {
            (true, false) | (true, true) => b.at,
            (false, true) => a.at,
            (false, false) => continue,
        };
        if reported.contains(&at) {
            continue;
        }
        if let Some(w) = ev.witness(list, first, second, carried, groups, &mut cache) {
            reported.insert(at);
            found.push(diagnostic(&ev, list, first, second, carried, groups, &w));
        }
    }
    found.sort_by_key(|d| (d.span.start, d.code));
    warnings.extend(found);
}

/// One access to a shared tensor.
struct Access {
    stmt: StmtId,
    /// The view expression (the warning's span).
    at: ExprId,
    /// The shared tensor.
    buf: Binding,
    write: bool,
    /// An atomic update's element: it races with plain accesses only.
    atomic: bool,
    /// `mma.store` / `mma.load`: the threads running it move the tile together, each element
    /// by one of them (which one, the fragment layout decides).
    collective: Option<&'static str>,
    view: SymView,
    /// Enclosing `if`/`inthreads` conditions, with whether each must hold (`false` in an
    /// `else`).
    conds: Vec<(ExprId, bool)>,
    /// Enclosing `foreach` loops, outermost first.
    loops: Vec<StmtId>,
    /// The outermost `inthreads` around it.
    branch: Option<StmtId>,
}

/// The accesses of every statement and the statements that order the block.
struct Collect<'a> {
    cx: &'a Cx<'a>,
    shared: Vec<super::SharedBuffer>,
    list: Vec<Access>,
    by_stmt: HashMap<StmtId, Vec<usize>>,
    barriers: HashSet<StmtId>,
    /// Barriers of the threads of one warp or warpgroup, with its width in threads.
    group_barriers: HashMap<StmtId, u32>,
    /// The `inthreads` statements around the statement visited, outermost first.
    branches: Vec<StmtId>,
}

impl Collect<'_> {
    fn block(&mut self, b: &Block, conds: &mut Vec<(ExprId, bool)>, loops: &mut Vec<StmtId>) {
        for &s in b {
            self.stmt(s, conds, loops);
        }
    }

    fn stmt(&mut self, s: StmtId, conds: &mut Vec<(ExprId, bool)>, loops: &mut Vec<StmtId>) {
        let m = self.cx.m;
        let st = &m.stmts[s];
        if orders_the_block(self.cx, st) {
            self.barriers.insert(s);
            return;
        }
        if let Some(width) = orders_a_group(st) {
            self.group_barriers.insert(s, width);
            return;
        }
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        // A register copy's shared side: a tile, not an element.
        let mut tiles = Vec::new();
        // The tile of an `mma.store` / `mma.load`.
        let mut group: Vec<(ExprId, bool, &'static str)> = Vec::new();
        // The elements of atomic updates.
        let mut atomics = Vec::new();
        // An atomic update, as a statement or with its old value kept in a scalar: it reads
        // and stores its element (as one indivisible update).
        let atomic_args = match st {
            Stmt::Ext(ExtStmt::Call { func, args, .. })
                if super::simt::atomic(&func.name).is_some() =>
            {
                Some(args.as_slice())
            }
            _ => match super::simt::captured_atomic(m, s).map(|v| &m.exprs[v]) {
                Some(Expr::Call { args, .. }) => Some(args.as_slice()),
                _ => None,
            },
        };
        match st {
            _ if atomic_args.is_some() => {
                if let Some((&target, values)) = atomic_args.and_then(|a| a.split_first()) {
                    if self.shared_root(target).is_some() {
                        atomics.push(target);
                    }
                    self.index_reads(target, &mut reads);
                    for &v in values {
                        self.element_reads(v, &mut reads);
                    }
                }
            }
            Stmt::Assign { target, op, value } => {
                if self.shared_root(*target).is_some() {
                    writes.push(*target);
                    if *op != AssignOp::Set {
                        reads.push(*target);
                    }
                }
                self.element_reads(*value, &mut reads);
                self.index_reads(*target, &mut reads);
            }
            Stmt::Ext(ExtStmt::Asm {
                outputs, inputs, ..
            }) => {
                for o in outputs {
                    if self.shared_root(o.expr).is_some() {
                        writes.push(o.expr);
                        if o.constraint.starts_with('+') {
                            reads.push(o.expr);
                        }
                    }
                    self.index_reads(o.expr, &mut reads);
                }
                for o in inputs {
                    self.element_reads(o.expr, &mut reads);
                }
            }
            // A register copy with a shared side: this thread's tile of it.
            Stmt::DmaCopy { src, dst, .. } => {
                if self.shared_root(*src).is_some() {
                    tiles.push((*src, false));
                }
                self.index_reads(*src, &mut reads);
                if let CopyDst::Expr(d) = dst {
                    if self.shared_root(*d).is_some() {
                        tiles.push((*d, true));
                    }
                    self.index_reads(*d, &mut reads);
                }
            }
            Stmt::MmaStore { dst, mods, .. } => {
                if self.shared_root(*dst).is_some() {
                    group.push((*dst, true, "mma.store"));
                }
                self.index_reads(*dst, &mut reads);
                if let Some((r, c)) = &mods.mask {
                    self.element_reads(*r, &mut reads);
                    if let Some(c) = c {
                        self.element_reads(*c, &mut reads);
                    }
                }
            }
            Stmt::MmaLoad { src, .. } => {
                if self.shared_root(*src).is_some() {
                    group.push((*src, false, "mma.load"));
                }
                self.index_reads(*src, &mut reads);
            }
            Stmt::Let { value, .. } if super::is_view_let(m, *value) => {}
            Stmt::Parallel { .. } => {}
            other => {
                for e in stmt_exprs(other) {
                    self.element_reads(e, &mut reads);
                }
            }
        }
        let reads = reads.into_iter().map(|e| (e, false, false));
        let writes = writes.into_iter().map(|e| (e, true, false));
        let tiles = tiles.into_iter().map(|(e, w)| (e, w, true));
        // Reads first: a statement reads its operands before it stores.
        let mut all: Vec<(ExprId, bool, bool)> = reads.collect();
        all.extend(tiles.clone().filter(|t| !t.1));
        all.extend(writes);
        all.extend(tiles.filter(|t| t.1));
        for (e, write, tile) in all {
            self.add(s, e, write, tile.then_some(None), conds, loops);
        }
        for (e, write, op) in group {
            self.add(s, e, write, Some(Some(op)), conds, loops);
        }
        for e in atomics {
            if let Some(i) = self.add(s, e, true, None, conds, loops) {
                self.list[i].atomic = true;
            }
        }
        match st {
            Stmt::Parallel { body, .. } => self.block(body, conds, loops),
            Stmt::Foreach { body, .. } | Stmt::Ext(ExtStmt::While { body, .. }) => {
                loops.push(s);
                self.block(body, conds, loops);
                loops.pop();
            }
            Stmt::InThreads { cond, body, .. } => {
                conds.push((*cond, true));
                self.branches.push(s);
                self.block(body, conds, loops);
                self.branches.pop();
                conds.pop();
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                conds.push((*cond, true));
                self.block(then_body, conds, loops);
                conds.pop();
                if let Some(e) = else_body {
                    conds.push((*cond, false));
                    self.block(e, conds, loops);
                    conds.pop();
                }
            }
            _ => {}
        }
    }

    fn add(
        &mut self,
        s: StmtId,
        e: ExprId,
        write: bool,
        // `Some` for a tile (of a register copy, or of a collective `op`), not an element.
        tile: Option<Option<&'static str>>,
        conds: &[(ExprId, bool)],
        loops: &[StmtId],
    ) -> Option<usize> {
        let buf = self.shared_root(e)?;
        let m = self.cx.m;
        let bindings = &self.cx.res.bindings;
        let root = |r: ExprId| root_of(m, bindings, &self.shared, r, 0);
        // A view the symbolic form does not describe, or of a squeezed tensor, is left out.
        let view = sym_view(m, bindings, &root, e).ok()?;
        if view.squeezed.is_some() || !(tile.is_some() || view.element) {
            return None;
        }
        let i = self.list.len();
        self.list.push(Access {
            stmt: s,
            at: e,
            buf,
            write,
            atomic: false,
            collective: tile.flatten(),
            view,
            conds: conds.to_vec(),
            loops: loops.to_vec(),
            branch: self.branches.first().copied(),
        });
        self.by_stmt.entry(s).or_default().push(i);
        Some(i)
    }

    /// The declared shared tensor a view expression starts from.
    fn shared_root(&self, e: ExprId) -> Option<Binding> {
        let m = self.cx.m;
        let b = view_root(self.cx, e)?;
        match b {
            Binding::Tensor(d, _)
                if matches!(
                    m.stmts[d],
                    Stmt::TensorDecl {
                        space: MemSpace::Shared,
                        ..
                    }
                ) =>
            {
                Some(b)
            }
            _ => None,
        }
    }

    /// The element reads of shared tensors in `e`: its views that are no larger view's base,
    /// of one element (`s.at(i)`; a view's shape, `s.span`, reads nothing).
    fn element_reads(&self, e: ExprId, out: &mut Vec<ExprId>) {
        let m = self.cx.m;
        let mut bases = HashSet::new();
        let mut shape_only = HashSet::new();
        let mut all = Vec::new();
        walk_expr(m, e, &mut |x| match &m.exprs[x] {
            Expr::View {
                op: ViewOp::SpanOf,
                base,
                ..
            } => {
                walk_expr(m, *base, &mut |y| {
                    shape_only.insert(y);
                });
            }
            Expr::View {
                op: ViewOp::At,
                base,
                ..
            } => {
                bases.insert(*base);
                all.push(x);
            }
            Expr::View { base, .. } | Expr::Index { base, .. } | Expr::Field { base, .. } => {
                bases.insert(*base);
            }
            _ => {}
        });
        out.extend(all.into_iter().filter(|x| {
            !bases.contains(x) && !shape_only.contains(x) && self.shared_root(*x).is_some()
        }));
    }

    /// The element reads in the indices of view `e` (at every level).
    fn index_reads(&self, mut e: ExprId, out: &mut Vec<ExprId>) {
        let m = self.cx.m;
        loop {
            match &m.exprs[e] {
                Expr::View { base, args, .. } => {
                    for &a in args {
                        self.element_reads(a, out);
                    }
                    e = *base;
                }
                Expr::Index { base, index } => {
                    self.element_reads(*index, out);
                    e = *base;
                }
                Expr::Field { base, .. } => e = *base,
                _ => return,
            }
        }
    }
}

/// The width of the groups a warp's or warpgroup's barrier orders (`sync.barrier : group` or
/// `: thread`, 32; `sync.barrier : group-4`, 128).
fn orders_a_group(st: &Stmt) -> Option<u32> {
    match st {
        Stmt::Ext(ExtStmt::Sync {
            kind: SyncKind::Barrier,
            level: Some(l),
        }) if *l != Level::Block => l.threads().map(|t| t.max(32)),
        _ => None,
    }
}

/// Whether the lowering orders every thread of the block at `st`: a block barrier, a
/// cooperative copy between global and shared memory (a barrier before and after), a wait
/// for copies, a TMA copy without an event, an event's `wait`.
fn orders_the_block(cx: &Cx, st: &Stmt) -> bool {
    match st {
        // An event's `wait` orders what its triggering threads did before they arrived; a
        // `trigger` alone orders nothing for the threads that do not wait.
        Stmt::SyncShared | Stmt::DmaWait { .. } | Stmt::Wait { .. } => true,
        Stmt::TmaCopy { event, .. } => event.is_none(),
        Stmt::DmaCopy { src, dst, .. } => {
            let d = match dst {
                CopyDst::Expr(d) => space(cx, *d),
                CopyDst::Fresh(sp) => Some(*sp),
            };
            let s = space(cx, *src);
            let shared = |x: Option<MemSpace>| x == Some(MemSpace::Shared);
            let local = |x: Option<MemSpace>| x == Some(MemSpace::Local);
            (shared(s) || shared(d)) && !local(s) && !local(d)
        }
        // An atomic update orders nothing.
        Stmt::Ext(ExtStmt::Call { func, .. }) if super::simt::atomic(&func.name).is_some() => false,
        // A device function or inline assembly may hold a barrier of its own.
        Stmt::Ext(
            ExtStmt::Call { .. }
            | ExtStmt::Asm { .. }
            | ExtStmt::DmaFuture { .. }
            | ExtStmt::Sync {
                kind: SyncKind::Global,
                ..
            },
        ) => true,
        Stmt::Ext(ExtStmt::Sync {
            kind: SyncKind::Barrier,
            ..
        }) => super::simt::barrier_scope(st) == Some(Level::Block),
        _ => false,
    }
}

/// The binding of the name a view expression starts from (through views, indexes and fields).
fn view_root(cx: &Cx, mut e: ExprId) -> Option<Binding> {
    loop {
        match &cx.m.exprs[e] {
            Expr::View { base, .. } | Expr::Index { base, .. } | Expr::Field { base, .. } => {
                e = *base
            }
            Expr::Name(_) => return cx.res.bindings.get(&e).copied(),
            _ => return None,
        }
    }
}

/// The memory a view's tensor lives in (a future's buffer is shared).
fn space(cx: &Cx, e: ExprId) -> Option<MemSpace> {
    let m = cx.m;
    match view_root(cx, e)? {
        Binding::Param(p) => m.kernel.params.get(p).map(|p| p.space),
        Binding::Tensor(d, _) => match &m.stmts[d] {
            Stmt::TensorDecl { space, .. } => Some(*space),
            _ => None,
        },
        Binding::Future(_) => Some(MemSpace::Shared),
        _ => None,
    }
}

/// A pending access: its index, the outermost loop whose back edge lies between it and the
/// point reached (then the later access runs in a later iteration of that loop), and the
/// widest warp or warpgroup barrier on the way (0: none; 32: two threads of one warp are
/// ordered, only threads of different warps can race).
type Pending = (usize, Option<StmtId>, u32);

/// The unordered pairs found: (earlier access, later access, loop crossed).
struct Flow<'a> {
    m: &'a crate::ir::Module,
    accesses: &'a [Access],
    by_stmt: &'a HashMap<StmtId, Vec<usize>>,
    barriers: &'a HashSet<StmtId>,
    group_barriers: &'a HashMap<StmtId, u32>,
    /// (earlier access, later access, loop crossed, width of the groups whose threads a
    /// barrier between them orders).
    pairs: BTreeSet<(usize, usize, Option<StmtId>, u32)>,
}

impl Flow<'_> {
    /// The accesses no barrier separates from the end of `b`, given those pending at its start.
    fn block(&mut self, b: &Block, mut state: BTreeSet<Pending>) -> BTreeSet<Pending> {
        for &s in b {
            state = self.stmt(s, state);
        }
        state
    }

    fn stmt(&mut self, s: StmtId, mut state: BTreeSet<Pending>) -> BTreeSet<Pending> {
        if self.barriers.contains(&s) {
            return BTreeSet::new();
        }
        if let Some(&w) = self.group_barriers.get(&s) {
            return state
                .into_iter()
                .map(|(i, c, o)| (i, c, o.max(w)))
                .collect();
        }
        if let Some(list) = self.by_stmt.get(&s) {
            for &i in list {
                let a = &self.accesses[i];
                for &(p, carried, groups) in &state {
                    let o = &self.accesses[p];
                    // `s.at(i) += …` reads and writes its own element: not a pair. Two
                    // collective accesses are left to the lowering (fragment layouts).
                    let apart = o.collective.is_none() || a.collective.is_none();
                    if o.buf == a.buf && (o.write || a.write) && o.at != a.at && apart {
                        self.pairs.insert((p, i, carried, groups));
                    }
                }
                state.insert((i, None, 0));
            }
        }
        match &self.m.stmts[s] {
            Stmt::Parallel { body, .. } => self.block(body, state),
            Stmt::Foreach { body, .. } | Stmt::Ext(ExtStmt::While { body, .. }) => {
                // Once through, then again with what the first pass leaves pending carried
                // over the back edge; the loop may also run zero times.
                let once = self.block(body, state.clone());
                let mut again = state.clone();
                for &(i, c, groups) in &once {
                    // The outermost loop crossed counts: an enclosing one crossed before stays.
                    let loops = &self.accesses[i].loops;
                    let pos = |l: StmtId| loops.iter().position(|&x| x == l);
                    let carried = match (pos(s), c.and_then(pos)) {
                        (Some(here), Some(before)) if before < here => c,
                        (Some(_), _) => Some(s),
                        (None, _) => c,
                    };
                    again.insert((i, carried, groups));
                }
                let twice = self.block(body, again);
                state.extend(once);
                state.extend(twice);
                state
            }
            Stmt::InThreads { body, .. } => {
                let inner = self.block(body, state.clone());
                state.extend(inner);
                state
            }
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                let mut out = self.block(then_body, state.clone());
                match else_body {
                    Some(e) => out.extend(self.block(e, state)),
                    None => out.extend(state),
                }
                out
            }
            _ => state,
        }
    }
}

/// The warning for a race `w` between `first` and `second`.
fn diagnostic(
    ev: &Evaluator,
    list: &[Access],
    first: usize,
    second: usize,
    carried: Option<StmtId>,
    groups: u32,
    w: &Witness,
) -> Diagnostic {
    let m = ev.cx.m;
    let (a, b) = (&list[first], &list[second]);
    let name = ev.cx.binding_name(a.buf);
    let element = match a.view.array_index {
        Some(_) => format!("[{}] of entry {}", comma(&w.element[1..]), w.element[0]),
        None => format!("[{}]", comma(&w.element[1..])),
    };
    // Who does it: a thread, or the threads of an `mma.store` / `mma.load` (one of them).
    let who = |x: &Access, tid: usize| match x.collective {
        Some(op) => format!("`{op}`"),
        None => format!("thread `{}`", ev.thread_name(x.stmt, tid)),
    };
    let (wa, wb) = (who(a, w.tid_a), who(b, w.tid_b));
    let line = |s: StmtId| m.stmt_span(s).start.line;
    let fragment = |x: &Access| match x.collective {
        Some(_) => " (from another thread's fragment)",
        None => "",
    };
    let (earlier, later) = match carried {
        Some(_) => (
            " in the previous iteration of the loop",
            " in the next iteration of the loop",
        ),
        None => ("", ""),
    };
    // Only a warp's or warpgroup's barrier lies between them, and the threads are in two.
    let between = match groups {
        0 => "with no barrier in between",
        32 => "with only a warp's barrier in between (it orders the lanes of one warp)",
        _ => "with only a warpgroup's barrier in between (it orders the threads of one warpgroup)",
    };
    let (code, at, message, note_at, note) = match (a.write, b.write) {
        (true, false) => (
            codes::SHARED_RACE,
            b.at,
            format!(
                "data race on shared `{name}`: {wb} reads element {element}, which {wa} writes at line {}{} {between}",
                line(a.stmt),
                fragment(a)
            ),
            a.at,
            format!("{wa} writes it here{earlier}"),
        ),
        (false, true) => (
            codes::SHARED_RACE,
            a.at,
            format!(
                "data race on shared `{name}`: {wa} reads element {element}, which {wb} overwrites at line {}{} {between}",
                line(b.stmt),
                fragment(b)
            ),
            b.at,
            format!("{wb} overwrites it here{later}, possibly before the read"),
        ),
        _ => (
            codes::SHARED_WRITE_RACE,
            b.at,
            format!(
                "data race on shared `{name}`: {wa} and {wb} both write element {element} {between}, so which value stays is unordered"
            ),
            a.at,
            format!("{wa} writes it here{earlier}"),
        ),
    };
    // Between two `inthreads` branches (a barrier there is E1690), an event orders them.
    let help = match (a.branch, b.branch) {
        (Some(x), Some(y)) if x != y => {
            "order them with an event: `trigger e;` after the first, `wait e;` before the second"
        }
        _ => "add `sync.shared;` between them",
    };
    Diagnostic::warning(code, m.expr_span(at), message)
        .with_note(m.expr_span(note_at), note)
        .with_help(help)
}

fn comma(xs: &[i64]) -> String {
    xs.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
