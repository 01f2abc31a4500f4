//! Static index ranges: an interval analysis over the kernel body. Parallel and foreach
//! variables range over `[0, extent)` (under the config), bindings over the range of their
//! value, narrowed inside `inthreads`/`if` by conditions `v == c`, `v >= c`, `v > c`,
//! `v < c`, `v <= c` joined with `&&`. A condition on an expression over variables narrows that
//! expression where it appears again, alone or inside an index: under `if (c * 128 + t < N)`,
//! `N - 1 - (c * 128 + t)` is at least 0. An index that can leave a tensor or event array, or
//! a tile coordinate / element index that can leave a shared or local tensor, is an error.
//!
//! Ranges that are unbounded (e.g. loops over problem sizes at compile time) are not
//! errors: only a finite bound past the end (or below 0) is. An on-chip index unbounded on
//! some side is the warning `W1216`; a `.from` offset not shown to be at least 0 is `E0703`;
//! index arithmetic whose range leaves 32-bit `int` is `E0704`. A comparison of a `u32` /
//! `u64` value narrows nothing (C++ makes it in unsigned arithmetic).

use super::eval::{Env, Ext, Interval, eval, eval_interval};
use super::view::Views;
use super::{Binding, Cx, at_expr, codes, stmt_exprs, walk_expr};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{BinaryOp, Block, Expr, ExprId, Level, MemSpace, Stmt};
use crate::span::Span;
use std::collections::HashMap;

/// Where a loop or parallel variable comes from.
#[derive(Clone)]
struct Origin {
    extent: ExprId,
    /// The parallel level (`None` for a foreach).
    level: Option<Level>,
    range: Interval,
}

#[derive(Clone)]
struct St {
    env: Env,
    origins: HashMap<String, Origin>,
    lets: HashMap<String, ExprId>,
    narrowed: HashMap<String, Span>,
    /// Variables of an `apply` over a fragment's span: they walk its shape, which
    /// `frag_elem.rs` checks against the tiles they index.
    apply_vars: std::collections::HashSet<String>,
    /// Ranges of scalars computed from tensor data (for `W1216` only).
    data_ranges: HashMap<String, Interval>,
}

impl St {
    fn forget(&mut self, name: &str) {
        // A guard's range of an expression over `name` no longer holds.
        self.env.expr_ranges.retain(|(text, _)| {
            !text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == name)
        });
        self.env.values.remove(name);
        self.env.ranges.insert(name.to_string(), Interval::TOP);
        self.env.extents.remove(name);
        self.origins.remove(name);
        self.lets.remove(name);
        self.apply_vars.remove(name);
        self.data_ranges.remove(name);
    }
}

struct Violation {
    at: ExprId,
    array: bool,
    key: Key,
    message: String,
    /// What the index leaves, for the notes of other uses.
    what: String,
    notes: Vec<(Span, String)>,
    help: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Key {
    Name(Binding),
    Expr(ExprId),
}

pub(crate) fn check_ranges(
    cx: &Cx,
    views: &Views,
    diags: &mut Diagnostics,
    warnings: &mut Vec<Diagnostic>,
) {
    let st = St {
        env: cx.env.clone(),
        origins: HashMap::new(),
        lets: HashMap::new(),
        narrowed: HashMap::new(),
        apply_vars: Default::default(),
        data_ranges: HashMap::new(),
    };
    let mut w = W {
        cx,
        views,
        out: Vec::new(),
        expr_errors: Vec::new(),
        unbounded: Vec::new(),
    };
    w.block(&cx.m.kernel.body, st);
    // One diagnostic per out-of-range index source; array accesses first.
    let mut done = vec![false; w.out.len()];
    for i in 0..w.out.len() {
        if done[i] {
            continue;
        }
        let group: Vec<usize> = (i..w.out.len())
            .filter(|&j| !done[j] && w.out[j].key == w.out[i].key)
            .collect();
        let primary = group
            .iter()
            .copied()
            .find(|&j| w.out[j].array)
            .unwrap_or(group[0]);
        let p = &w.out[primary];
        let code = if p.array {
            codes::ARRAY_RANGE
        } else {
            codes::TILE_RANGE
        };
        let mut d = at_expr(cx.m, code, p.at, p.message.clone()).with_help(p.help.clone());
        for (s, n) in &p.notes {
            d = d.with_note(*s, n.clone());
        }
        for &j in &group {
            done[j] = true;
            if j != primary {
                let o = &w.out[j];
                d = d.with_note(
                    cx.m.expr_span(o.at),
                    format!("also out of range here: {}", o.what),
                );
            }
        }
        diags.push(d);
    }
    for (_, d) in w.expr_errors {
        diags.push(d);
    }
    warnings.extend(w.unbounded.into_iter().map(|(_, d)| d));
}

struct W<'a, 'b> {
    cx: &'a Cx<'b>,
    views: &'a Views,
    out: Vec<Violation>,
    /// `.from` offsets that may be below 0 (`E0703`) and index arithmetic past 32 bits
    /// (`E0704`), one diagnostic per expression.
    expr_errors: Vec<(ExprId, Diagnostic)>,
    /// Indices into shared and local tensors with no bound on some side (`W1216`).
    unbounded: Vec<(ExprId, Diagnostic)>,
}

impl W<'_, '_> {
    fn block(&mut self, b: &Block, mut st: St) {
        for &s in b {
            self.stmt(s, &mut st);
        }
    }

