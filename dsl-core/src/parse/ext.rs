//! Statements of today's Croqtile beyond the core dialect: `return`, `call`, `println`,
//! `assert`, `sync.barrier|global|fence`, `while`, `with … in` (and the `foreach x` it
//! bounds), `mutable` scalars, bound `dma.copy` futures, several events or futures after
//! `wait` / `trigger`, and `mma.fill acc, v`.
//!
//! Pure sugar becomes the core IR here (`wait a, b` → two waits, `mutable int x` → a scalar,
//! `with x in N { foreach x … }` → `foreach x in [N]`); the rest becomes [`Stmt::Ext`], which
//! the checker accepts and its lowering gate reports as "not supported yet".

use super::codes;
use super::cursor::{PResult, Parser, Reported};
use super::lexer::{Delim, TokKind};
use crate::diag::Diagnostic;
use crate::ir::{
    AsmOperand, Block, CopyDst, Expr, ExprId, ExtStmt, Ident, PrintArg, Stmt, StmtId, SyncKind,
    ViewOp,
};

/// `dma` operations beyond the core `copy` and `wait`.
const DMA_EXT_OPS: &[&str] = &["copy", "pad", "transp", "any"];
const DMA_ALL_OPS: &[&str] = &["copy", "wait", "pad", "transp", "any"];
/// Modifiers after `dma.copy` (and `dma.pad` / `dma.transp`).
const DMA_MODIFIERS: &[&str] = &["async", "swiz", "zfill"];

