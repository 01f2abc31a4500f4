//! Statements: blocks, the statement dispatcher and control structure (`parallel`,
//! `foreach`, `if`, `inthreads`). Declarations and assignments live in `bind.rs`; the copy,
//! `mma`, event, sync and `reduce` statements in `ops.rs`.
//!
//! Scopes: a body (braced block or single statement) is one scope. Names bound in an
//! enclosing scope — header names, parameters, declarations, earlier lets, loop and parallel
//! variables, mma fragments, bound TMA loads — make `name = e;` an assignment instead of a let.

use super::codes;
use super::cursor::{PResult, Parser, Reported};
use super::lexer::{Delim, TokKind};
use super::suggest::{did_you_mean, one_of};
use crate::diag::Diagnostic;
use crate::ir::{Block, DType, ExprId, Ident, Level, ParallelLevel, Stmt, StmtId};
use crate::span::Span;

/// Words that start a statement.
pub(crate) const KEYWORDS: &[&str] = &[
    "parallel",
    "foreach",
    "if",
    "dma",
    "tma",
    "mma",
    "wait",
    "trigger",
    "inthreads",
    "sync",
    "reduce",
    "shared",
    "local",
    "global",
];
const LEVELS: &[&str] = &["block", "group-4", "group", "thread"];
pub(crate) const DTYPES: &[&str] = &[
    "f16", "bf16", "f32", "int", "half", "float", "f8_e4m3", "f8_e5m2",
];

impl Parser {
    pub(crate) fn add_stmt(&mut self, s: Stmt, span: Span) -> StmtId {
        self.stmts.append(s, span)
    }

    /// A braced block (its own scope); the cursor is at `{`.
    pub(crate) fn brace_block(&mut self, context: &str) -> PResult<Block> {
        let (_, close) = self.expect_open(Delim::Brace, context)?;
        self.push_scope();
        self.body_depth += 1;
        let mut block = Vec::new();
        while self.pos < close {
            let before = self.pos;
            if self.stmt(&mut block).is_err() {
                self.recover_stmt();
                // An error inside a nested group may leave the cursor at its closing token.
                while self.pos < close && self.is_close() {
                    self.bump();
                }
            }
            if self.pos == before {
                self.skip_one();
            }
        }
        self.pop_scope();
        self.body_depth -= 1;
        self.close(close, "to end the block");
        Ok(block)
    }

    /// A loop/branch body: a braced block or a single statement, scoped with `binds`.
    pub(crate) fn body(&mut self, binds: &[Ident]) -> PResult<Block> {
        self.enter()?;
        self.push_scope();
        for b in binds {
            self.bind(&b.name);
        }
        let r = if self.is_open(Delim::Brace) {
            self.brace_block("to open the body")
        } else if self.at_end() || self.is_close() {
            Err(self.unexpected(codes::EXPECTED, "a body (`{ … }` or a statement)"))
        } else {
            let mut block = Vec::new();
            self.stmt(&mut block).map(|()| block)
        };
        self.pop_scope();
        self.leave();
        r
    }

    /// One statement (pushes zero or more statements to `out`), with the increments inside its
    /// expressions placed around it (`steps.rs`).
    pub(crate) fn stmt(&mut self, out: &mut Block) -> PResult<()> {
        let outer = std::mem::take(&mut self.steps);
        let (start, first_expr) = (out.len(), self.exprs.len());
        let r = self.stmt_one(out);
        let steps = std::mem::replace(&mut self.steps, outer);
        match r {
            Ok(()) if !steps.is_empty() => self.place_steps(out, start, first_expr, steps),
            r => r,
        }
    }