    fn stmt(&mut self, s: crate::ir::StmtId, st: &mut St) {
        let m = self.cx.m;
        for e in stmt_exprs(&m.stmts[s]) {
            self.check_expr(e, st);
        }
        match &m.stmts[s] {
            Stmt::Parallel { levels, body } => {
                let mut inner = st.clone();
                for l in levels {
                    for (v, &e) in l.vars.iter().zip(&l.extents) {
                        self.bind_var(&mut inner, &v.name, e, Some(l.level));
                    }
                }
                self.block(body, inner);
            }
            Stmt::Foreach {
                vars,
                extents,
                body,
                ..
            } => {
                let mut inner = st.clone();
                let walks_fragment = m.walked_fragment(extents).is_some();
                for (i, (v, &e)) in vars.iter().zip(extents).enumerate() {
                    self.bind_var(&mut inner, &v.name, e, None);
                    if walks_fragment {
                        inner.apply_vars.insert(v.name.clone());
                    }
                    // `foreach k(lo:hi)`: `k` runs over `[lo, hi)` inside its bound.
                    if let Some(r) = m.loop_range(s, i) {
                        let lo = eval_interval(m, r.start, &st.env);
                        let hi = eval_interval(m, r.end, &st.env);
                        let range = Interval {
                            lo: lo.lo,
                            hi: match hi.hi {
                                Ext::Fin(h) => Ext::Fin(h.saturating_sub(1)),
                                x => x,
                            },
                        };
                        inner.env.ranges.insert(v.name.clone(), range);
                        if let Some(o) = inner.origins.get_mut(&v.name) {
                            o.range = range;
                        }
                    }
                }
                self.block(body, inner);
            }
            Stmt::Let { name, value } => {
                let r = self.value_interval(*value, st);
                st.forget(&name.name);
                st.env.ranges.insert(name.name.clone(), r);
                st.lets.insert(name.name.clone(), *value);
            }
            // A scalar never assigned again holds its initial value, as a `let` does — when that
            // value is index arithmetic. One computed from tensor data (`x.at(i) % 16`) stays
            // unknown, as the data does.
            Stmt::ScalarDecl {
                name,
                init: Some(v),
                ..
            } if !super::events::assigned(self.cx, s) && !reads_data(m, *v) => {
                let r = self.value_interval(*v, st);
                st.forget(&name.name);
                st.env.ranges.insert(name.name.clone(), r);
            }
            // A counter (`mutable int order = 0;` that statements only step up, `order++`):
            // never below its initial value. Its top is unknown.
            Stmt::ScalarDecl {
                name,
                init: Some(v),
                ..
            } if !reads_data(m, *v) && only_grows(self.cx, s, &st.env) => {
                let r = eval_interval(m, *v, &st.env);
                st.forget(&name.name);
                let counter = Interval {
                    lo: r.lo,
                    hi: Ext::PosInf,
                };
                st.env.ranges.insert(name.name.clone(), counter);
            }
            // One computed from data: unknown to the errors, but its arithmetic may still
            // bound it (`(x.at(i) % 64 + 64) % 64`), which the warning of an unbounded
            // on-chip index looks at (`data_ranges`).
            Stmt::ScalarDecl {
                name,
                init: Some(v),
                ..
            } if !super::events::assigned(self.cx, s) => {
                let mut data = st.clone();
                data.env = element_ranges(self.cx, *v, &st.env);
                let r = self.value_interval(*v, &data);
                st.forget(&name.name);
                st.data_ranges.insert(name.name.clone(), r);
            }
            Stmt::ScalarDecl { name, .. } => st.forget(&name.name),
            Stmt::MmaFill { name, .. } | Stmt::MmaLoad { name, .. } => st.forget(&name.name),
            Stmt::TensorDecl { names, .. } | Stmt::EventDecl { names, .. } => {
                for d in names {
                    st.forget(&d.name.name);
                }
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                if let Some(t) = self.narrow(st, *cond, false) {
                    self.block(then_body, t);
                }
                if let Some(b) = else_body
                    && let Some(e) = self.narrow(st, *cond, true)
                {
                    self.block(b, e);
                }
            }
            Stmt::InThreads { cond, body, .. } => {
                if let Some(t) = self.narrow(st, *cond, false) {
                    self.block(body, t);
                }
            }
            _ => {}
        }
    }