impl Parser {
    /// `return [e];`
    pub(crate) fn return_stmt(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        let value = if self.is_op(";") {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect_semi("`return`")?;
        Ok(self.add_stmt(Stmt::Ext(ExtStmt::Return { value }), self.span_from(first)))
    }

    /// `call f(args);` or `call f<T, U>(args);`
    pub(crate) fn call_stmt(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        let mut func = self.expect_ident("the function to call")?;
        // `ns::f`
        while self.punct_at(self.pos, ':') && self.punct_at(self.pos + 1, ':') {
            self.pos += 2;
            let part = self.expect_ident("a name after `::`")?;
            func = Ident::new(
                format!("{}::{}", func.name, part.name),
                func.span.join(part.span),
            );
        }
        let mut targs = Vec::new();
        if self.eat_op("<").is_some() {
            loop {
                targs.push(self.expr_no_gt()?);
                if self.eat_op(",").is_none() {
                    break;
                }
            }
            self.expect_op(">", "to close the template arguments")?;
        }
        let (_, close) = self.expect_open(Delim::Paren, "and the call's arguments")?;
        let args = self.comma_list(close, "the argument list", |p| p.expr())?;
        self.expect_semi("the call")?;
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::Call { func, targs, args }),
            self.span_from(first),
        ))
    }

    /// A string literal at the cursor, without its quotes.
    fn string_lit(&mut self) -> Option<String> {
        match self.kind_at(self.pos) {
            Some(TokKind::Lit(t)) if t.starts_with('"') && t.ends_with('"') && t.len() >= 2 => {
                let s = t[1..t.len() - 1].to_string();
                self.bump();
                Some(s)
            }
            _ => None,
        }
    }

    /// `f(args);` for a built-in `f` (atomics): a call for its effect.
    pub(crate) fn builtin_stmt(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        let func = self.expect_ident("a built-in")?;
        let (_, close) = self.expect_open(Delim::Paren, "and the arguments")?;
        let args = self.comma_list(close, "the argument list", |p| p.expr())?;
        let span = self.span_from(first);
        let arity = crate::ir::builtin_arity(&func.name).unwrap_or(0);
        if args.len() != arity {
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_CALL,
                    span,
                    format!(
                        "`{}` takes {arity} arguments, found {}",
                        func.name,
                        args.len()
                    ),
                )
                .with_help(format!("write `{}(…)` with {arity} arguments", func.name)),
            ));
        }
        // Atomics update memory: their target is an element of a tensor.
        let element = args.first().is_some_and(|&a| {
            matches!(
                self.exprs[a],
                crate::ir::Expr::View {
                    op: crate::ir::ViewOp::At,
                    ..
                }
            )
        });
        if func.name.starts_with("__atomic") && !element {
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_CALL,
                    args.first().map_or(span, |&a| self.exprs.get_span(a)),
                    format!("`{}` updates a tensor element, not a scalar", func.name),
                )
                .with_help("name the element: `__atomic_add(hist.at(i), 1);`"),
            ));
        }
        self.expect_semi("the call")?;
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::Call {
                func,
                targs: Vec::new(),
                args,
            }),
            self.span_from(first),
        ))
    }

    /// `println("text", e, …);` (also `print`).
    pub(crate) fn println_stmt(&mut self) -> PResult<StmtId> {
        let newline = self.is_kw("println");
        let first = self.bump();
        let (_, close) = self.expect_open(Delim::Paren, "and what to print")?;
        let args = self.comma_list(close, "the print arguments", |p| match p.string_lit() {
            Some(s) => Ok(PrintArg::Str(s)),
            None => p.expr().map(PrintArg::Expr),
        })?;
        self.expect_semi("`println`")?;
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::Println { args, newline }),
            self.span_from(first),
        ))
    }

    /// `assert(cond[, "message"]);`
    pub(crate) fn assert_stmt(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        let (_, close) = self.expect_open(Delim::Paren, "and the asserted condition")?;
        let cond = self.expr()?;
        let message = if self.eat_op(",").is_some() {
            match self.string_lit() {
                Some(s) => Some(s),
                None => {
                    return Err(self.unexpected_help(
                        codes::BAD_CALL,
                        "a string message after the condition",
                        "write `assert(x < N, \"x out of range\");`",
                    ));
                }
            }
        } else {
            None
        };
        self.close(close, "to end `assert`");
        self.expect_semi("`assert`")?;
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::Assert { cond, message }),
            self.span_from(first),
        ))
    }

    /// `sync.barrier;`, `sync.global;`, `sync.fence;` (the cursor is at `sync`; `sync.shared`
    /// is the core dialect's and handled by `sync`).
    pub(crate) fn sync_ext(&mut self, kind: SyncKind) -> PResult<StmtId> {
        let first = self.pos;
        self.pos += 3;
        let level = match self.eat_op(":") {
            Some(_) => Some(self.level()?.0),
            None => None,
        };
        self.expect_semi(&format!("`sync.{}`", kind.name()))?;
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::Sync { kind, level }),
            self.span_from(first),
        ))
    }

    /// `while (cond) body`
    pub(crate) fn while_stmt(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        let cond = self.paren_cond("after `while`")?;
        let body = self.body(&[])?;
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::While { cond, body }),
            self.span_from(first),
        ))
    }

    /// `with x in N body`, `with {x, y} in [A, B] body`, `with t = {x, y} in [A, B] body`
    /// (also `with t in [A, B]`). The names are bounded: a `foreach x` inside iterates
    /// `x` over its bound. The body's statements join the enclosing block.
    pub(crate) fn with_stmt(&mut self, out: &mut Block) -> PResult<()> {
        self.bump();
        let mut frame: Vec<(String, Vec<ExprId>, Vec<Ident>)> = Vec::new();
        let mut named: Vec<Ident> = Vec::new();
        // `with a in A, {x, y} in [M, N] { … }`: several clauses share one body.
        loop {
            self.with_clause(&mut frame, &mut named)?;
            if self.eat_op(",").is_none() {
                break;
            }
        }
        // Tuples of several names (`index = {x, y}`, `index in [A, B]`) stand for their
        // elements in the body (`ituple.rs`).
        let tuples = frame
            .iter()
            .filter(|(_, _, elems)| elems.len() > 1)
            .map(|(n, _, elems)| (n.clone(), elems.clone()))
            .collect();
        self.with_bounds.push(frame);
        let body = self.with_ituples(tuples, |p| p.body(&named));
        self.with_bounds.pop();
        out.extend(body?);
        Ok(())
    }

    /// One `names in bounds` clause of a `with`.
    fn with_clause(
        &mut self,
        frame: &mut Vec<(String, Vec<ExprId>, Vec<Ident>)>,
        named: &mut Vec<Ident>,
    ) -> PResult<()> {
        let first = self.pos;
        let mut tuple: Option<Ident> = None;
        let mut vars = Vec::new();
        if self.is_open(Delim::Brace) {
            vars = self.brace_idents()?;
        } else {
            let name = self.expect_ident("the bounded names after `with`")?;
            if self.eat_op("=").is_some() {
                vars = self.brace_idents()?;
            }
            tuple = Some(name);
        }
        if self.eat_kw("in").is_none() {
            return Err(self.unexpected_help(
                codes::BAD_LOOP,
                "`in` and the bounds",
                "write `with {x, y} in [M, N] { … }`",
            ));
        }
        if let Some(w) = vars.iter().chain(tuple.iter()).find(|v| v.name == "_") {
            return Err(self.error(
                Diagnostic::new(codes::BAD_LOOP, w.span, "`_` cannot be bounded by `with`")
                    .with_help("name the index: `with {k} in [N] { foreach k { … } }`"),
            ));
        }
        let extents = self.extents(false)?;
        // `with i in sp` over a named shape: its dimensions.
        let extents = self.splice_spans(extents);
        self.with_extents.extend(extents.iter().copied());
        if !vars.is_empty() && vars.len() != extents.len() {
            let span = self.span_from(first);
            return Err(self.error(
                Diagnostic::new(
                    codes::COUNT,
                    span,
                    format!("{} names but {} bounds", vars.len(), extents.len()),
                )
                .with_help("give one bound per name"),
            ));
        }
        if vars.is_empty() {
            named.extend(tuple.iter().cloned());
        } else {
            named.extend(vars.iter().cloned());
        }
        // A single unnamed tuple over several bounds (`with index in [3, 9]`) keeps the
        // tuple's name bounded by the first extent only when there is one.
        if vars.is_empty() {
            if let Some(t) = &tuple {
                // `with index in [A, B]`: an i-tuple; its elements are bounded names of
                // their own (0 outside a `foreach index`).
                let elems = if extents.len() > 1 {
                    self.ituple_elements(t, extents.len())
                } else {
                    Vec::new()
                };
                for (v, e) in elems.iter().zip(&extents) {
                    frame.push((v.name.clone(), vec![*e], Vec::new()));
                }
                frame.push((t.name.clone(), extents.clone(), elems));
            }
        } else {
            for (v, e) in vars.iter().zip(&extents) {
                frame.push((v.name.clone(), vec![*e], Vec::new()));
            }
            // `with index = {x, y} in …`: `foreach index` iterates `x` and `y`.
            if let Some(t) = &tuple {
                frame.push((t.name.clone(), extents.clone(), vars.clone()));
            }
        }
        Ok(())
    }

    /// `{a, b}` of identifiers.
    fn brace_idents(&mut self) -> PResult<Vec<Ident>> {
        let (_, close) = self.expect_open(Delim::Brace, "to list the names")?;
        self.comma_list(close, "the name list", |p| p.expect_ident("a name"))
    }

    /// The bound of a `with` name, innermost first.
    /// The bound of a `with` name, innermost first, and the element names when it names a
    /// tuple of them.
    pub(crate) fn with_bound(&self, name: &str) -> Option<(Vec<ExprId>, Vec<Ident>)> {
        self.with_bounds.iter().rev().find_map(|f| {
            f.iter()
                .find(|(n, _, _)| n == name)
                .map(|(_, e, elems)| (e.clone(), elems.clone()))
        })
    }

    /// `wait a, b;` → one `wait` per operand (sugar). `trigger a, b;` likewise; `trigger e
    /// after f1, f2;` with more than one future (or a non-name) is an extension statement.
    pub(crate) fn event_list_stmt(&mut self, out: &mut Block) -> PResult<()> {
        let first = self.pos;
        let is_wait = self.is_kw("wait");
        self.bump();
        // `trigger.cluster e;`: the arrival goes to `e` in every block of the cluster.
        let cluster = !is_wait && self.eat_op(".").is_some();
        if cluster {
            let scope = self.expect_ident("`cluster` after `trigger.`")?;
            if scope.name != "cluster" {
                return Err(self.error(
                    crate::diag::Diagnostic::new(
                        codes::EXPECTED,
                        scope.span,
                        format!("unknown scope `.{}` on `trigger`", scope.name),
                    )
                    .with_help("write `trigger e;` or `trigger.cluster e;`"),
                ));
            }
        }
        let mut events = vec![self.expr()?];
        while self.eat_op(",").is_some() {
            events.push(self.expr()?);
        }
        let mut after: Vec<ExprId> = Vec::new();
        if !is_wait && self.eat_kw("after").is_some() {
            after.push(self.expr()?);
            while self.eat_op(",").is_some() {
                after.push(self.expr()?);
            }
        }
        self.expect_semi(if is_wait { "`wait`" } else { "`trigger`" })?;
        let span = self.span_from(first);
        if is_wait {
            for event in events {
                out.push(self.add_stmt(Stmt::Wait { event }, span));
            }
            return Ok(());
        }
        let single_name = match after.as_slice() {
            [] => Some(None),
            [one] => match &self.exprs[*one] {
                crate::ir::Expr::Name(n) => {
                    Some(Some(Ident::new(n.clone(), self.exprs.get_span(*one))))
                }
                _ => None,
            },
            _ => None,
        };
        for event in events {
            let s = match &single_name {
                Some(a) => Stmt::Trigger {
                    event,
                    after: a.clone(),
                },
                None => Stmt::Ext(ExtStmt::TriggerAfter {
                    event,
                    after: after.clone(),
                }),
            };
            let id = self.add_stmt(s, span);
            if cluster {
                self.cluster_triggers.push(id);
            }
            out.push(id);
        }
        Ok(())
    }

    /// `[f =] dma.copy[.async][.mods] src => dst;` when it is not the core plain form: a
    /// bound future or extra modifiers. The cursor is at `dma`.
    pub(crate) fn dma_future(&mut self, first: usize, bind: Option<Ident>) -> PResult<StmtId> {
        self.bump();
        self.expect_op(".", "after `dma`")?;
        let op = self.expect_ident("`copy` after `dma.`")?;
        if !DMA_EXT_OPS.contains(&op.name.as_str()) {
            let msg = format!("unknown statement `dma.{}`", op.name);
            let help = match super::suggest::nearest(&op.name, DMA_ALL_OPS) {
                Some(o) => format!("did you mean `dma.{o}`?"),
                None => format!(
                    "`dma` operations are {}",
                    super::suggest::one_of(DMA_ALL_OPS)
                ),
            };
            return Err(
                self.error(Diagnostic::new(codes::UNKNOWN_STMT, op.span, msg).with_help(help))
            );
        }
        let mut modifiers = Vec::new();
        let mut is_async = false;
        if op.name != "copy" {
            let args = self.angle_args()?;
            modifiers.push((op.clone(), args));
        }
        while self.eat_op(".").is_some() {
            let m = self.expect_ident("a modifier")?;
            if m.name == "multicast" {
                let stmt = format!("dma.{}", op.name);
                return Err(self.error(super::cluster::multicast_not_tma(m.span, &stmt)));
            }
            if !DMA_MODIFIERS.contains(&m.name.as_str()) {
                let msg = format!("unknown modifier `.{}` on `dma.{}`", m.name, op.name);
                let help = format!(
                    "`dma.{}` accepts {}{}",
                    op.name,
                    super::suggest::one_of(DMA_MODIFIERS),
                    super::suggest::did_you_mean(&m.name, DMA_MODIFIERS)
                );
                return Err(
                    self.error(Diagnostic::new(codes::BAD_MODIFIER, m.span, msg).with_help(help))
                );
            }
            if m.name == "swiz" && !self.is_op("<") {
                return Err(self.unexpected_help(
                    codes::BAD_MODIFIER,
                    "`<` and the swizzle width after `.swiz`",
                    "write `.swiz<128>`",
                ));
            }
            let args = self.angle_args()?;
            if m.name == "async" {
                is_async = true;
            } else {
                modifiers.push((m, args));
            }
        }
        let src = self.copy_operand()?;
        self.expect_op("=>", "and the copy's destination")?;
        let dst = match self.peek_ident() {
            Some(w @ ("shared" | "local")) if self.punct_at(self.pos + 1, ';') => {
                let space =
                    crate::ir::MemSpace::from_name(w).unwrap_or(crate::ir::MemSpace::Shared);
                self.bump();
                CopyDst::Fresh(space)
            }
            _ => CopyDst::Expr(self.copy_operand()?),
        };
        let after = match self.eat_kw("after") {
            Some(_) => Some(self.expr()?),
            None => None,
        };
        self.expect_semi("the copy")?;
        let span = match &bind {
            Some(b) => b.span.join(self.span_from(first)),
            None => self.span_from(first),
        };
        if let (Some(b), CopyDst::Fresh(_)) = (&bind, &dst) {
            self.record_fresh_shape(&b.name, src);
        }
        // `.zfill`: every tessel copy from global memory reads zeros past the tensor's edge, so
        // it matters only where a source tile is smaller than its destination — a plain copy
        // (`Stmt::DmaCopy`'s `zfill`), or nothing for a fresh buffer of the source's shape.
        let zfill = modifiers
            .iter()
            .position(|(m, args)| m.name == "zfill" && args.is_empty());
        if let Some(i) = zfill
            && modifiers.len() == 1
            && after.is_none()
        {
            match (&bind, &dst) {
                (None, CopyDst::Expr(_)) => {
                    return Ok(self.add_stmt(
                        Stmt::DmaCopy {
                            is_async,
                            zfill: true,
                            src,
                            dst,
                        },
                        span,
                    ));
                }
                (Some(_), CopyDst::Fresh(_)) => {
                    modifiers.remove(i);
                }
                _ => {}
            }
        }
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::DmaFuture {
                tma: false,
                bind,
                is_async,
                modifiers,
                src,
                dst,
                after,
            }),
            span,
        ))
    }

    /// `f = dma.copy SRC => shared;` (or `=> local`), and `v = SRC;` naming a view: when the
    /// parser knows the shape of `SRC` — a whole tensor declared before, a
    /// `t.subspan(A, B, …).at(…)` tile, a `t.chunkat(…)` tile of a tensor of known shape
    /// indexed by bounded names, or `t.span_as(A, B, …)` — the name has that shape, so a later
    /// `[f.span]` in a declaration is spliced like a tensor's. Other sources are sized by the
    /// checker, and `[f.span]` stays as written.
    pub(crate) fn record_fresh_shape(&mut self, name: &str, src: ExprId) {
        match self.known_dims(src) {
            Some(dims) => self.shapes.push((name.to_string(), dims)),
            // A name bound again to a copy of unknown shape must not keep its old shape.
            None => self.shapes.retain(|(k, _)| k != name),
        }
    }

    /// The shape of view or tensor `src` where the parser knows it (see
    /// [`Self::record_fresh_shape`]).
    pub(crate) fn known_dims(&mut self, src: ExprId) -> Option<Vec<ExprId>> {
        match &self.exprs[src] {
            Expr::View {
                base,
                op: ViewOp::Chunkat,
                args,
            } => self.chunk_dims(*base, &args.clone()),
            Expr::View {
                op: ViewOp::SpanAs,
                args,
                ..
            } => Some(args.clone()),
            Expr::Name(n) => self
                .shapes
                .iter()
                .rev()
                .find(|(k, _)| k == n)
                .map(|(_, dims)| dims.clone()),
            Expr::View {
                base,
                op: ViewOp::At,
                ..
            } => match &self.exprs[*base] {
                Expr::View {
                    op: ViewOp::Subspan,
                    args,
                    ..
                } => Some(args.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The tile `t.chunkat(i, j, …)` picks, as the checker sizes it, when `t`'s shape is known
    /// and each index is `_` (the whole dimension `D`), or a bounded name or a composition of
    /// them of extent `E` (`D / E`; `T` when `E` is written `cdiv(D, T)`).
    fn chunk_dims(&mut self, base: ExprId, args: &[ExprId]) -> Option<Vec<ExprId>> {
        let Expr::Name(t) = &self.exprs[base] else {
            return None;
        };
        let dims = self
            .shapes
            .iter()
            .rev()
            .find(|(k, _)| k == t)
            .map(|(_, d)| d.clone())?;
        if dims.len() != args.len() {
            return None;
        }
        let mut out = Vec::new();
        for (&d, &a) in dims.iter().zip(args) {
            let span = self.exprs.get_span(a);
            if matches!(self.exprs[a], Expr::Wildcard) {
                out.push(self.copy_expr(d, span));
                continue;
            }
            let extents = self.index_extents(a)?;
            // `cdiv(D, T)` chunks of `D` are `T` long.
            if let [e] = extents.as_slice()
                && let Expr::Call { func, args } = &self.exprs[*e]
                && func.name == "cdiv"
                && args.len() == 2
                && self.same_expr(args[0], d)
            {
                let tile = args[1];
                out.push(self.copy_expr(tile, span));
                continue;
            }
            let mut chunks = self.copy_expr(extents[0], span);
            for &e in &extents[1..] {
                let rhs = self.copy_expr(e, span);
                chunks = self.add_expr(
                    Expr::Binary {
                        op: crate::ir::BinaryOp::Mul,
                        lhs: chunks,
                        rhs,
                    },
                    span,
                );
            }
            let dim = self.copy_expr(d, span);
            out.push(self.add_expr(
                Expr::Binary {
                    op: crate::ir::BinaryOp::Div,
                    lhs: dim,
                    rhs: chunks,
                },
                span,
            ));
        }
        Some(out)
    }

    /// Whether two expressions are written alike (names, literals and operators).
    fn same_expr(&self, a: ExprId, b: ExprId) -> bool {
        match (&self.exprs[a], &self.exprs[b]) {
            (Expr::Name(x), Expr::Name(y)) => x == y,
            (Expr::Int(x), Expr::Int(y)) => x == y,
            (
                Expr::Binary { op, lhs, rhs },
                Expr::Binary {
                    op: op2,
                    lhs: lhs2,
                    rhs: rhs2,
                },
            ) => op == op2 && self.same_expr(*lhs, *lhs2) && self.same_expr(*rhs, *rhs2),
            (
                Expr::Call { func, args },
                Expr::Call {
                    func: func2,
                    args: args2,
                },
            ) => {
                func.name == func2.name
                    && args.len() == args2.len()
                    && args.iter().zip(args2).all(|(x, y)| self.same_expr(*x, *y))
            }
            _ => false,
        }
    }

    /// The extents of the bounded names a `.chunkat` index is made of: one for a name (or
    /// a `with` name's first value), one per side of `a # b`.
    fn index_extents(&self, a: ExprId) -> Option<Vec<ExprId>> {
        match &self.exprs[a] {
            Expr::Name(n) => self.name_bound(n).map(|e| vec![e]),
            Expr::Compose { outer, inner } => {
                let mut v = self.index_extents(*outer)?;
                v.extend(self.index_extents(*inner)?);
                Some(v)
            }
            _ => self
                .bounded_values
                .iter()
                .find(|b| b.value == a)
                .map(|b| vec![b.bound]),
        }
    }

    /// `__asm__ [volatile] ("template" [: outputs [: inputs [: clobbers]]]);` — GNU extended
    /// assembly: adjacent template literals are joined, each operand is
    /// `[name] "constraint" (expr)`, each clobber a string.
    pub(crate) fn asm_stmt(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        let volatile = self.eat_kw("volatile").is_some();
        let (_, close) = self.expect_open(Delim::Paren, "and the assembly")?;
        let Some(mut template) = self.string_lit() else {
            return Err(self.unexpected_help(
                codes::BAD_CALL,
                "the assembly template string",
                "write `__asm__(\"nop;\");`",
            ));
        };
        while let Some(more) = self.string_lit() {
            template.push_str(&more);
        }
        // The `:` sections after the template: outputs, inputs, clobbers.
        let mut colons = Vec::new();
        let mut i = self.pos;
        while i < close {
            match self.kind_at(i) {
                Some(TokKind::Open(_)) => i = self.toks[i].partner,
                Some(TokKind::Punct { ch: ':', .. }) => colons.push(i),
                _ => {}
            }
            i += 1;
        }
        if colons.len() > 3 {
            let span = self.span(first, close);
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_CALL,
                    span,
                    "invalid `__asm__` syntax: more than three `:` sections",
                )
                .with_help("write `__asm__(\"tmpl\" : outputs : inputs : clobbers);`"),
            ));
        }
        if self.pos < close && colons.first() != Some(&self.pos) {
            return Err(self.unexpected_help(
                codes::BAD_CALL,
                "`:` or `)` after the assembly template",
                "write `__asm__(\"tmpl\" : outputs : inputs : clobbers);`",
            ));
        }
        let ends: Vec<usize> = colons.iter().skip(1).copied().chain([close]).collect();
        let mut sections: Vec<Vec<AsmOperand>> = Vec::new();
        let mut clobbers = Vec::new();
        for (k, &end) in ends.iter().enumerate() {
            self.bump(); // the section's `:`
            if k == 2 {
                while self.pos < end {
                    let Some(c) = self.string_lit() else {
                        return Err(self.unexpected_help(
                            codes::BAD_CALL,
                            "a clobber string",
                            "write the clobbers as strings: `: \"memory\"`",
                        ));
                    };
                    clobbers.push(c);
                    if self.pos < end {
                        self.expect_op(",", "between clobbers")?;
                    }
                }
            } else {
                sections.push(self.asm_operands(end)?);
            }
        }
        let mut sections = sections.into_iter();
        let outputs: Vec<AsmOperand> = sections.next().unwrap_or_default();
        let inputs: Vec<AsmOperand> = sections.next().unwrap_or_default();
        if let Some(bad) = asm_reference_error(&template, &outputs, &inputs) {
            return Err(self.error(
                Diagnostic::new(codes::BAD_CALL, self.span(first, close), bad)
                    .with_help("`%N` counts the outputs, then the inputs, from 0; `%[name]` names an operand written `[name] \"r\"(x)`"),
            ));
        }
        if let Some(o) = outputs
            .iter()
            .find(|o| !o.constraint.starts_with('=') && !o.constraint.starts_with('+'))
        {
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_CALL,
                    self.exprs.get_span(o.expr),
                    format!(
                        "an `__asm__` output's constraint starts with `=` or `+`, not `\"{}\"`",
                        o.constraint
                    ),
                )
                .with_help(
                    "write `\"=r\"(x)` for a result, `\"+r\"(x)` for a value read and rewritten",
                ),
            ));
        }
        self.pos = close + 1;
        self.expect_semi("`__asm__`")?;
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::Asm {
                volatile,
                template,
                outputs,
                inputs,
                clobbers,
            }),
            self.span_from(first),
        ))
    }

    /// The operands of one `__asm__` section, up to token `end`.
    fn asm_operands(&mut self, end: usize) -> PResult<Vec<AsmOperand>> {
        let mut out = Vec::new();
        while self.pos < end {
            let name = match self.open(Delim::Bracket) {
                Some((_, close)) => {
                    let n = self.expect_ident("the operand's name")?;
                    self.close(close, "after the operand's name");
                    Some(n)
                }
                None => None,
            };
            let Some(constraint) = self.string_lit() else {
                return Err(self.unexpected_help(
                    codes::BAD_CALL,
                    "an operand's constraint string",
                    "write an operand as `\"=r\"(x)` or `[name] \"r\"(x)`",
                ));
            };
            let (_, close) = self.expect_open(Delim::Paren, "and the operand")?;
            let expr = self.expr()?;
            self.close(close, "after the operand");
            out.push(AsmOperand {
                name,
                constraint,
                expr,
            });
            if self.pos < end {
                self.expect_op(",", "between operands")?;
            }
        }
        Ok(out)
    }

    /// `break;`, `continue;`, `yield;`
    /// `copy(dst, src);`, `reduce_max(dst, src, axis);` (and `reduce_sum`, `reduce_min`).
    pub(crate) fn frag_op_stmt(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        let name = self.expect_ident("a fragment operation")?;
        let op: &'static str = match name.name.as_str() {
            "copy" => "copy",
            "reduce_max" => "reduce_max",
            "reduce_sum" => "reduce_sum",
            "all_reduce_sum" => "all_reduce_sum",
            "all_reduce_max" => "all_reduce_max",
            "all_reduce_min" => "all_reduce_min",
            _ => "reduce_min",
        };
        let (_, close) = self.expect_open(Delim::Paren, "and the operands")?;
        let args = self.comma_list(close, "the operands", |p| p.expr())?;
        let want = match op {
            "copy" => 2,
            o if o.starts_with("all_") => 1,
            _ => 3,
        };
        if args.len() != want {
            let span = self.span_from(first);
            let help = match op {
                "copy" => "write `copy(dst, src);`".to_string(),
                o if o.starts_with("all_") => format!("write `{op}(v);`"),
                _ => format!("write `{op}(dst, src, axis);`"),
            };
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_CALL,
                    span,
                    format!("`{op}` takes {want} operands, found {}", args.len()),
                )
                .with_help(help),
            ));
        }
        self.expect_semi(&format!("`{op}`"))?;
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::FragOp { op, args }),
            self.span_from(first),
        ))
    }

    /// `swap(a, b);` (also `swap a, b;`): two futures exchange their buffers.
    pub(crate) fn swap_stmt(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        let names = if self.is_open(Delim::Paren) {
            let (_, close) = self.expect_open(Delim::Paren, "and the two futures")?;
            self.comma_list(close, "the futures", |p| p.expect_ident("a future"))?
        } else {
            let mut v = vec![self.expect_ident("a future")?];
            while self.eat_op(",").is_some() {
                v.push(self.expect_ident("a future")?);
            }
            v
        };
        let span = self.span_from(first);
        let [a, b] = <[Ident; 2]>::try_from(names).map_err(|n| {
            self.error(
                Diagnostic::new(
                    codes::BAD_CALL,
                    span,
                    format!("`swap` takes two futures, found {}", n.len()),
                )
                .with_help("write `swap(f0, f1);`"),
            )
        })?;
        self.expect_semi("`swap`")?;
        Ok(self.add_stmt(Stmt::Ext(ExtStmt::Swap { a, b }), self.span_from(first)))
    }

    /// `(lo:hi)` after a loop variable bounded by `bound`: the start and end of its loop, an
    /// omitted end is the bound and a negative literal counts from it (`(1:-1)`).
    pub(crate) fn loop_range(&mut self, bound: ExprId) -> PResult<(ExprId, ExprId)> {
        let (open, close) = self.expect_open(Delim::Paren, "and the loop range")?;
        let mut ends: Vec<Option<ExprId>> = vec![None];
        while self.pos < close {
            if self.eat_op(":").is_some() {
                ends.push(None);
                continue;
            }
            let e = self.expr()?;
            let last = ends.len() - 1;
            if ends[last].is_some() {
                break;
            }
            ends[last] = Some(e);
        }
        let span = self.span(open, close);
        let ok = self.pos == close && (ends.len() == 2 || (ends.len() == 3 && ends[2].is_none()));
        self.pos = close + 1;
        if !ok {
            return Err(self.error(
                Diagnostic::new(
                    codes::LOOP_RANGE,
                    span,
                    "a loop range is `(start:end)`, either end optional",
                )
                .with_help("write `foreach k(1:)` or `foreach k(0:-1)`; steps are not supported"),
            ));
        }
        let start = match ends[0] {
            Some(e) => self.from_bound(e, bound),
            None => self.add_expr(Expr::Int(0), span),
        };
        let end = match ends[1] {
            Some(e) => self.from_bound(e, bound),
            None => self.copy_expr(bound, span),
        };
        Ok((start, end))
    }

    /// `e`, or `bound - n` when `e` is a negative literal `-n`.
    fn from_bound(&mut self, e: ExprId, bound: ExprId) -> ExprId {
        let span = self.exprs.get_span(e);
        let n = match &self.exprs[e] {
            Expr::Int(v) if *v < 0 => v.wrapping_neg(),
            Expr::Unary {
                op: crate::ir::UnaryOp::Neg,
                expr,
            } => match self.exprs[*expr] {
                Expr::Int(v) => v,
                _ => return e,
            },
            _ => return e,
        };
        let lhs = self.copy_expr(bound, span);
        let rhs = self.add_expr(Expr::Int(n), span);
        self.add_expr(
            Expr::Binary {
                op: crate::ir::BinaryOp::Sub,
                lhs,
                rhs,
            },
            span,
        )
    }

    /// The bound of a single bounded name (a loop or parallel variable, or a `with` name of
    /// one extent).
    pub(crate) fn name_bound(&self, name: &str) -> Option<ExprId> {
        self.var_extents
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, e)| *e)
            .or_else(|| match self.with_bound(name) {
                Some((b, elems)) if b.len() == 1 && elems.is_empty() => Some(b[0]),
                _ => None,
            })
    }

    /// `k(n)` of a bounded name `k`: the value at position `n` of `k`'s bound, counted from
    /// its start when `n >= 0` (`k(0)` is the first value) and back from its end when `n < 0`
    /// (`k(-1)` is the last, `bound - 1`). The value keeps the bound, so a `.chunkat` index
    /// `k(n)` splits the dimension into `bound` chunks like `k` itself.
    pub(crate) fn bounded_value(&mut self, name: &Ident, first: usize) -> PResult<ExprId> {
        let bound = self.name_bound(&name.name).ok_or(Reported)?;
        let (_, close) = self.expect_open(Delim::Paren, "and the position")?;
        let lit = self.int_literal();
        let span = self.span(first, close);
        let n = match lit {
            Some(Ok((v, _))) if self.pos == close => v,
            _ => {
                self.pos = close + 1;
                return Err(self.error(
                    Diagnostic::new(
                        codes::LOOP_RANGE,
                        span,
                        format!(
                            "`{}(…)` takes an integer: a position in `{}`'s bound, counted back from its end when negative",
                            name.name, name.name
                        ),
                    )
                    .with_help(format!(
                        "write `{}(0)` for its first value and `{}(-1)` for its last",
                        name.name, name.name
                    )),
                ));
            }
        };
        self.pos = close + 1;
        let value = if n >= 0 {
            self.add_expr(Expr::Int(n), span)
        } else {
            let lhs = self.copy_expr(bound, span);
            let rhs = self.add_expr(Expr::Int(n.wrapping_neg()), span);
            self.add_expr(
                Expr::Binary {
                    op: crate::ir::BinaryOp::Sub,
                    lhs,
                    rhs,
                },
                span,
            )
        };
        self.bounded_values
            .push(crate::ir::BoundedValue { value, bound });
        Ok(value)
    }

    pub(crate) fn jump_stmt(&mut self, kind: &'static str) -> PResult<StmtId> {
        let first = self.bump();
        self.expect_semi(&format!("`{kind}`"))?;
        Ok(self.add_stmt(Stmt::Ext(ExtStmt::Jump { kind }), self.span_from(first)))
    }

    /// `<a, b>` after a modifier, if present.
    fn angle_args(&mut self) -> PResult<Vec<ExprId>> {
        let mut args = Vec::new();
        if self.eat_op("<").is_some() {
            loop {
                args.push(self.expr_no_gt()?);
                if self.eat_op(",").is_none() {
                    break;
                }
            }
            self.expect_op(">", "to close the modifier's arguments")?;
        }
        Ok(args)
    }

    /// `mma.scale acc, sl, sr;` (the cursor is at `mma`).
    pub(crate) fn mma_scale_acc(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        self.pos += 3;
        let acc = self.acc_ref("the accumulator to scale")?;
        self.expect_op(",", "after the accumulator")?;
        let lhs = self.expr()?;
        self.expect_op(",", "after the A-side scale")?;
        let rhs = self.expr()?;
        self.expect_semi("`mma.scale`")?;
        Ok(self.add_stmt(
            Stmt::Ext(ExtStmt::MmaScaleAcc { acc, lhs, rhs }),
            self.span_from(first),
        ))
    }

    /// `mma.fill acc, v;` (the cursor is at `mma`).
    pub(crate) fn mma_refill(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        self.pos += 3;
        let acc = self.acc_ref("the accumulator to fill")?;
        self.expect_op(",", "after the accumulator")?;
        let value = self.expr()?;
        self.expect_semi("`mma.fill`")?;
        let id = self.add_stmt(
            Stmt::Ext(ExtStmt::MmaRefill { acc, value }),
            self.span_from(first),
        );
        self.expand_dyn_acc(id)
    }
}