    fn stmt_one(&mut self, out: &mut Block) -> PResult<()> {
        let first = self.pos;
        if self.eat_op(";").is_some() {
            return Ok(());
        }
        // `[[launch_bounds(…)]]`, `[[schedule(…)]]`, `[[maxnreg(…)]]`: scheduling hints for the
        // statement that follows, which tessel's own choices replace; skipped.
        if self.is_open(Delim::Bracket) && self.open_at(self.pos + 1, Delim::Bracket) {
            return self.attributed(out);
        }
        // `++x;` / `--x;`: `x += 1;` / `x -= 1;`.
        if let Some(add) = self.step_op(self.pos) {
            self.pos += 2;
            let target = self.postfix()?;
            return self.step_stmt(first, target, add, out);
        }
        let Some(word) = self.peek_ident().map(str::to_string) else {
            if self.is_open(Delim::Brace) {
                let span = self.here();
                return Err(self.error(
                    Diagnostic::new(codes::EXPECTED, span, "expected a statement, found a bare block `{`")
                        .with_help("blocks belong to `parallel`, `foreach`, `if` or `inthreads`; remove the braces"),
                ));
            }
            return Err(self.unexpected(codes::EXPECTED, "a statement"));
        };
        // `sp : [7, 8];` / `mdspan<2> sp : [7, 8];`: a named shape (sugar).
        let shape_value = word == "mdspan"
            || (self.punct_at(self.pos + 1, ':') && !self.punct_at(self.pos + 2, ':'));
        if shape_value {
            return self.shape_value();
        }
        match word.as_str() {
            "ituple"
                if self.ident_at(self.pos + 1).is_some() || self.punct_at(self.pos + 1, '<') =>
            {
                return self.ituple_decl(out);
            }
            "with" => return self.with_stmt(out),
            "wait" | "trigger" => return self.event_list_stmt(out),
            "mutable" if self.ident_at(self.pos + 1).is_some() => {
                self.bump();
                return self.scalar_decl_of(out, true);
            }
            _ => {}
        }
        let compound = match word.as_str() {
            "while" => Some(self.while_stmt()),
            "parallel" => Some(self.parallel()),
            "foreach" | "apply" => Some(self.foreach()),
            "if" => Some(self.if_stmt()),
            "inthreads" => Some(self.inthreads()),
            _ => None,
        };
        if let Some(r) = compound {
            return match r {
                Ok(s) => {
                    self.steps_in_head()?;
                    out.push(s);
                    Ok(())
                }
                Err(Reported) if self.salvage_body() => Ok(()),
                Err(Reported) => Err(Reported),
            };
        }
        let sync_kind = (word == "sync" && self.punct_at(self.pos + 1, '.'))
            .then(|| {
                self.ident_at(self.pos + 2)
                    .and_then(crate::ir::SyncKind::from_name)
            })
            .flatten();
        let s = match word.as_str() {
            // `__atomic_add(x.at(i), 1);`: a built-in called for its effect.
            w if crate::ir::builtin_arity(w).is_some()
                && self.open_at(self.pos + 1, Delim::Paren) =>
            {
                self.builtin_stmt()?
            }
            "return" => self.return_stmt()?,
            "__asm__" | "asm"
                if self.open_at(self.pos + 1, Delim::Paren)
                    || self.kw_at(self.pos + 1, "volatile") =>
            {
                self.asm_stmt()?
            }
            "break" if self.punct_at(self.pos + 1, ';') => self.jump_stmt("break")?,
            "continue" if self.punct_at(self.pos + 1, ';') => self.jump_stmt("continue")?,
            "yield" if self.punct_at(self.pos + 1, ';') => self.jump_stmt("yield")?,
            "copy" | "reduce_max" | "reduce_sum" | "reduce_min" | "all_reduce_sum"
            | "all_reduce_max" | "all_reduce_min"
                if self.open_at(self.pos + 1, Delim::Paren) =>
            {
                self.frag_op_stmt()?
            }
            "swap"
                if self.open_at(self.pos + 1, Delim::Paren)
                    || (self.ident_at(self.pos + 1).is_some()
                        && self.punct_at(self.pos + 2, ',')) =>
            {
                self.swap_stmt()?
            }
            "call" if self.ident_at(self.pos + 1).is_some() => self.call_stmt()?,
            "println" | "print" if self.open_at(self.pos + 1, Delim::Paren) => {
                self.println_stmt()?
            }
            "assert" if self.open_at(self.pos + 1, Delim::Paren) => self.assert_stmt()?,
            "sync" if sync_kind.is_some() => {
                self.sync_ext(sync_kind.unwrap_or(crate::ir::SyncKind::Barrier))?
            }
            "dma" if !self.core_dma() => self.dma_future(first, None)?,
            "mma"
                if self.kw_at(self.pos + 2, "fill")
                    && self.ident_at(self.pos + 3).is_some()
                    && (self.punct_at(self.pos + 4, ',') || self.at_acc_element(self.pos + 3)) =>
            {
                self.mma_refill()?
            }
            "mma" if self.kw_at(self.pos + 2, "scale") && self.ident_at(self.pos + 3).is_some() => {
                self.mma_scale_acc()?
            }
            "dma" => self.dma()?,
            "tma" => self.tma(None)?,
            "mma" => self.mma()?,
            "wait" | "trigger" => self.event_stmt()?,
            "sync" => self.sync()?,
            "reduce" => self.reduce()?,
            "shared" | "local" | "global" => self.decl()?,
            "frag" if self.at_frag_array() => self.frag_array()?,
            "frag" if self.ident_at(self.pos + 1).is_some() => self.decl()?,
            "else" => {
                let span = self.here();
                return Err(self.error(
                    Diagnostic::new(codes::EXPECTED, span, "`else` without a preceding `if`")
                        .with_help("put `else` right after the `if` body"),
                ));
            }
            "event" => {
                let span = self.here();
                return Err(self.error(
                    Diagnostic::new(
                        codes::BAD_SPACE,
                        span,
                        "an event declaration needs a memory space",
                    )
                    .with_help("write `shared event name;`"),
                ));
            }
            w if DType::from_name(w).is_some() && self.ident_at(self.pos + 1).is_some() => {
                return self.scalar_decl(out);
            }
            // No memory space: `global` outside any `parallel` (an output of the launch),
            // `local` inside one.
            w if DType::from_name(w).is_some() && self.open_at(self.pos + 1, Delim::Bracket) => {
                self.decl()?
            }
            _ => return self.assign_or_let(first, out),
        };
        out.append(&mut self.pre_stmts);
        out.push(s);
        Ok(())
    }