    fn bind_var(&self, st: &mut St, name: &str, extent: ExprId, level: Option<Level>) {
        let m = self.cx.m;
        st.forget(name);
        let r = match eval(m, extent, &st.env) {
            Ok(v) => {
                st.env.extents.insert(name.to_string(), v);
                Interval::new(0, v.saturating_sub(1))
            }
            Err(_) => Interval {
                lo: Ext::Fin(0),
                hi: Ext::PosInf,
            },
        };
        st.env.ranges.insert(name.to_string(), r);
        st.origins.insert(
            name.to_string(),
            Origin {
                extent,
                level,
                range: r,
            },
        );
    }

    /// The state inside a branch guarded by `cond` (or by its negation); `None` when the
    /// branch can never run.
    fn narrow(&self, st: &St, cond: ExprId, negate: bool) -> Option<St> {
        let m = self.cx.m;
        let mut out = st.clone();
        let mut conj = Vec::new();
        if negate {
            // Only a single comparison can be negated into a range.
            if let Expr::Binary { op, lhs, rhs } = &m.exprs[cond] {
                let neg = match op {
                    BinaryOp::Lt => Some(BinaryOp::Ge),
                    BinaryOp::Le => Some(BinaryOp::Gt),
                    BinaryOp::Gt => Some(BinaryOp::Le),
                    BinaryOp::Ge => Some(BinaryOp::Lt),
                    BinaryOp::Ne => Some(BinaryOp::Eq),
                    _ => None,
                };
                if let Some(n) = neg {
                    conj.push((n, *lhs, *rhs));
                }
            }
        } else {
            conjuncts(m, cond, &mut conj);
        }
        for (op, lhs, rhs) in conj {
            // C++ compares a 32- or 64-bit unsigned operand in unsigned arithmetic, where
            // `h - 1 >= 0` always holds: such a comparison bounds nothing.
            if unsigned(self.cx, lhs) || unsigned(self.cx, rhs) {
                continue;
            }
            // A variable against a value narrows the variable; an expression over variables
            // against a value narrows that expression wherever it appears (`expr_ranges`).
            let side = |e: ExprId| match &m.exprs[e] {
                Expr::Name(n) if out.env.ranges.contains_key(n) => Some(Some(n.clone())),
                Expr::Name(_) | Expr::Int(_) => None,
                _ => Some(None),
            };
            let (var, expr, op, c) = match (side(lhs), eval(m, rhs, &out.env)) {
                (Some(v), Ok(c)) => (v, lhs, op, c),
                _ => match (side(rhs), eval(m, lhs, &out.env)) {
                    (Some(v), Ok(c)) => (v, rhs, flip(op), c),
                    _ => continue,
                },
            };
            let lim = match op {
                BinaryOp::Eq => Interval::new(c, c),
                BinaryOp::Ge => Interval {
                    lo: Ext::Fin(c),
                    hi: Ext::PosInf,
                },
                BinaryOp::Gt => Interval {
                    lo: Ext::Fin(c.saturating_add(1)),
                    hi: Ext::PosInf,
                },
                BinaryOp::Lt => Interval {
                    lo: Ext::NegInf,
                    hi: Ext::Fin(c.saturating_sub(1)),
                },
                BinaryOp::Le => Interval {
                    lo: Ext::NegInf,
                    hi: Ext::Fin(c),
                },
                _ => continue,
            };
            let Some(name) = var else {
                if !reads_data(m, expr) {
                    out.env.expr_ranges.push((m.expr_to_string(expr), lim));
                }
                continue;
            };
            let cur = out.env.ranges[&name];
            let new = cur.meet(lim);
            if new.is_empty() {
                return None;
            }
            if new != cur {
                out.env.ranges.insert(name.clone(), new);
                out.narrowed.insert(name, m.expr_span(cond));
            }
        }
        Some(out)
    }