impl Parser {
    /// At `base [` of a shape derivation — `base` a named shape, a tensor or `t.span` — the
    /// dimensions of `base`, the cursor moved to the `[`.
    fn derivation_base(&mut self) -> Option<Vec<ExprId>> {
        let name = self.peek_ident()?.to_string();
        let span_field = self.punct_at(self.pos + 1, '.')
            && self.kw_at(self.pos + 2, "span")
            && self.open_at(self.pos + 3, Delim::Bracket);
        let direct = self.open_at(self.pos + 1, Delim::Bracket);
        if !span_field && !direct {
            return None;
        }
        let dims = self.shape_value_dims(&name).or_else(|| {
            self.shapes
                .iter()
                .rev()
                .find(|(k, _)| *k == name)
                .map(|(_, d)| d.clone())
        })?;
        self.pos += if span_field { 3 } else { 1 };
        Some(dims)
    }

    /// The dimensions of the named shape `name` in scope.
    pub(crate) fn shape_value_dims(&self, name: &str) -> Option<Vec<ExprId>> {
        self.shape_values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.clone())
    }

    /// `[mdspan[<N>]] name : shape;` where `shape` is `[d0, d1, …]`, another named shape, or
    /// `t.span` of a tensor: the name stands for those dimensions from here on (sugar: no
    /// statement is produced). `<N>` states the rank, checked here.
    pub(crate) fn shape_value(&mut self) -> PResult<()> {
        let mut rank = None;
        if self.eat_kw("mdspan").is_some() && self.eat_op("<").is_some() {
            let at = self.here();
            match self.int_literal() {
                Some(r) => rank = Some((r?.0, at)),
                None => {
                    return Err(self.unexpected(codes::EXPECTED, "the rank after `mdspan<`"));
                }
            }
            self.expect_op(">", "to close `mdspan<…>`")?;
        }
        let name = self.expect_ident("the shape's name")?;
        self.expect_op(":", "after the shape's name")?;
        let first = self.pos;
        let dims = if self.is_open(Delim::Bracket) {
            let dims = self.extents(true)?;
            self.splice_spans(dims)
        } else if let Some(base) = self.derivation_base() {
            // `sp : base [(1), (0) / 2];`: each entry over the dimensions `(i)` of `base`.
            let outer = self.derived_from.replace(base);
            let dims = self.extents(true);
            self.derived_from = outer;
            let dims = dims?;
            self.splice_spans(dims)
        } else {
            let e = self.expr()?;
            let dims = match &self.exprs[e] {
                // `sp : t.span / 2;`: shape arithmetic, per dimension.
                Expr::Binary { .. } | Expr::Unary { .. } => match self.shape_arithmetic(e) {
                    Some(dims) => Some(dims?),
                    None => None,
                },
                Expr::Name(n) => self.shape_value_dims(n),
                Expr::Field { base, field } if field.name == "span" => match &self.exprs[*base] {
                    Expr::Name(n) => self
                        .shapes
                        .iter()
                        .rev()
                        .find(|(k, _)| k == n)
                        .map(|(_, d)| d.clone()),
                    _ => None,
                },
                _ => None,
            };
            match dims {
                Some(d) => d,
                None => {
                    let span = self.span_from(first);
                    return Err(self.error(
                        Diagnostic::new(
                            codes::SHAPE_VALUE,
                            span,
                            format!(
                                "the value of `{}` is not a shape tessel can name",
                                name.name
                            ),
                        )
                        .with_help(
                            "write the dimensions `[7, 8]`, another named shape, or `t.span`",
                        ),
                    ));
                }
            }
        };
        if let Some((want, at)) = rank
            && want != dims.len() as i64
        {
            return Err(self.error(
                Diagnostic::new(
                    codes::SHAPE_VALUE,
                    at,
                    format!(
                        "`mdspan<{want}>` but the shape `{}` has {} dimension{}",
                        name.name,
                        dims.len(),
                        if dims.len() == 1 { "" } else { "s" }
                    ),
                )
                .with_help("make the rank match the dimensions"),
            ));
        }
        self.expect_semi("the shape")?;
        self.shape_values.push((name.name.clone(), dims.clone()));
        self.shapes.push((name.name, dims));
        Ok(())
    }
}