    /// After an error in the head of a compound statement: skip to its `{ … }` body and
    /// parse that (for its diagnostics; the statement itself is dropped). False when there is
    /// no body before the next `;` or closing delimiter (the caller then recovers as usual).
    fn salvage_body(&mut self) -> bool {
        if self.too_deep {
            return false;
        }
        while !self.at_end() && !self.is_close() && !self.is_op(";") && !self.at_body() {
            self.skip_one();
        }
        if !self.at_body() || self.enter().is_err() {
            return false;
        }
        let _ = self.brace_block("to open the body");
        self.leave();
        true
    }

    /// `[[name(args)]] statement`: the attribute is kept beside the statement it annotates.
    fn attributed(&mut self, out: &mut Block) -> PResult<()> {
        let first = self.pos;
        let outer_close = self.toks[self.pos].partner;
        self.pos += 2;
        let name = self.expect_ident("an attribute name after `[[`")?;
        let args = match self.open(Delim::Paren) {
            Some((_, close)) => {
                // `[[schedule(k_tiles(3, 2))]]`: argument calls name the attribute's own terms.
                self.any_call = true;
                let r = self.comma_list(close, "the attribute's arguments", |p| p.expr());
                self.any_call = false;
                r?
            }
            None => Vec::new(),
        };
        if self.pos + 1 != outer_close {
            return Err(self.unexpected(codes::EXPECTED, "`]]` to close the attribute"));
        }
        self.pos = outer_close + 1;
        let span = self.span(first, outer_close);
        let before = out.len();
        self.stmt(out)?;
        // A statement that desugars into several (`mma` on shared operands: the operand loads,
        // then the `mma`) ends with the one the attribute is about.
        if let Some(&target) = out.get(before..).and_then(|s| s.last()) {
            self.attributes.push(crate::ir::Attribute {
                name,
                args,
                target,
                span,
            });
        }
        Ok(())
    }