    fn check_expr(&mut self, e: ExprId, st: &St) {
        let cx = self.cx;
        let m = cx.m;
        let mut sites = Vec::new();
        walk_expr(m, e, &mut |x| sites.push(x));
        for &x in &sites {
            let args: &[ExprId] = match &m.exprs[x] {
                Expr::View { args, .. } => args,
                Expr::Index { index, .. } => std::slice::from_ref(index),
                _ => continue,
            };
            for &a in args {
                self.check_int32(a, st);
            }
        }
        for x in sites {
            match &m.exprs[x] {
                Expr::Index { base, index } => {
                    let Some(b) = cx.res.bindings.get(base).copied() else {
                        continue;
                    };
                    let (s, d, what) = match b {
                        Binding::Tensor(s, d) => (s, d, "tensor array"),
                        Binding::Event(s, d) => (s, d, "event array"),
                        _ => continue,
                    };
                    let decl = match &m.stmts[s] {
                        Stmt::TensorDecl { names, .. } | Stmt::EventDecl { names, .. } => {
                            names.get(d)
                        }
                        _ => None,
                    };
                    let Some(decl) = decl else { continue };
                    let (count_expr, name) = (decl.count, Some(decl.name.clone()));
                    let (Some(ce), Some(name)) = (count_expr, name) else {
                        continue;
                    };
                    // `s[i][j]` of an array of several dimensions: each index within its
                    // own dimension.
                    if let Some(ai) = m.array_indices.iter().find(|a| a.index == *index) {
                        let rank = ai.parts.len();
                        for (k, &(i, d)) in ai.parts.iter().enumerate() {
                            let Some(n) = cx.value(d) else { continue };
                            let what = format!(
                                "dimension {k} of the {rank}-dimensional {what} `{}` has {} element{}",
                                name.name,
                                describe(cx, d, n),
                                plural(n)
                            );
                            let note = (name.span, format!("`{}` is declared here", name.name));
                            self.check_index(i, n, st, true, &what, Some(d), note);
                        }
                        continue;
                    }
                    let Some(n) = cx.value(ce) else { continue };
                    let cdesc = describe(cx, ce, n);
                    let decl_note = (name.span, format!("`{}` is declared here", name.name));
                    let what = format!(
                        "`{}` is a {what} of {cdesc} element{}",
                        name.name,
                        plural(n)
                    );
                    self.check_index(*index, n, st, true, &what, Some(ce), decl_note);
                }
                Expr::View {
                    op: crate::ir::ViewOp::Chunkat,
                    args,
                    ..
                } if !self
                    .views
                    .get(x)
                    .is_some_and(|v| matches!(v.space, MemSpace::Shared | MemSpace::Local)) =>
                {
                    // A shifted index (`k - 1`) or a bounded value (`k(-1)`) stays among the
                    // chunks of its variable's extent (or bound), in any memory.
                    for &a in args {
                        let n = match super::chunk_index(m, a) {
                            super::ChunkIndex::Bound(b) => cx.value(b),
                            super::ChunkIndex::Base(b) if b != a => match &m.exprs[b] {
                                Expr::Name(v) => st.env.extents.get(v).copied(),
                                _ => None,
                            },
                            super::ChunkIndex::Base(_) => None,
                        };
                        let Some(n) = n else { continue };
                        let what = format!(
                            "`.chunkat` splits this dimension into {n} chunk{}",
                            plural(n)
                        );
                        let note = (m.expr_span(x), "this view".to_string());
                        self.check_index(a, n, st, false, &what, None, note);
                    }
                }
                // `.from(i, j)` places a window at element offsets the copies bound by the
                // tensor's extents from above only: each must be at least 0 here.
                Expr::View {
                    op: crate::ir::ViewOp::From,
                    args,
                    ..
                } => {
                    // A problem size is never negative.
                    let mut env = st.env.clone();
                    for (&e, b) in &cx.res.bindings {
                        if let (Binding::SymDim { .. }, Expr::Name(n)) = (b, &m.exprs[e]) {
                            env.ranges.entry(n.clone()).or_insert(Interval {
                                lo: Ext::Fin(0),
                                hi: Ext::PosInf,
                            });
                        }
                    }
                    for &a in args {
                        let lo = eval_interval(m, a, &env).lo;
                        if matches!(lo, Ext::Fin(v) if v >= 0)
                            || self.expr_errors.iter().any(|(e, _)| *e == a)
                        {
                            continue;
                        }
                        let why = match lo {
                            Ext::Fin(v) => format!("it can be {v}"),
                            _ => "nothing here bounds it from below".to_string(),
                        };
                        self.expr_errors.push((
                            a,
                            at_expr(
                                m,
                                codes::FROM_OFFSET,
                                a,
                                format!(
                                    "the `.from` offset `{}` may be below 0: {why}",
                                    m.expr_to_string(a)
                                ),
                            )
                            .with_note(m.expr_span(x), "the window it places")
                            .with_help("a window starts inside its tensor: write the offset over loop and parallel variables, tunables and constants, or guard it (`if (i >= 0)`)"),
                        ));
                    }
                }
                Expr::View { .. } => {
                    let Some(v) = self.views.get(x) else { continue };
                    if !matches!(v.space, MemSpace::Shared | MemSpace::Local) {
                        continue;
                    }
                    let name = cx.binding_name(v.root);
                    for (d, (c, b)) in v.coords.iter().zip(&v.bounds).enumerate() {
                        let (Some(c), Some(n)) = (c, b) else { continue };
                        let unit = if v.element { "element" } else { "tile" };
                        let decl_note = (m.expr_span(x), format!("this view of `{name}`"));
                        let what = format!(
                            "`{name}` has {n} {unit}{} along dimension {d} in this view",
                            plural(*n)
                        );
                        self.check_index(*c, *n, st, false, &what, None, decl_note);
                    }
                }
                _ => {}
            }
        }
    }