impl Parser {
    /// A named shape, or a tensor's `.span`, stands for its dimensions only as a whole entry
    /// of a shape list (`[sp]`, `[t.span, 4]`) or in element-wise shape arithmetic
    /// (`shape_ops.rs`); anywhere else inside an entry (`[min(t.span, 4)]`) it is not supported.
    pub(crate) fn no_shape_arithmetic(&mut self, e: ExprId) -> PResult<()> {
        let whole = |p: &Self, x: ExprId| match &p.exprs[x] {
            Expr::Field { field, .. } => field.name == "span",
            Expr::Name(n) => p.shape_value_dims(n).is_some(),
            _ => false,
        };
        if matches!(&self.exprs[e], Expr::Name(_)) || whole(self, e) {
            return Ok(());
        }
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            if whole(self, x) {
                let span = self.exprs.get_span(e);
                let msg = "arithmetic on a whole shape is not supported".to_string();
                return Err(
                    self.error(Diagnostic::new(codes::SHAPE_VALUE, span, msg).with_help(
                        "write each dimension, e.g. `[t.span(0) / 2, t.span(1)]` or `[sp(0) + 1]`",
                    )),
                );
            }
            match &self.exprs[x] {
                Expr::Unary { expr, .. } => stack.push(*expr),
                Expr::Binary { lhs, rhs, .. } => stack.extend([*lhs, *rhs]),
                Expr::Compose { outer, inner } => stack.extend([*outer, *inner]),
                Expr::Call { args, .. } => stack.extend(args.iter().copied()),
                Expr::Index { base, index } => stack.extend([*base, *index]),
                Expr::View { base, args, .. } => {
                    stack.push(*base);
                    stack.extend(args.iter().copied());
                }
                Expr::Field { base, .. } => stack.push(*base),
                _ => {}
            }
        }
        Ok(())
    }
}