    /// Whether the `dma` statement at the cursor is the core form: `dma.copy[.async] …` or
    /// `dma.wait`, with no other modifier.
    fn core_dma(&self) -> bool {
        let op = self.ident_at(self.pos + 2);
        if op == Some("wait") {
            return true;
        }
        if op != Some("copy") {
            return false;
        }
        let mut i = self.pos + 3;
        if self.punct_at(i, '.') && self.kw_at(i + 1, "async") {
            i += 2;
        }
        !self.punct_at(i, '.')
    }

    /// `parallel L1, L2, … body`.
    fn parallel(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        // `parallel.async` (the launch does not wait) and `parallel<s>` (on stream `s`).
        let is_async = self.punct_at(self.pos, '.') && self.kw_at(self.pos + 1, "async");
        if is_async {
            self.pos += 2;
        }
        let outer_cooperative = std::mem::take(&mut self.cooperative);
        let stream = if self.eat_op("<").is_some() {
            let s = self.expect_ident("the stream of the launch")?;
            self.expect_op(">", "to close `parallel<…>`")?;
            Some(s)
        } else {
            None
        };
        let mut levels = Vec::new();
        // (Tuples named by the levels of this statement: a body's own `parallel` starts after
        // they were taken.)
        self.level_tuples.clear();
        loop {
            levels.push(self.parallel_level()?);
            if self.eat_op(",").is_some() {
                continue;
            }
            // `: block {j} by …` or `: block t by …`: a level follows without its comma.
            let next = if self.is_open(Delim::Brace) {
                self.toks[self.pos].partner + 1
            } else {
                self.pos + 1
            };
            // (`parallel by 2 parallel by 4`: a nested statement as the body, not a level.)
            if (self.is_open(Delim::Brace) || self.peek_ident().is_some())
                && !self.is_kw("parallel")
                && self.kw_at(next, "by")
            {
                let span = self.after_prev();
                self.error(
                    Diagnostic::new(
                        codes::EXPECTED,
                        span,
                        "expected `,` between parallel levels",
                    )
                    .with_help("write `parallel {i} by [M] : block, {j} by [N] : thread { … }`"),
                );
                continue;
            }
            break;
        }
        let cooperative = std::mem::replace(&mut self.cooperative, outer_cooperative);
        let vars: Vec<Ident> = levels.iter().flat_map(|l| l.vars.clone()).collect();
        let head = self.span_from(first);
        let mark = self.var_extents.len();
        for l in &levels {
            for (v, &e) in l.vars.iter().zip(&l.extents) {
                self.var_extents.push((v.name.clone(), e));
            }
        }
        self.parallel_depth += 1;
        let tuples = std::mem::take(&mut self.level_tuples);
        let body = self.with_ituples(tuples, |p| p.body(&vars));
        self.parallel_depth -= 1;
        self.var_extents.truncate(mark);
        let body = body?;
        let s = self.add_stmt(
            Stmt::Parallel { levels, body },
            head.join(self.span_from(first)),
        );
        if is_async || stream.is_some() || cooperative {
            self.parallel_ext.push(crate::ir::ParallelExt {
                stmt: s,
                is_async,
                stream,
                cooperative,
            });
        }
        Ok(s)
    }

    /// `{a, b} by [X, Y] : block`, `v by E : level` or `by E : level`.
    fn parallel_level(&mut self) -> PResult<ParallelLevel> {
        let vars = if self.is_kw("by") {
            Vec::new()
        } else if self.is_open(Delim::Brace) {
            self.var_list()?
        } else if self.peek_ident().is_some() && self.punct_at(self.pos + 1, '=') {
            // `p = {x, y} by [A, B]`: the tuple `p` of the level's variables.
            let tuple = self.expect_ident("a variable")?;
            self.bump();
            let vars = self.var_list()?;
            self.level_tuples.push((tuple.name, vars.clone()));
            vars
        } else if self.peek_ident().is_some() {
            vec![self.expect_ident("a variable")?]
        } else {
            return Err(self.unexpected_help(
                codes::EXPECTED,
                "parallel variables (`{a, b}`, `a`) or `by`",
                "write `parallel {i, j} by [M, N] : block { … }`",
            ));
        };
        self.expect_kw("by", "after the parallel variables")?;
        let extents = self.extents(false)?;
        self.count_check(&vars, &extents)?;
        if self.eat_op(":").is_none() {
            // No level: Croqtile's default mapping decides it once the nest is known
            // (`levels::resolve`); until then it is marked implicit.
            let span = self.after_prev();
            self.implicit_levels.push(span);
            return Ok(ParallelLevel {
                vars,
                extents,
                level: Level::Thread,
                level_span: span,
            });
        }
        if self.peek_ident() == Some("cluster") {
            // `: cluster`: recorded here, taken out of the nest by `cluster::extract`.
            let span = self.here();
            self.bump();
            self.cluster_levels.push(span);
            return Ok(ParallelLevel {
                vars,
                extents,
                level: Level::Block,
                level_span: span,
            });
        }
        let (level, level_span) = self.level()?;
        // `: block<cooperative>`: a cooperative launch.
        if level == Level::Block && self.is_op("<") && self.kw_at(self.pos + 1, "cooperative") {
            self.pos += 2;
            self.expect_op(">", "to close `block<cooperative>`")?;
            self.cooperative = true;
        }
        Ok(ParallelLevel {
            vars,
            extents,
            level,
            level_span,
        })
    }

