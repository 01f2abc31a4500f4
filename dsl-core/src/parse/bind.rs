//! Statements that bind or store names: tensor, event and scalar declarations, lets and
//! assignments (including the bound forms `mc = mma.fill…`, `ma = mma.load…` and
//! `f = tma.load.async…`, which `ops.rs` parses after the `=`).
//!
//! `name = expr;` is a [`Stmt::Let`] when `name` is a plain identifier not bound in an
//! enclosing scope, and a [`Stmt::Assign`] otherwise.

use super::codes;
use super::cursor::{PResult, Parser, Reported};
use super::lexer::Delim;
use super::stmt::{DTYPES, KEYWORDS};
use super::suggest::{did_you_mean, one_of};
use crate::diag::Diagnostic;
use crate::ir::{AssignOp, Block, DType, Declarator, Expr, ExprId, Ident, MemSpace, Stmt, StmtId};
use crate::span::Span;

impl Parser {
    /// An element type name.
    pub(crate) fn dtype(&mut self) -> PResult<(DType, Span)> {
        let Some(word) = self.peek_ident().map(str::to_string) else {
            return Err(self.unexpected_help(
                codes::UNKNOWN_DTYPE,
                "an element type",
                "write `f16`, `bf16` or `f32`",
            ));
        };
        let span = self.here();
        match DType::from_name(&word) {
            Some(d) => {
                self.bump();
                Ok((d, span))
            }
            None => {
                let msg = format!("unknown element type `{word}`");
                let help = format!(
                    "element types are {}{}",
                    one_of(&DTYPES[..4]),
                    did_you_mean(&word, DTYPES)
                );
                Err(self.error(Diagnostic::new(codes::UNKNOWN_DTYPE, span, msg).with_help(help)))
            }
        }
    }

    /// `name`, `name[count]` or `name[A][B]…` (an array of several dimensions: `A * B`
    /// elements, `array.rs`), comma-separated, up to `;`.
    fn declarators(&mut self) -> PResult<Vec<Declarator>> {
        let mut out = Vec::new();
        loop {
            out.push(self.declarator()?);
            if self.eat_op(",").is_none() {
                return Ok(out);
            }
        }
    }

    /// One declarator of `declarators`.
    fn declarator(&mut self) -> PResult<Declarator> {
        let name = self.expect_ident("a name to declare")?;
        let mut dims = Vec::new();
        while let Some((_, close)) = self.open(Delim::Bracket) {
            let c = self.expr();
            dims.push(self.finish_group(close, "after the array count", c)?);
        }
        let count = self.array_count(&name.name, &dims);
        self.bind(&name.name);
        Ok(Declarator { name, count })
    }

    /// After `shared event`: `full[S], empty[S] = ready;`. `= ready` belongs to the declarator
    /// before it, as an initializer does in C: `empty` starts signalled, `full` does not. Runs
    /// of declarators that differ in it become declarations of their own, in order (all but
    /// the last through `pre_stmts`).
    fn event_decl(
        &mut self,
        first: usize,
        space: MemSpace,
        participants: Option<ExprId>,
    ) -> PResult<StmtId> {
        let mut runs: Vec<(Vec<Declarator>, bool)> = Vec::new();
        loop {
            let one = self.declarator()?;
            let ready = self.is_op("=") && self.kw_at(self.pos + 1, "ready");
            if ready {
                self.pos += 2;
            }
            match runs.last_mut() {
                Some((names, r)) if *r == ready => names.push(one),
                _ => runs.push((vec![one], ready)),
            }
            if self.eat_op(",").is_none() {
                break;
            }
        }
        self.expect_semi("the event declaration")?;
        let span = self.span_from(first);
        let mut last = None;
        for (names, ready) in runs {
            if let Some(s) = last.take() {
                self.pre_stmts.push(s);
            }
            let s = self.add_stmt(Stmt::EventDecl { space, names }, span);
            if ready {
                self.decl_ext.push(crate::ir::DeclExt::Ready { decl: s });
            }
            if let Some(n) = participants {
                self.event_participants.push((s, n));
            }
            last = Some(s);
        }
        last.ok_or(Reported)
    }