impl Parser {
    /// `ituple[<N>] name = value;`: an integer tuple binding, the typed spelling of
    /// `name = value;` (a `let`); `<N>` states how many elements a `{…}` value has.
    pub(crate) fn ituple_decl(&mut self, out: &mut Block) -> PResult<()> {
        let first = self.bump();
        let mut count = None;
        if self.eat_op("<").is_some() {
            let at = self.here();
            match self.int_literal() {
                Some(r) => count = Some((r?.0, at)),
                None => return Err(self.unexpected(codes::EXPECTED, "the size after `ituple<`")),
            }
            self.expect_op(">", "to close `ituple<…>`")?;
        }
        let name = self.expect_ident("the i-tuple's name")?;
        self.expect_op("=", "and the i-tuple's value")?;
        let value = self.expr()?;
        self.expect_semi("the i-tuple")?;
        if let Some((n, at)) = count
            && let Expr::Call { func, args } = &self.exprs[value]
            && func.name == "ituple"
            && args.len() as i64 != n
        {
            let got = args.len();
            return Err(self.error(
                Diagnostic::new(
                    codes::COUNT,
                    at,
                    format!(
                        "`ituple<{n}>` but the value has {got} element{}",
                        if got == 1 { "" } else { "s" }
                    ),
                )
                .with_help("make the size match the value"),
            ));
        }
        self.bind(&name.name);
        let span = self.span_from(first);
        out.push(self.add_stmt(Stmt::Let { name, value }, span));
        Ok(())
    }
}

/// What is wrong with the operand references of an `__asm__` template (`%N` past the last
/// operand, `%[name]` of no operand), if anything.
fn asm_reference_error(
    template: &str,
    outputs: &[AsmOperand],
    inputs: &[AsmOperand],
) -> Option<String> {
    let count = outputs.len() + inputs.len();
    let named = |n: &str| {
        outputs
            .iter()
            .chain(inputs)
            .any(|o| o.name.as_ref().is_some_and(|x| x.name == n))
    };
    let b = template.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        match b.get(i + 1) {
            Some(b'%') => i += 2,
            Some(b'[') => {
                let end = template[i + 2..].find(']')? + i + 2;
                let n = &template[i + 2..end];
                if !named(n) {
                    return Some(format!("`%[{n}]` names no operand of this `__asm__`"));
                }
                i = end + 1;
            }
            Some(d) if d.is_ascii_digit() => {
                let digits: String = template[i + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                if digits.parse::<usize>().map_or(true, |k| k >= count) {
                    return Some(format!(
                        "`%{digits}` refers past the last of this `__asm__`'s {count} operands"
                    ));
                }
                i += 1 + digits.len();
            }
            _ => i += 1,
        }
    }
    None
}