    /// `block`, `group-4`, `group` or `thread`.
    pub(crate) fn level(&mut self) -> PResult<(Level, Span)> {
        let first = self.pos;
        let help = format!(
            "levels are {} (`group-4` is a warpgroup of 4 warps, `group` a warp)",
            one_of(LEVELS)
        );
        let Some(word) = self.peek_ident().map(str::to_string) else {
            return Err(self.unexpected_help(codes::BAD_LEVEL, "a parallel level", &help));
        };
        self.bump();
        let level = match word.as_str() {
            "block" => Level::Block,
            "thread" => Level::Thread,
            "group" if self.is_op("-") => {
                self.bump();
                let n = match self.kind_at(self.pos) {
                    Some(TokKind::Lit(t)) => t.clone(),
                    _ => {
                        return Err(self.unexpected_help(
                            codes::BAD_LEVEL,
                            "`4` after `group-`",
                            &help,
                        ));
                    }
                };
                self.bump();
                if n != "4" {
                    let span = self.span_from(first);
                    let msg = format!("`group-{n}` is not a parallel level");
                    return Err(
                        self.error(Diagnostic::new(codes::BAD_LEVEL, span, msg).with_help(help))
                    );
                }
                Level::Group4
            }
            "group" => Level::Group,
            // `: device(cpu)` / `: device(gpu)`: Croqtile's heterogeneous launches.
            "device" => {
                let mut what = "device".to_string();
                if let Some((_, close)) = self.open(Delim::Paren) {
                    if let Some(target) = self.peek_ident() {
                        what = format!("device({target})");
                    }
                    self.pos = close + 1;
                }
                let span = self.span_from(first);
                return Err(self.error(
                    Diagnostic::new(
                        codes::DEVICE_LEVEL,
                        span,
                        format!("not supported yet: a `: {what}` level (a launch on a chosen device)"),
                    )
                    .with_help("tessel launches every `parallel` on the GPU: leave the level out, or write `: block`"),
                ));
            }
            w => {
                let span = self.span_from(first);
                let msg = format!("unknown parallel level `{w}`");
                let help = format!("{help}{}", did_you_mean(w, LEVELS));
                return Err(
                    self.error(Diagnostic::new(codes::BAD_LEVEL, span, msg).with_help(help))
                );
            }
        };
        Ok((level, self.span_from(first)))
    }

    /// `{a, b}` (the cursor is at `{`).
    fn var_list(&mut self) -> PResult<Vec<Ident>> {
        let (_, close) = self.expect_open(Delim::Brace, "to list the variables")?;
        self.comma_list(close, "the variable list", |p| {
            p.expect_ident("a variable name")
        })
    }