    /// `shared f16 [A, B] x, y[S];` or `shared event e[S];`.
    pub(crate) fn decl(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        let word = self.peek_ident().unwrap_or_default().to_string();
        let frag = word == "frag";
        let space = match MemSpace::from_name(&word) {
            Some(space) => {
                self.bump();
                space
            }
            None if frag => {
                self.bump();
                MemSpace::Local
            }
            None if DType::from_name(&word).is_some() && self.parallel_depth == 0 => {
                MemSpace::Global
            }
            None if DType::from_name(&word).is_some() => MemSpace::Local,
            None => return Err(Reported),
        };
        if self.eat_kw("event").is_some() {
            // `event<N>`: how many threads take part (a hint checked against the usage).
            let participants = if self.punct_at(self.pos, '<') {
                self.bump();
                let n = self.expr_no_gt()?;
                self.expect_op(">", "to close `event<…>`")?;
                Some(n)
            } else {
                None
            };
            return self.event_decl(first, space, participants);
        }
        let (dtype, dtype_span) = self.dtype()?;
        if !self.is_open(Delim::Bracket) {
            return Err(self.unexpected_help(
                codes::EXPECTED,
                "`[` and the tensor shape",
                &format!("write `{word} {dtype} [M, N] name;`"),
            ));
        }
        let shape = self.extents(true)?;
        let shape = self.splice_spans(shape);
        let names = self.declarators()?;
        let init = match self.open(Delim::Brace) {
            Some((_, close)) => {
                let v = self.expr();
                Some(self.finish_group(close, "to end the initializer", v)?)
            }
            None => None,
        };
        self.expect_semi("the declaration")?;
        for d in &names {
            self.shapes.push((d.name.name.clone(), shape.clone()));
            self.buffer_arrays.retain(|n| *n != d.name.name);
            if d.count.is_some() {
                self.buffer_arrays.push(d.name.name.clone());
            }
        }
        let s = self.add_stmt(
            Stmt::TensorDecl {
                space,
                dtype,
                dtype_span,
                shape,
                names,
            },
            self.span_from(first),
        );
        if let Some(value) = init {
            self.decl_ext
                .push(crate::ir::DeclExt::Init { decl: s, value });
        }
        if frag {
            self.decl_ext.push(crate::ir::DeclExt::Frag { decl: s });
            if let Stmt::TensorDecl { names, .. } = &self.stmts[s] {
                let names: Vec<String> = names.iter().map(|d| d.name.name.clone()).collect();
                self.frag_tiles.extend(names);
            }
        }
        Ok(s)
    }

    /// Whether `e` uses only literals and names with a compile-time value.
    fn only_constants(&self, e: ExprId) -> bool {
        match &self.exprs[e] {
            Expr::Int(_) => true,
            Expr::Name(n) => self.const_names.contains(n),
            Expr::Unary { expr, .. } => self.only_constants(*expr),
            Expr::Binary { lhs, rhs, .. } => self.only_constants(*lhs) && self.only_constants(*rhs),
            Expr::Call { func, args } => {
                matches!(func.name.as_str(), "cdiv" | "min" | "max")
                    && args.iter().all(|&a| self.only_constants(a))
            }
            _ => false,
        }
    }