    /// The range of a bound value: a ternary `c ? a : b` takes each side's range where its
    /// condition holds (`x > 0 ? x - 1 : 0` is at least 0), anything else its own.
    fn value_interval(&self, v: ExprId, st: &St) -> Interval {
        let m = self.cx.m;
        if let Expr::Call { func, args } = &m.exprs[v]
            && func.name == "select"
            && let [c, a, b] = args.as_slice()
        {
            let side = |negate: bool, e: ExprId| {
                self.narrow(st, *c, negate)
                    .map(|n| self.value_interval(e, &n))
            };
            return match (side(false, *a), side(true, *b)) {
                (Some(x), Some(y)) => x.hull(y),
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => eval_interval(m, v, &st.env),
            };
        }
        eval_interval(m, v, &st.env)
    }

    /// The kernel computes index arithmetic in 32-bit `int`: a step of `idx` whose range
    /// leaves it wraps (`t * 1000000007 % 64` reads below the tensor), an error (`E0704`).
    fn check_int32(&mut self, idx: ExprId, st: &St) {
        let m = self.cx.m;
        let mut steps = Vec::new();
        walk_expr(m, idx, &mut |x| {
            if matches!(
                m.exprs[x],
                Expr::Binary {
                    op: BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Shl,
                    ..
                }
            ) {
                steps.push(x);
            }
        });
        for x in steps {
            if self.expr_errors.iter().any(|(e, _)| *e == x) {
                continue;
            }
            let r = eval_interval(m, x, &st.env);
            let past = |v: &Ext| match *v {
                Ext::Fin(v) if v > i32::MAX as i64 || v < i32::MIN as i64 => Some(v),
                _ => None,
            };
            let Some(v) = past(&r.hi).or_else(|| past(&r.lo)) else {
                continue;
            };
            self.expr_errors.push((
                x,
                at_expr(
                    m,
                    codes::INDEX_OVERFLOW,
                    x,
                    format!(
                        "`{}` can reach {v}, past 32-bit `int`, in which the kernel computes indices: it wraps",
                        m.expr_to_string(x)
                    ),
                )
                .with_help("keep index arithmetic within ±2^31 (reduce before multiplying: `(t % 64) * 7`), or hash in a `u32` value"),
            ));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_index(
        &mut self,
        idx: ExprId,
        n: i64,
        st: &St,
        array: bool,
        what: &str,
        count_expr: Option<ExprId>,
        decl_note: (Span, String),
    ) {
        let cx = self.cx;
        let m = cx.m;
        if n < 1 {
            return; // a non-positive count is reported by the shape checks
        }
        let r = eval_interval(m, idx, &st.env);
        let below = matches!(r.lo, Ext::Fin(lo) if lo < 0);
        let above = matches!(r.hi, Ext::Fin(hi) if hi > n - 1);
        // An on-chip buffer has no bounds test: an index nothing here bounds may overrun it.
        // With the ranges of values computed from data, which the errors leave unknown.
        let open = {
            let mut env = element_ranges(cx, idx, &st.env);
            for (n, r) in &st.data_ranges {
                env.ranges.insert(n.clone(), *r);
            }
            let d = eval_interval(m, idx, &env);
            let inside = matches!((d.lo, d.hi), (Ext::Fin(lo), Ext::Fin(hi)) if lo >= 0 && hi < n);
            !inside && (!matches!(r.lo, Ext::Fin(_)) || !matches!(r.hi, Ext::Fin(_)))
        };
        let mut walks = false;
        walk_expr(m, idx, &mut |x| {
            walks |= matches!(&m.exprs[x], Expr::Name(n) if st.apply_vars.contains(n));
        });
        if !array
            && open
            && !walks
            && !below
            && !above
            && !self.unbounded.iter().any(|(e, _)| *e == idx)
        {
            let (side, fix) = if matches!(r.lo, Ext::Fin(_)) {
                (
                    "from above",
                    format!("`min({}, {})`", m.expr_to_string(idx), n - 1),
                )
            } else {
                ("from below", format!("`max({}, 0)`", m.expr_to_string(idx)))
            };
            self.unbounded.push((
                idx,
                Diagnostic::warning(
                    codes::UNBOUNDED_INDEX,
                    m.expr_span(idx),
                    format!(
                        "nothing here bounds the index `{}` {side}, but {what}: a value outside [0, {n}) reads or writes past the buffer",
                        m.expr_to_string(idx)
                    ),
                )
                .with_note(decl_note.0, decl_note.1.clone())
                .with_help(format!(
                    "bound it where it is used — {fix}, `% {n}`, or a guard such as `if ({} < {n})` — or derive it from loop and parallel variables",
                    m.expr_to_string(idx)
                )),
            ));
        }
        if !(below || above) || r.is_empty() {
            return;
        }
        let text = m.expr_to_string(idx);
        let message =
            format!("index `{text}` ranges over {r} here, but {what}: valid indices are [0, {n})");
        let mut notes = Vec::new();
        // Where the range comes from: the variables the index depends on.
        let mut seen = Vec::new();
        self.sources(idx, st, &mut seen);
        for v in &seen {
            if let Some(&def) = st.lets.get(v) {
                notes.push((
                    m.expr_span(def),
                    format!("`{v}` = `{}`", m.expr_to_string(def)),
                ));
            }
            if let Some(o) = st.origins.get(v) {
                let lvl = o
                    .level
                    .map(|l| format!("`: {l}` level"))
                    .unwrap_or_else(|| "foreach".into());
                notes.push((
                    m.expr_span(o.extent),
                    format!("`{v}` ranges over {} from this {lvl} extent", o.range),
                ));
            }
            if let Some(sp) = st.narrowed.get(v) {
                notes.push((
                    *sp,
                    format!("narrowed to {} by this condition", st.env.ranges[v]),
                ));
            }
        }
        notes.push(decl_note);
        let help = self.help(idx, n, st, above, count_expr, &text);
        let key = match &m.exprs[idx] {
            Expr::Name(_) => cx
                .res
                .bindings
                .get(&idx)
                .map(|b| Key::Name(*b))
                .unwrap_or(Key::Expr(idx)),
            _ => Key::Expr(idx),
        };
        self.out.push(Violation {
            at: idx,
            array,
            key,
            message,
            what: what.to_string(),
            notes,
            help,
        });
    }

    /// Names of the loop/parallel variables `e` depends on (through bindings).
    fn sources(&self, e: ExprId, st: &St, out: &mut Vec<String>) {
        let m = self.cx.m;
        let mut names = Vec::new();
        walk_expr(m, e, &mut |x| {
            if let Expr::Name(n) = &m.exprs[x] {
                names.push(n.clone());
            }
        });
        for n in names {
            if out.contains(&n) {
                continue;
            }
            if let Some(&def) = st.lets.get(&n) {
                out.push(n.clone());
                self.sources(def, st, out);
            } else if st.origins.contains_key(&n) {
                out.push(n);
            }
        }
    }

    /// `make the warpgroup count CONSUMERS + 1` when the index is `v + off` for a parallel or
    /// foreach variable `v`; a generic hint otherwise.
    fn help(
        &self,
        idx: ExprId,
        n: i64,
        st: &St,
        above: bool,
        count_expr: Option<ExprId>,
        text: &str,
    ) -> String {
        let m = self.cx.m;
        if above {
            if let Some((v, off)) = affine(m, idx, st)
                && let Some(o) = st.origins.get(&v)
            {
                // Max index = extent - 1 + off must be n - 1: extent = n - off.
                let count = count_expr
                    .map(|c| m.expr_to_string(c))
                    .unwrap_or_else(|| n.to_string());
                let want = match (off, count_expr.is_some()) {
                    (0, _) => count,
                    (o, true) if o < 0 => format!("{count} + {}", o.unsigned_abs()),
                    (o, true) => format!("{count} - {o}"),
                    (o, false) => n.saturating_sub(o).to_string(),
                };
                let what = match o.level {
                    Some(Level::Block) => "block count",
                    Some(Level::Group4) => "warpgroup count",
                    Some(Level::Group) => "warp count",
                    Some(Level::Thread) => "thread count",
                    None => "loop extent",
                };
                return format!(
                    "make the {what} `{want}` (it is `{}` now), or guard the access so that `{text}` stays below {n}",
                    m.expr_to_string(o.extent)
                );
            }
            return format!(
                "make the array larger, or guard the access so that `{text}` stays below {n}"
            );
        }
        format!("guard the access so that `{text}` is at least 0")
    }
}

/// Whether every statement that assigns the scalar declared by `decl` adds a value that is
/// never negative (`x += c`, `x++`, `x = x + c`) or subtracts one that is never positive; and
/// at least one does. (A counter stepped past `i32::MAX` would be undefined in C++ anyway.)
fn only_grows(cx: &Cx, decl: crate::ir::StmtId, env: &Env) -> bool {
    use crate::ir::AssignOp;
    let m = cx.m;
    let this = |e: ExprId| cx.res.bindings.get(&e) == Some(&Binding::Scalar(decl));
    let nonneg = |e: ExprId| matches!(eval_interval(m, e, env).lo, Ext::Fin(l) if l >= 0);
    let nonpos = |e: ExprId| matches!(eval_interval(m, e, env).hi, Ext::Fin(h) if h <= 0);
    let mut steps = 0;
    for s in super::all_stmts(m) {
        match &m.stmts[s] {
            Stmt::Assign { target, op, value } if this(*target) => {
                let up = match op {
                    AssignOp::Add => nonneg(*value),
                    AssignOp::Sub => nonpos(*value),
                    AssignOp::Set => matches!(&m.exprs[*value],
                        Expr::Binary { op: BinaryOp::Add, lhs, rhs }
                            if (this(*lhs) && nonneg(*rhs)) || (this(*rhs) && nonneg(*lhs))),
                    _ => false,
                };
                if !up {
                    return false;
                }
                steps += 1;
            }
            Stmt::Reduce { .. } if cx.res.reduce_target(s) == Some(&Binding::Scalar(decl)) => {
                return false;
            }
            _ => {}
        }
    }
    steps > 0
}

/// `env` with the range of each element `e` reads from a tensor of a narrow integer type (a
/// `u8` element is in [0, 255]): what the data can be, for the warning of an unbounded index.
fn element_ranges(cx: &Cx, e: ExprId, env: &Env) -> Env {
    use crate::ir::DType;
    let m = cx.m;
    let mut out = env.clone();
    walk_expr(m, e, &mut |x| {
        if !matches!(
            m.exprs[x],
            Expr::View {
                op: crate::ir::ViewOp::At,
                ..
            }
        ) {
            return;
        }
        let range = match super::sparse::operand_dtype(cx, x) {
            Some(DType::U8) => Interval::new(0, u8::MAX as i64),
            Some(DType::S8) => Interval::new(i8::MIN as i64, i8::MAX as i64),
            Some(DType::U16) => Interval::new(0, u16::MAX as i64),
            Some(DType::S16) => Interval::new(i16::MIN as i64, i16::MAX as i64),
            Some(DType::Bool) => Interval::new(0, 1),
            _ => return,
        };
        out.expr_ranges.push((m.expr_to_string(x), range));
    });
    out
}

/// Whether `e` mentions a value of a 32- or 64-bit unsigned type (a `u32` / `u64` scalar or
/// tensor element), which makes C++ evaluate it — and compare it — in unsigned arithmetic.
fn unsigned(cx: &Cx, e: ExprId) -> bool {
    use crate::ir::DType;
    let m = cx.m;
    let wide = |d: DType| matches!(d, DType::U32 | DType::U64);
    let mut found = false;
    walk_expr(m, e, &mut |x| {
        let Expr::Name(_) = &m.exprs[x] else { return };
        found |= match cx.res.bindings.get(&x) {
            Some(Binding::Scalar(d)) => {
                matches!(&m.stmts[*d], Stmt::ScalarDecl { dtype, .. } if wide(*dtype))
            }
            _ => super::sparse::operand_dtype(cx, x).is_some_and(wide),
        };
    });
    found
}

fn plural(n: i64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `CONSUMERS = 1` or `4`.
fn describe(cx: &Cx, e: ExprId, v: i64) -> String {
    let t = cx.m.expr_to_string(e);
    if t == v.to_string() {
        t
    } else {
        format!("{t} = {v}")
    }
}

fn flip(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        o => o,
    }
}

fn conjuncts(m: &crate::ir::Module, e: ExprId, out: &mut Vec<(BinaryOp, ExprId, ExprId)>) {
    if let Expr::Binary { op, lhs, rhs } = &m.exprs[e] {
        if *op == BinaryOp::And {
            conjuncts(m, *lhs, out);
            conjuncts(m, *rhs, out);
        } else if op.is_comparison() {
            out.push((*op, *lhs, *rhs));
        }
    }
}

/// `e` as `v + off` for a loop/parallel variable `v` (looking through bindings).
fn affine(m: &crate::ir::Module, e: ExprId, st: &St) -> Option<(String, i64)> {
    match &m.exprs[e] {
        Expr::Name(n) => {
            if let Some(&def) = st.lets.get(n) {
                affine(m, def, st)
            } else if st.origins.contains_key(n) {
                Some((n.clone(), 0))
            } else {
                None
            }
        }
        Expr::Binary {
            op: BinaryOp::Add,
            lhs,
            rhs,
        } => match (affine(m, *lhs, st), eval(m, *rhs, &st.env)) {
            (Some((v, o)), Ok(c)) => Some((v, o.checked_add(c)?)),
            _ => match (eval(m, *lhs, &st.env), affine(m, *rhs, st)) {
                (Ok(c), Some((v, o))) => Some((v, o.checked_add(c)?)),
                _ => None,
            },
        },
        Expr::Binary {
            op: BinaryOp::Sub,
            lhs,
            rhs,
        } => match (affine(m, *lhs, st), eval(m, *rhs, &st.env)) {
            (Some((v, o)), Ok(c)) => Some((v, o.checked_sub(c)?)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `e` reads a tensor element, an array entry or a field (a value of the data, not of
/// the indices).
fn reads_data(m: &crate::ir::Module, e: ExprId) -> bool {
    let mut data = false;
    walk_expr(m, e, &mut |x| {
        data |= matches!(
            m.exprs[x],
            Expr::View { .. } | Expr::Index { .. } | Expr::Field { .. }
        );
    });
    data
}