    /// `[A, B]`, or a single unbracketed expression when `bracket_only` is false.
    pub(crate) fn extents(&mut self, bracket_only: bool) -> PResult<Vec<ExprId>> {
        if let Some((_, close)) = self.open(Delim::Bracket) {
            let written = self.comma_list(close, "the extent list", |p| p.expr())?;
            // Arithmetic on whole shapes is written out per dimension (`shape_ops.rs`).
            let mut list = Vec::new();
            for e in written {
                match self.shape_arithmetic(e) {
                    Some(dims) => list.extend(dims?),
                    None => {
                        self.no_shape_arithmetic(e)?;
                        list.push(e);
                    }
                }
            }
            if list.is_empty() {
                let span = self.span(close, close);
                return Err(self.error(
                    Diagnostic::new(codes::EXPECTED, span, "expected at least one extent")
                        .with_help("write `[N]`"),
                ));
            }
            return Ok(list);
        }
        if bracket_only {
            return Err(self.unexpected_help(
                codes::EXPECTED,
                "`[` and the extents",
                "write `in [N]` or `in [M, N]`",
            ));
        }
        // Croqtile's grammar takes an element count `|x|` as an extent only in brackets.
        if self.is_op("|") {
            return Err(self.unexpected_help(
                codes::EXPECTED,
                "a bound (a number, a name or `[…]`)",
                "bracket an element count: `[|x.span|]`",
            ));
        }
        Ok(vec![self.expr()?])
    }

    /// One extent per variable (when variables are given).
    fn count_check(&mut self, vars: &[Ident], extents: &[ExprId]) -> PResult<()> {
        if vars.is_empty() || vars.len() == extents.len() {
            return Ok(());
        }
        let span = vars[0].span.join(vars[vars.len() - 1].span);
        if let [var] = vars {
            // A parallel variable takes one bound (Croqtile rejects `parallel p by [A, B]`);
            // a tuple of them is named with its elements.
            let n = extents.len();
            let elems: Vec<String> = (0..n).map(|d| format!("{}{d}", var.name)).collect();
            return Err(self.error(
                Diagnostic::new(
                    codes::PARALLEL_TUPLE,
                    span,
                    format!("the parallel variable `{}` is given {n} bounds", var.name),
                )
                .with_help(format!(
                    "name one variable per bound: `parallel {} = {{{}}} by [...]` or `parallel {{{}}} by [...]`",
                    var.name,
                    elems.join(", "),
                    elems.join(", "),
                )),
            ));
        }
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        let msg = format!(
            "{} but {}",
            plural(vars.len(), "variable"),
            plural(extents.len(), "extent")
        );
        let note_span = self
            .exprs
            .get_span(extents[0])
            .join(self.exprs.get_span(extents[extents.len() - 1]));
        Err(self.error(
            Diagnostic::new(codes::COUNT, span, msg)
                .with_note(note_span, "the extents")
                .with_help("give one extent per variable"),
        ))
    }