    /// `[x.span]` (also among other dimensions) → `x`'s own dimensions, when `x` is a
    /// parameter or a tensor declared before: the shape is the same IR either way.
    pub(crate) fn splice_spans(&mut self, shape: Vec<ExprId>) -> Vec<ExprId> {
        let mut out = Vec::new();
        for e in shape {
            let spliced = match &self.exprs[e] {
                Expr::Name(n) => self.shape_value_dims(n),
                Expr::Field { base, field } if field.name == "span" => {
                    let base = *base;
                    self.known_dims(base)
                }
                // `[x.span(d)]`: the `d`-th dimension of `x` (a literal `d` within its rank).
                Expr::View {
                    base,
                    op: crate::ir::ViewOp::SpanOf,
                    args,
                } => match (&self.exprs[*base], args.as_slice()) {
                    (Expr::Name(n), [d]) => match &self.exprs[*d] {
                        Expr::Int(d) => self
                            .shapes
                            .iter()
                            .rev()
                            .find(|(k, _)| k == n)
                            .and_then(|(_, dims)| {
                                usize::try_from(*d).ok().and_then(|d| dims.get(d))
                            })
                            .map(|&dim| vec![dim]),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            };
            match spliced {
                Some(dims) => out.extend(dims),
                None => out.push(e),
            }
        }
        out
    }

    /// `f16 a = 0.0f, b;` — one [`Stmt::ScalarDecl`] per name.
    pub(crate) fn scalar_decl(&mut self, out: &mut Block) -> PResult<()> {
        self.scalar_decl_of(out, false)
    }

    /// A scalar declaration; a `mutable` one (`mutable int n = 0;`) stays a scalar even when
    /// its initial value is a constant, since later statements update it.
    pub(crate) fn scalar_decl_of(&mut self, out: &mut Block, mutable: bool) -> PResult<()> {
        let mut first = self.pos;
        // `int` and `bool` (control values) are immutable unless `mutable`; data types are not.
        let control = matches!(self.peek_ident(), Some("int" | "bool"));
        let (dtype, _) = self.dtype()?;
        loop {
            let name = self.expect_ident("a name to declare")?;
            if self.is_open(Delim::Bracket) {
                let span = self.here();
                return Err(self.error(
                    Diagnostic::new(
                        codes::BAD_SPACE,
                        span,
                        "an array declaration needs a memory space",
                    )
                    .with_help(format!("write `local {dtype} [N] {};`", name.name)),
                ));
            }
            let init = match self.eat_op("=") {
                Some(_) => Some(self.expr()?),
                None => None,
            };
            self.bind(&name.name);
            // An integer with a compile-time value outside every `parallel`: a constant of
            // the module (so it can size tiles and levels), like a `const` in the header.
            if let (DType::I32, Some(value), 0) = (dtype, init, self.parallel_depth)
                && !mutable
                && control
                && self.body_depth == 1
                && self.only_constants(value)
            {
                self.const_names.push(name.name.clone());
                self.body_constants
                    .push(crate::ir::Constant { name, value });
            } else {
                out.push(self.add_stmt(
                    Stmt::ScalarDecl {
                        dtype,
                        name,
                        init,
                        mutable: mutable || !control,
                    },
                    self.span_from(first),
                ));
            }
            if self.eat_op(",").is_none() {
                break;
            }
            first = self.pos;
        }
        self.expect_semi("the declaration")
    }

    /// `target op value;`, `name = value;` (a let when `name` is new), or a bound
    /// `name = mma.fill/mma.load/tma.load …;`.
    pub(crate) fn assign_or_let(&mut self, first: usize, out: &mut Block) -> PResult<()> {
        let word = self.peek_ident().unwrap_or_default().to_string();
        let continues = self.open_at(self.pos + 1, Delim::Bracket)
            || self.step_op(self.pos + 1).is_some()
            || self.rem_assign_at(self.pos + 1)
            || self
                .op_at(self.pos + 1)
                .is_some_and(|(o, _)| matches!(o.as_str(), "=" | "+=" | "-=" | "*=" | "/=" | "."));
        if !continues {
            let span = self.here();
            let msg = format!("unknown statement `{word}`");
            let help = match super::suggest::nearest(&word, KEYWORDS) {
                Some(k) => format!("did you mean `{k}`?"),
                None => "statements start with a keyword (`parallel`, `foreach`, `if`, …) or assign: `x = e;`".into(),
            };
            return Err(self.error(Diagnostic::new(codes::UNKNOWN_STMT, span, msg).with_help(help)));
        }
        let target = self.postfix()?;
        // `x++;` / `x--;`: `x += 1;` / `x -= 1;`.
        if let Some(add) = self.step_op(self.pos) {
            self.pos += 2;
            return self.step_stmt(first, target, add, out);
        }
        // `x %= e;`: `x = x % (e);` (the target is a name or an element: reading it again is
        // reading the same value).
        if self.rem_assign_at(self.pos) {
            self.pos += 2;
            self.check_target(target)?;
            let rhs = self.expr()?;
            self.expect_semi("the assignment")?;
            let span = self.span_from(first);
            let lhs = self.copy_expr(target, span);
            let value = self.add_expr(
                Expr::Binary {
                    op: crate::ir::BinaryOp::Rem,
                    lhs,
                    rhs,
                },
                span,
            );
            out.push(self.add_stmt(
                Stmt::Assign {
                    target,
                    op: AssignOp::Set,
                    value,
                },
                span,
            ));
            return Ok(());
        }
        let Some(op) = self.assign_op() else {
            return Err(self.unexpected_help(
                codes::EXPECTED,
                "`=`, `+=`, `-=`, `*=` or `/=` after the assignment target",
                "statements that compute a value must store it: `x = e;`",
            ));
        };
        let plain = match &self.exprs[target] {
            Expr::Name(n) if self.pos == first + 2 => {
                Some(Ident::new(n.clone(), self.span(first, first)))
            }
            _ => None,
        };
        // `f = dma.any;` / `f = tma.any;`: a placeholder future.
        if op == AssignOp::Set
            && (self.is_kw("dma") || self.is_kw("tma"))
            && self.punct_at(self.pos + 1, '.')
            && self.kw_at(self.pos + 2, "any")
            && self.punct_at(self.pos + 3, ';')
            && let Some(name) = &plain
        {
            let tma = self.is_kw("tma");
            self.pos += 4;
            let s = self.add_stmt(
                Stmt::Ext(crate::ir::ExtStmt::AnyFuture {
                    tma,
                    bind: name.clone(),
                }),
                self.span_from(first),
            );
            self.bind(&name.name);
            out.push(s);
            return Ok(());
        }
        if op == AssignOp::Set
            && (self.is_kw("mma") || self.is_kw("tma"))
            && self.punct_at(self.pos + 1, '.')
        {
            let Some(name) = plain else {
                let span = self.exprs.get_span(target);
                return Err(self.error(
                    Diagnostic::new(
                        codes::BAD_TARGET,
                        span,
                        "`mma`/`tma` results bind a plain name",
                    )
                    .with_help(
                        "write `mc = mma.fill.f16 0.0f;` or `f = tma.load.async src => dst;`",
                    ),
                ));
            };
            let s = if self.is_kw("mma") {
                self.mma_bound(first, name.clone())?
            } else {
                self.tma(Some(name.clone()))?
            };
            self.bind(&name.name);
            // The direct operands of `f = mma.<a>.<b>.async …` load just before it.
            out.append(&mut self.pre_stmts);
            out.push(s);
            return Ok(());
        }
        if op == AssignOp::Set
            && self.is_kw("dma")
            && ["copy", "pad", "transp", "any"]
                .iter()
                .any(|o| self.kw_at(self.pos + 2, o))
            && let Some(name) = plain
        {
            let s = self.dma_future(first, Some(name.clone()))?;
            self.bind(&name.name);
            out.push(s);
            return Ok(());
        }
        if let Some(ns @ ("dma" | "sync" | "wait" | "trigger")) = self.peek_ident() {
            let what = if self.punct_at(self.pos + 1, '.') {
                format!("`{ns}.…`")
            } else {
                format!("`{ns}`")
            };
            let span = self.here();
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_TARGET,
                    span,
                    format!("{what} is a statement and has no value"),
                )
                .with_help("write it as a statement of its own, without `name =`"),
            ));
        }
        let value = self.expr()?;
        self.expect_semi("the assignment")?;
        let span = self.span_from(first);
        // `b = s[1];` of an array of buffers `s`: `b` names that buffer, a view like those below.
        let buffer = matches!(&self.exprs[value], Expr::Index { base, .. }
            if matches!(&self.exprs[*base], Expr::Name(n) if self.buffer_arrays.contains(n)));
        if buffer {
            self.buffer_aliases.push(value);
        }
        // `v = t.span_as(6, 64);` (a view, not a value): `v` names that view from here on
        // (each use is the view's expression; views are pure). The `let` stays, so the view
        // is checked even when unused.
        if let Some(name) = &plain
            && op == AssignOp::Set
            && !self.is_bound(&name.name)
            && (buffer
                || crate::check::tile_pick(&self.exprs, value)
                || matches!(
                    &self.exprs[value],
                    Expr::View {
                        op: crate::ir::ViewOp::SpanAs
                            | crate::ir::ViewOp::Subspan
                            | crate::ir::ViewOp::Chunkat
                            | crate::ir::ViewOp::Sqz
                            | crate::ir::ViewOp::Step
                            | crate::ir::ViewOp::Transpose
                            | crate::ir::ViewOp::Window
                            | crate::ir::ViewOp::Strides
                            | crate::ir::ViewOp::From,
                        ..
                    }
                ))
        {
            self.view_aliases.push((name.name.clone(), value));
            if !buffer {
                self.record_fresh_shape(&name.name, value);
            }
            let span = self.span_from(first);
            out.push(self.add_stmt(
                Stmt::Let {
                    name: name.clone(),
                    value,
                },
                span,
            ));
            return Ok(());
        }
        let s = match plain {
            Some(name) if op == AssignOp::Set && !self.is_bound(&name.name) => {
                self.bind(&name.name);
                Stmt::Let { name, value }
            }
            _ => {
                self.check_target(target)?;
                Stmt::Assign { target, op, value }
            }
        };
        out.push(self.add_stmt(s, span));
        Ok(())
    }

    /// `++` (true) or `--` (false) written as one operator at token `i`.
    pub(crate) fn step_op(&self, i: usize) -> Option<bool> {
        let joint = matches!(
            self.kind_at(i),
            Some(super::lexer::TokKind::Punct { joint: true, .. })
        );
        if !joint {
            return None;
        }
        if self.punct_at(i, '+') && self.punct_at(i + 1, '+') {
            Some(true)
        } else if self.punct_at(i, '-') && self.punct_at(i + 1, '-') {
            Some(false)
        } else {
            None
        }
    }

    /// `%=` at token `i`.
    fn rem_assign_at(&self, i: usize) -> bool {
        matches!(
            self.kind_at(i),
            Some(super::lexer::TokKind::Punct {
                ch: '%',
                joint: true
            })
        ) && self.punct_at(i + 1, '=')
    }

    /// `x++;` / `++x;` (`add`) or `x--;` / `--x;`: `x += 1;` / `x -= 1;`; the cursor is past
    /// the operator and the target.
    pub(crate) fn step_stmt(
        &mut self,
        first: usize,
        target: ExprId,
        add: bool,
        out: &mut Block,
    ) -> PResult<()> {
        self.check_target(target)?;
        self.expect_semi(if add { "`++`" } else { "`--`" })?;
        let span = self.span_from(first);
        let value = self.add_expr(Expr::Int(1), span);
        let op = if add { AssignOp::Add } else { AssignOp::Sub };
        out.push(self.add_stmt(Stmt::Assign { target, op, value }, span));
        Ok(())
    }

    fn assign_op(&mut self) -> Option<AssignOp> {
        let (op, n) = self.op_at(self.pos)?;
        let a = match op.as_str() {
            "=" => AssignOp::Set,
            "+=" => AssignOp::Add,
            "-=" => AssignOp::Sub,
            "*=" => AssignOp::Mul,
            "/=" => AssignOp::Div,
            _ => return None,
        };
        self.pos += n;
        Some(a)
    }

    /// Assignable: a name, an element view `t.at(…)`, an indexed name `x[i]`.
    fn check_target(&mut self, target: ExprId) -> PResult<()> {
        match &self.exprs[target] {
            Expr::Name(_) | Expr::Index { .. } => Ok(()),
            Expr::View {
                op: crate::ir::ViewOp::At,
                ..
            } => Ok(()),
            _ => {
                let span = self.exprs.get_span(target);
                Err(self.error(
                    Diagnostic::new(codes::BAD_TARGET, span, "this cannot be assigned to")
                        .with_help(
                            "assign to a name, an element `t.at(i, j)` or an array element `x[i]`",
                        ),
                ))
            }
        }
    }
}