    /// `foreach {i, j} in [A, B] [: unroll] body` (also `foreach i in [N]`).
    fn foreach(&mut self) -> PResult<StmtId> {
        // `apply {i, j} in t.span`: every element of a (register) tile, an unrolled loop.
        let is_apply = self.is_kw("apply");
        let first = self.bump();
        // `foreach k(1:)`: (variable position, start, end) of ranged variables.
        let mut ranges: Vec<(usize, ExprId, ExprId)> = Vec::new();
        let mut vars = if self.is_open(Delim::Brace) {
            self.var_list()?
        } else if self.peek_ident().is_some() && !self.is_kw("in") {
            let mut v = vec![self.expect_ident("a loop variable")?];
            self.var_range(&v[0], 0, &mut ranges)?;
            while self.punct_at(self.pos, ',') && self.ident_at(self.pos + 1).is_some() {
                self.bump();
                v.push(self.expect_ident("a loop variable")?);
                let (last, at) = (v[v.len() - 1].clone(), v.len() - 1);
                self.var_range(&last, at, &mut ranges)?;
            }
            v
        } else {
            return Err(self.unexpected_help(
                codes::EXPECTED,
                "loop variables",
                "write `foreach {i} in [N] { … }`",
            ));
        };
        let in_kw = self.eat_kw("in");
        // I-tuple loop variables and their elements (`ituple.rs`).
        let mut tuples: Vec<(String, Vec<Ident>)> = Vec::new();
        if in_kw.is_none() && self.is_open(Delim::Bracket) {
            self.unexpected_help(
                codes::EXPECTED,
                "`in` after the loop variables",
                "write `foreach {i} in [N]`",
            );
        }
        let extents = if in_kw.is_none() && !self.is_open(Delim::Bracket) {
            // `foreach x` over the bound a `with` gave `x`.
            let mut ext = Vec::new();
            let mut iterated = Vec::new();
            for v in &vars {
                match self.with_bound(&v.name) {
                    Some((b, elems)) => {
                        // A tuple (`with index in [A, B]`, `with index = {x, y} in …`)
                        // iterates its elements, outer to inner.
                        let elems = if elems.is_empty() && b.len() > 1 {
                            self.ituple_elements(v, b.len())
                        } else {
                            elems
                        };
                        ext.extend(b);
                        if elems.is_empty() {
                            iterated.push(v.clone());
                        } else {
                            tuples.push((v.name.clone(), elems.clone()));
                            iterated.extend(elems);
                        }
                    }
                    None => {
                        return Err(self.error(
                            Diagnostic::new(
                                codes::BAD_LOOP,
                                v.span,
                                format!("`{}` has no bound to iterate over", v.name),
                            )
                            .with_help(format!(
                                "write `foreach {} in [N]` or bound it with `with {} in N {{ … }}`",
                                v.name, v.name
                            )),
                        ));
                    }
                }
            }
            vars = iterated;
            ext
        } else {
            // `in t.span` (as `apply {i, j} in acc.span` writes it) iterates over `t`'s shape.
            let ext = self.extents(false)?;
            // `apply … in v.span` of a `frag` tile walks its elements (each thread its own),
            // like an accumulator's: its shape stays `v.span(d)`, not the declared extents.
            let tile_rank = match ext.as_slice() {
                [e] if is_apply => match &self.exprs[*e] {
                    crate::ir::Expr::Field { base, field } if field.name == "span" => {
                        match &self.exprs[*base] {
                            crate::ir::Expr::Name(n) if self.frag_tiles.contains(n) => self
                                .shapes
                                .iter()
                                .rev()
                                .find(|(k, _)| k == n)
                                .map(|(_, d)| (*base, d.len())),
                            _ => None,
                        }
                    }
                    _ => None,
                },
                _ => None,
            };
            let ext = match (tile_rank, ext.as_slice()) {
                (Some((base, rank)), [e]) => {
                    let span = self.exprs.get_span(*e);
                    (0..rank)
                        .map(|d| {
                            let i = self.add_expr(crate::ir::Expr::Int(d as i64), span);
                            self.add_expr(
                                crate::ir::Expr::View {
                                    base,
                                    op: crate::ir::ViewOp::SpanOf,
                                    args: vec![i],
                                },
                                span,
                            )
                        })
                        .collect()
                }
                _ => self.splice_spans(ext),
            };
            // A shape the parser does not know (an `mma` accumulator's): dimension `d` of it
            // for variable `d`, `t.span(d)`.
            match ext.as_slice() {
                [e] if vars.len() > 1 => match self.exprs[*e].clone() {
                    crate::ir::Expr::Field { base, field } if field.name == "span" => {
                        let span = self.exprs.get_span(*e);
                        (0..vars.len())
                            .map(|d| {
                                let i = self.add_expr(crate::ir::Expr::Int(d as i64), span);
                                self.add_expr(
                                    crate::ir::Expr::View {
                                        base,
                                        op: crate::ir::ViewOp::SpanOf,
                                        args: vec![i],
                                    },
                                    span,
                                )
                            })
                            .collect()
                    }
                    _ => ext,
                },
                _ => ext,
            }
        };
        // `foreach index in [A, B]`: one variable over several dimensions is a tuple of
        // loop variables.
        if let [var] = vars.as_slice()
            && extents.len() > 1
        {
            let elems = self.ituple_elements(var, extents.len());
            tuples.push((var.name.clone(), elems.clone()));
            vars = elems;
        }
        self.count_check(&vars, &extents)?;
        if !ranges.is_empty() && in_kw.is_some() {
            let span = self.span_from(first);
            return Err(self.error(
                Diagnostic::new(
                    codes::LOOP_RANGE,
                    span,
                    "a ranged loop variable `k(lo:hi)` iterates the bound a `with` gave it",
                )
                .with_help("write `with k in N { foreach k(1:) { … } }`"),
            ));
        }
        let mut unroll = is_apply;
        let mut factor = None;
        if self.eat_op(":").is_some() {
            self.expect_kw("unroll", "after `:` (the only loop attribute)")?;
            unroll = true;
            // `: unroll(N)`: unroll by a factor.
            if let Some((_, close)) = self.open(Delim::Paren) {
                let f = self.expr();
                factor = Some(self.finish_group(close, "after the unroll factor", f)?);
            }
        }
        let head = self.span_from(first);
        let mark = self.var_extents.len();
        for (v, &e) in vars.iter().zip(&extents) {
            self.var_extents.push((v.name.clone(), e));
        }
        let body = self.with_ituples(tuples, |p| p.body(&vars));
        self.var_extents.truncate(mark);
        let body = body?;
        let s = self.add_stmt(
            Stmt::Foreach {
                vars,
                extents,
                unroll,
                body,
            },
            head.join(self.span_from(first)),
        );
        if let Some(factor) = factor {
            self.unroll_factors
                .push(crate::ir::UnrollFactor { stmt: s, factor });
        }
        for (var, start, end) in ranges {
            self.loop_ranges.push(crate::ir::LoopRange {
                stmt: s,
                var,
                start,
                end,
            });
        }
        Ok(s)
    }

    /// `k(lo:hi)` after loop variable `v` (at `at` in the variable list): its range over the
    /// bound a `with` gave it.
    fn var_range(
        &mut self,
        v: &Ident,
        at: usize,
        ranges: &mut Vec<(usize, ExprId, ExprId)>,
    ) -> PResult<()> {
        if !self.is_open(Delim::Paren) {
            return Ok(());
        }
        let Some(bound) = self
            .with_bound(&v.name)
            .and_then(|(b, elems)| (b.len() == 1 && elems.is_empty()).then(|| b[0]))
        else {
            let span = self.here();
            return Err(self.error(
                Diagnostic::new(
                    codes::LOOP_RANGE,
                    span,
                    format!(
                        "`{}(lo:hi)` needs `{}` bounded by a `with` of one extent",
                        v.name, v.name
                    ),
                )
                .with_help(format!(
                    "write `with {} in N {{ foreach {}(1:) {{ … }} }}`",
                    v.name, v.name
                )),
            ));
        };
        let (start, end) = self.loop_range(bound)?;
        ranges.push((at, start, end));
        Ok(())
    }

    /// `(cond)`.
    pub(crate) fn paren_cond(&mut self, context: &str) -> PResult<ExprId> {
        let (_, close) = self.expect_open(Delim::Paren, context)?;
        let cond = self.expr();
        self.finish_group(close, "to end the condition", cond)
    }

    /// `if (cond) body [else body]`.
    fn if_stmt(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        let cond = self.paren_cond("after `if`")?;
        let then_body = self.body(&[])?;
        let else_body = match self.eat_kw("else") {
            Some(_) => Some(self.body(&[])?),
            None => None,
        };
        Ok(self.add_stmt(
            Stmt::If {
                cond,
                then_body,
                else_body,
            },
            self.span_from(first),
        ))
    }

    /// `inthreads[.async] (cond) body`.
    fn inthreads(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        let mut is_async = false;
        if self.eat_op(".").is_some() {
            let m = self.expect_ident("`async` after `inthreads.`")?;
            if m.name != "async" {
                let msg = format!("unknown modifier `.{}` on `inthreads`", m.name);
                return Err(self.error(
                    Diagnostic::new(codes::BAD_MODIFIER, m.span, msg)
                        .with_help("the only modifier is `.async`"),
                ));
            }
            is_async = true;
        }
        let cond = self.paren_cond("and the thread condition")?;
        let head = self.span_from(first);
        let body = self.body(&[])?;
        Ok(self.add_stmt(
            Stmt::InThreads {
                is_async,
                cond,
                body,
            },
            head.join(self.span_from(first)),
        ))
    }
}
