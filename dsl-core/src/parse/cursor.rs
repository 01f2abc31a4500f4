//! The parser state and the token cursor: lookahead, multi-character operators (rebuilt from
//! `Joint` punctuation), spans, diagnostics, error recovery and the name scopes that decide
//! between `Let` and `Assign`.
//!
//! Error protocol: a parse function that fails pushes its diagnostic first and returns
//! `Err(Reported)`; the statement or header loop then skips to a synchronization point. A
//! function that can repair the input cheaply (a missing `;` at the end of a line, a missing
//! `)`) reports and returns `Ok`, so one mistake yields one diagnostic.

use super::codes;
use super::lexer::{Delim, Tok, TokKind};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Arena, Expr, Ident, Stmt};
use crate::span::Span;

/// Marker: the error has been pushed to the parser's diagnostics.
#[derive(Debug)]
pub(crate) struct Reported;

pub(crate) type PResult<T> = Result<T, Reported>;

/// Deepest nesting of expressions and statements before the parser gives up (keeps the
/// recursion far from the stack limit, also on a proc macro's thread).
const MAX_DEPTH: u32 = 96;

/// Multi-character operators, longest first.
const OPS: &[&str] = &[
    "..=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "=>", "..",
];

/// One `x++`, `++x`, `x--` or `--x` inside an expression, waiting to become a statement of its
/// own around the statement being parsed (`steps.rs`).
pub(crate) struct Step {
    pub name: String,
    pub add: bool,
    pub pre: bool,
    pub span: crate::span::Span,
}

pub(crate) struct Parser {
    pub toks: Vec<Tok>,
    pub pos: usize,
    pub diags: Diagnostics,
    pub exprs: Arena<Expr>,
    pub stmts: Arena<Stmt>,
    scopes: Vec<Vec<String>>,
    depth: u32,
    /// Height of each expression tree, indexed like `exprs` (bounded by `MAX_DEPTH * 2` so
    /// that later recursive passes are safe even on long left-associative chains).
    pub expr_height: Vec<u32>,
    /// Set once the nesting limit was hit (it is reported once, and bodies are no longer
    /// salvaged after broken statement heads).
    pub too_deep: bool,
    /// `level_span` of each `parallel` level written without `: level` (resolved by
    /// `levels::resolve` after the kernel is parsed).
    pub implicit_levels: Vec<Span>,
    /// Names bounded by enclosing `with … in` statements, innermost last.
    pub with_bounds: Vec<Vec<(String, Vec<crate::ir::ExprId>, Vec<crate::ir::Ident>)>>,
    /// How many `parallel` bodies enclose the cursor (a declaration without a memory space
    /// is `global` outside them and `local` inside).
    pub parallel_depth: u32,
    /// Shapes of the parameters and tensors declared so far, for `[x.span]` in a later
    /// declaration (replaced by `x`'s own dimensions).
    pub shapes: Vec<(String, Vec<crate::ir::ExprId>)>,
    /// Inside `|…|`: `x.span(d)` stays a view there (a shape of one dimension to count),
    /// rather than becoming the dimension's value.
    pub counting: bool,
    /// What declarations carry beyond the core form (`{v}`, `= ready`, `frag`).
    pub decl_ext: Vec<crate::ir::DeclExt>,
    /// `shared event<N> …;` declarations and their `N` (`Module::event_participants`).
    pub event_participants: Vec<(crate::ir::StmtId, crate::ir::ExprId)>,
    /// Names with a compile-time value: tunables, constants, `#define`s and the integer
    /// constants of the kernel body (folded into constants).
    pub const_names: Vec<String>,
    /// `int X = …;` at the top of the kernel body, over constants only: module constants.
    pub body_constants: Vec<crate::ir::Constant>,
    /// Braced blocks open around the cursor (1 = the kernel body itself).
    pub body_depth: u32,
    /// `[[…]]` attributes parsed so far.
    pub attributes: Vec<crate::ir::Attribute>,
    /// Inside `[[…]]`: calls of any name and arity are the attribute's own terms.
    pub any_call: bool,
    /// Statements a statement's parser made to run just before it (direct `mma` operands).
    pub pre_stmts: Vec<crate::ir::StmtId>,
    /// Accumulator arrays declared so far (`frag mc[2][3] {0.0};`): name and extents.
    pub frag_arrays: Vec<(String, Vec<i64>)>,
    /// The accumulator-array element the statement being parsed names with run-time indices
    /// (`mc[0][i]`): the array, and per dimension a literal or an index expression with the
    /// dimension's extent. The statement becomes a branch per element (`frag_array.rs`).
    /// `frag` register tiles declared so far (`frag f32 [M] v;`): `apply … in v.span` walks
    /// their elements rather than their shape.
    pub frag_tiles: Vec<String>,
    pub dyn_acc: Option<(String, Vec<Result<i64, (crate::ir::ExprId, i64)>>)>,
    /// `level_span` of each `: cluster` level (taken out of its statement by
    /// `cluster::extract` once the kernel is parsed).
    pub cluster_levels: Vec<Span>,
    /// `tma.copy….multicast` statements and the modifier's span.
    pub multicast: Vec<(crate::ir::StmtId, Span)>,
    /// Sparse `mma`s (`mma.row.row.sp`) and their metadata operands.
    pub sparse: Vec<crate::ir::SparseMma>,
    /// `trigger.cluster …` statements.
    pub cluster_triggers: Vec<crate::ir::StmtId>,
    /// Parallel and loop variables in scope with their extents, innermost last (what `#x`
    /// names).
    pub var_extents: Vec<(String, crate::ir::ExprId)>,
    /// Unnamed dimensions (`?`, `mdspan<N>`) so far: each gets a fresh symbolic name.
    pub unnamed_dims: u32,
    /// Names given to views (`v = t.span_as(6, 64);`): each use is a copy of the view.
    pub view_aliases: Vec<(String, crate::ir::ExprId)>,
    /// `mma.<a>.<b>.scale …`: the scaled `mma`s (see `Module::mma_scales`).
    pub mma_scales: Vec<crate::ir::MmaScale>,
    /// `[f =] mma.<a>.<b>.async …` (see `Module::mma_async`).
    pub mma_async: Vec<(crate::ir::StmtId, Option<Ident>)>,
    /// `name = mma.load.frag src;` (see `Module::frag_loads`).
    pub frag_loads: Vec<crate::ir::StmtId>,
    /// Named shapes (`sp : [7, 8];`) in scope, innermost last: `[sp]` in a shape and
    /// `sp(i)` in an expression stand for their dimensions.
    pub shape_values: Vec<(String, Vec<crate::ir::ExprId>)>,
    /// `stream` parameters of the kernel.
    pub streams: Vec<crate::ir::StreamParam>,
    /// `parallel.async` / `parallel<s>` seen so far.
    pub parallel_ext: Vec<crate::ir::ParallelExt>,
    /// `: unroll(N)` factors seen so far.
    pub unroll_factors: Vec<crate::ir::UnrollFactor>,
    /// `foreach k(lo:hi)` ranges seen so far.
    pub loop_ranges: Vec<crate::ir::LoopRange>,
    /// `k(-1)` values seen so far.
    pub bounded_values: Vec<crate::ir::BoundedValue>,
    /// The bounds of `with … in` clauses seen so far.
    pub with_extents: Vec<crate::ir::ExprId>,
    /// Tensor and event arrays of several dimensions declared so far (`s[4][2]`).
    pub array_dims: Vec<(String, Vec<crate::ir::ExprId>)>,
    /// Their flattened indices.
    pub array_indices: Vec<crate::ir::ArrayIndex>,
    /// Arrays of buffers declared so far (`shared f32 [32] s[4];`), and the values of the
    /// `let`s that name one of their buffers (`Module::buffer_aliases`).
    pub buffer_arrays: Vec<String>,
    pub buffer_aliases: Vec<crate::ir::ExprId>,
    /// Inside the brackets of a shape derivation `sp : base [(1), (0) / 2];`: the dimensions
    /// of `base` that a parenthesized integer `(i)` stands for.
    pub derived_from: Option<Vec<crate::ir::ExprId>>,
    /// Set by a `: block<cooperative>` level of the `parallel` being parsed.
    pub cooperative: bool,
    /// I-tuple names in scope and their element variables, innermost last (`ituple.rs`).
    pub ituples: Vec<(String, Vec<crate::ir::Ident>)>,
    /// Element names made for i-tuples so far (never made twice).
    pub ituple_names: Vec<String>,
    /// Tuples named by the levels of the `parallel` head being parsed (`p = {x, y} by …`).
    pub level_tuples: Vec<(String, Vec<crate::ir::Ident>)>,
    /// Increments inside the expressions of the statement being parsed (`e.at(k++)`), which
    /// `stmt` turns into statements of their own around it (`steps.rs`).
    pub steps: Vec<Step>,
}

impl Parser {
    pub(crate) fn new(toks: Vec<Tok>) -> Self {
        Parser {
            toks,
            pos: 0,
            diags: Diagnostics::default(),
            exprs: Arena::new(),
            stmts: Arena::new(),
            scopes: vec![Vec::new()],
            depth: 0,
            expr_height: Vec::new(),
            too_deep: false,
            implicit_levels: Vec::new(),
            with_bounds: Vec::new(),
            parallel_depth: 0,
            shapes: Vec::new(),
            counting: false,
            decl_ext: Vec::new(),
            event_participants: Vec::new(),
            const_names: Vec::new(),
            body_constants: Vec::new(),
            body_depth: 0,
            attributes: Vec::new(),
            any_call: false,
            pre_stmts: Vec::new(),
            frag_arrays: Vec::new(),
            dyn_acc: None,
            frag_tiles: Vec::new(),
            cluster_levels: Vec::new(),
            multicast: Vec::new(),
            sparse: Vec::new(),
            cluster_triggers: Vec::new(),
            var_extents: Vec::new(),
            unnamed_dims: 0,
            view_aliases: Vec::new(),
            mma_scales: Vec::new(),
            mma_async: Vec::new(),
            frag_loads: Vec::new(),
            shape_values: Vec::new(),
            streams: Vec::new(),
            parallel_ext: Vec::new(),
            unroll_factors: Vec::new(),
            loop_ranges: Vec::new(),
            bounded_values: Vec::new(),
            with_extents: Vec::new(),
            array_dims: Vec::new(),
            array_indices: Vec::new(),
            buffer_arrays: Vec::new(),
            buffer_aliases: Vec::new(),
            derived_from: None,
            cooperative: false,
            ituples: Vec::new(),
            ituple_names: Vec::new(),
            level_tuples: Vec::new(),
            steps: Vec::new(),
        }
    }

    // ---- lookahead -------------------------------------------------------------------------

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    pub(crate) fn kind_at(&self, i: usize) -> Option<&TokKind> {
        self.toks.get(i).map(|t| &t.kind)
    }
    pub(crate) fn ident_at(&self, i: usize) -> Option<&str> {
        match self.kind_at(i) {
            Some(TokKind::Ident(s)) => Some(s),
            _ => None,
        }
    }
    /// The identifier at the cursor.
    pub(crate) fn peek_ident(&self) -> Option<&str> {
        self.ident_at(self.pos)
    }
    pub(crate) fn is_kw(&self, kw: &str) -> bool {
        self.peek_ident() == Some(kw)
    }
    pub(crate) fn kw_at(&self, i: usize, kw: &str) -> bool {
        self.ident_at(i) == Some(kw)
    }
    pub(crate) fn punct_at(&self, i: usize, ch: char) -> bool {
        matches!(self.kind_at(i), Some(TokKind::Punct { ch: c, .. }) if *c == ch)
    }
    pub(crate) fn is_open(&self, d: Delim) -> bool {
        self.open_at(self.pos, d)
    }
    pub(crate) fn open_at(&self, i: usize, d: Delim) -> bool {
        matches!(self.kind_at(i), Some(TokKind::Open(x)) if *x == d)
    }
    pub(crate) fn is_close(&self) -> bool {
        matches!(self.kind_at(self.pos), Some(TokKind::Close(_)))
    }

    /// The operator starting at token `i` (single punctuation or one of [`OPS`] written without
    /// spaces) and how many tokens it spans.
    pub(crate) fn op_at(&self, i: usize) -> Option<(String, usize)> {
        let TokKind::Punct { ch, .. } = self.kind_at(i)? else {
            return None;
        };
        for op in OPS {
            let n = op.chars().count();
            let matches = op.chars().enumerate().all(|(k, c)| {
                let joined = k + 1 == n
                    || matches!(
                        self.kind_at(i + k),
                        Some(TokKind::Punct { joint: true, .. })
                    );
                self.punct_at(i + k, c) && joined
            });
            if matches {
                return Some((op.to_string(), n));
            }
        }
        Some((ch.to_string(), 1))
    }
    /// Whether the operator at the cursor is exactly `op` (`=` does not match `==`).
    pub(crate) fn is_op(&self, op: &str) -> bool {
        self.op_at(self.pos).is_some_and(|(o, _)| o == op)
    }

    // ---- consuming -------------------------------------------------------------------------

    pub(crate) fn bump(&mut self) -> usize {
        let i = self.pos;
        if !self.at_end() {
            self.pos += 1;
        }
        i
    }
    pub(crate) fn eat_kw(&mut self, kw: &str) -> Option<usize> {
        self.is_kw(kw).then(|| self.bump())
    }
    /// Consumes operator `op`; returns the index of its last token.
    pub(crate) fn eat_op(&mut self, op: &str) -> Option<usize> {
        let (o, n) = self.op_at(self.pos)?;
        if o != op {
            return None;
        }
        self.pos += n;
        Some(self.pos - 1)
    }
    pub(crate) fn expect_op(&mut self, op: &str, context: &str) -> PResult<usize> {
        match self.eat_op(op) {
            Some(i) => Ok(i),
            None => Err(self.unexpected(codes::EXPECTED, &format!("`{op}` {context}"))),
        }
    }
    pub(crate) fn expect_kw(&mut self, kw: &str, context: &str) -> PResult<usize> {
        match self.eat_kw(kw) {
            Some(i) => Ok(i),
            None => Err(self.unexpected(codes::EXPECTED, &format!("`{kw}` {context}"))),
        }
    }
    /// Any identifier, as an [`Ident`].
    pub(crate) fn expect_ident(&mut self, what: &str) -> PResult<Ident> {
        match self.peek_ident() {
            Some(name) => {
                let name = name.to_string();
                let i = self.bump();
                Ok(Ident::new(name, self.span(i, i)))
            }
            None => Err(self.unexpected(codes::EXPECTED, what)),
        }
    }
    /// Enters a group: consumes the opening delimiter and returns (open, close) indices.
    pub(crate) fn open(&mut self, d: Delim) -> Option<(usize, usize)> {
        if !self.is_open(d) {
            return None;
        }
        let open = self.bump();
        Some((open, self.toks[open].partner))
    }
    pub(crate) fn expect_open(&mut self, d: Delim, context: &str) -> PResult<(usize, usize)> {
        match self.open(d) {
            Some(g) => Ok(g),
            None => {
                Err(self.unexpected(codes::EXPECTED, &format!("`{}` {context}", d.open_char())))
            }
        }
    }
    /// Leaves a group: reports anything left before its closing delimiter, then steps past it.
    pub(crate) fn close(&mut self, close: usize, context: &str) {
        if self.pos < close {
            let d = match self.kind_at(close) {
                Some(TokKind::Close(d)) => d.close_char(),
                _ => ')',
            };
            self.unexpected(codes::EXPECTED, &format!("`{d}` {context}"));
        }
        self.pos = (close + 1).max(self.pos).min(self.toks.len());
    }

    /// Leaves a group after parsing its contents with result `r`: on success, as
    /// [`close`](Self::close); on failure (already reported), silently past the group.
    pub(crate) fn finish_group<T>(
        &mut self,
        close: usize,
        context: &str,
        r: PResult<T>,
    ) -> PResult<T> {
        match r {
            Ok(v) => {
                self.close(close, context);
                Ok(v)
            }
            Err(e) => {
                self.pos = (close + 1).max(self.pos).min(self.toks.len());
                Err(e)
            }
        }
    }

    /// Parses `item (, item)*` up to the group's `close` (trailing comma allowed) and leaves the
    /// group. A failed item skips to the next `,`.
    pub(crate) fn comma_list<T>(
        &mut self,
        close: usize,
        context: &str,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut out = Vec::new();
        let mut ok = true;
        while self.pos < close {
            let before = self.pos;
            match item(self) {
                Ok(v) => out.push(v),
                Err(Reported) => {
                    ok = false;
                    self.skip_until(close, |p| p.punct_at(p.pos, ','));
                }
            }
            if self.pos >= close {
                break;
            }
            if self.eat_op(",").is_none() {
                if ok {
                    self.unexpected(codes::EXPECTED, &format!("`,` or the end of {context}"));
                }
                ok = false;
                self.skip_until(close, |p| p.punct_at(p.pos, ','));
                self.eat_op(",");
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.close(close, &format!("to end {context}"));
        if ok { Ok(out) } else { Err(Reported) }
    }

    /// Skips tokens (whole groups at a time) until `stop` holds or `limit` is reached.
    pub(crate) fn skip_until(&mut self, limit: usize, stop: impl Fn(&Self) -> bool) {
        while self.pos < limit && !self.at_end() && !stop(self) {
            self.skip_one();
        }
    }
    /// Steps over one token, or a whole group if at an opening delimiter.
    pub(crate) fn skip_one(&mut self) {
        match self.kind_at(self.pos) {
            Some(TokKind::Open(_)) => self.pos = self.toks[self.pos].partner + 1,
            _ => self.pos += 1,
        }
        self.pos = self.pos.min(self.toks.len());
    }
    /// Whether the cursor is at a `{…}` that looks like a statement body rather than a
    /// variable list `{i, j}`: empty, spanning lines, or holding a `;` or a nested block.
    pub(crate) fn at_body(&self) -> bool {
        if !self.is_open(Delim::Brace) {
            return false;
        }
        let (open, close) = (self.pos, self.toks[self.pos].partner);
        let lines = self.toks[close].start.line > self.toks[open].end.line;
        let mut i = open + 1;
        while i < close {
            match &self.toks[i].kind {
                TokKind::Punct { ch: ';', .. } | TokKind::Open(Delim::Brace) => return true,
                TokKind::Open(_) => i = self.toks[i].partner + 1,
                _ => i += 1,
            }
        }
        lines || close == open + 1
    }

    /// Statement recovery: skip past the next `;`, or past a body `{…}` (the end of a block
    /// statement), or up to the enclosing closing delimiter.
    pub(crate) fn recover_stmt(&mut self) {
        while !self.at_end() && !self.is_close() {
            if self.eat_op(";").is_some() {
                return;
            }
            let body = self.at_body();
            self.skip_one();
            if body {
                return;
            }
        }
    }

    // ---- spans and diagnostics -------------------------------------------------------------

    /// The span from token `first` to token `last` (inclusive).
    pub(crate) fn span(&self, first: usize, last: usize) -> Span {
        match (self.toks.get(first), self.toks.get(last.max(first))) {
            (Some(a), Some(b)) => Span {
                start: a.start,
                end: b.end,
                first_token: first as u32,
                last_token: last.max(first) as u32,
            },
            _ => self.end_span(),
        }
    }
    /// From token `first` to the last consumed token.
    pub(crate) fn span_from(&self, first: usize) -> Span {
        self.span(first, self.pos.saturating_sub(1).max(first))
    }
    /// The token at the cursor (or the end of input).
    pub(crate) fn here(&self) -> Span {
        if self.at_end() {
            self.end_span()
        } else {
            self.span(self.pos, self.pos)
        }
    }
    /// An empty span just after the last consumed token (where a missing `;` belongs).
    pub(crate) fn after_prev(&self) -> Span {
        match self
            .pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i).map(|t| (i, t)))
        {
            Some((i, t)) => Span {
                start: t.end,
                end: t.end,
                first_token: i as u32,
                last_token: i as u32,
            },
            None => self.here(),
        }
    }
    fn end_span(&self) -> Span {
        match self.toks.last() {
            Some(t) => {
                let i = (self.toks.len() - 1) as u32;
                Span {
                    start: t.end,
                    end: t.end,
                    first_token: i,
                    last_token: i,
                }
            }
            None => Span::DUMMY,
        }
    }
    /// How a token reads in a message: `` `foo` `` or "end of input".
    pub(crate) fn describe(&self, i: usize) -> String {
        match self.kind_at(i) {
            None => "end of input".to_string(),
            Some(TokKind::Ident(s)) | Some(TokKind::Lit(s)) => format!("`{s}`"),
            Some(TokKind::Punct { .. }) => {
                format!("`{}`", self.op_at(i).map(|(o, _)| o).unwrap_or_default())
            }
            Some(TokKind::Open(d)) => format!("`{}`", d.open_char()),
            Some(TokKind::Close(d)) => format!("`{}`", d.close_char()),
        }
    }
    pub(crate) fn error(&mut self, d: Diagnostic) -> Reported {
        self.diags.push(d);
        Reported
    }
    /// "expected {what}, found {token}" at the cursor.
    pub(crate) fn unexpected(&mut self, code: &'static str, what: &str) -> Reported {
        let msg = format!("expected {what}, found {}", self.describe(self.pos));
        let span = self.here();
        self.error(Diagnostic::new(code, span, msg))
    }
    pub(crate) fn unexpected_help(
        &mut self,
        code: &'static str,
        what: &str,
        help: &str,
    ) -> Reported {
        let msg = format!("expected {what}, found {}", self.describe(self.pos));
        let span = self.here();
        self.error(Diagnostic::new(code, span, msg).with_help(help))
    }

    /// Ends a statement. A `;` missing at the end of a line is reported and the parse goes
    /// on at the next line; anything else on the same line is an error the caller recovers
    /// from.
    pub(crate) fn expect_semi(&mut self, what: &str) -> PResult<()> {
        if self.eat_op(";").is_some() {
            return Ok(());
        }
        let prev_line = self
            .pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map(|t| t.end.line);
        let next_line = self.toks.get(self.pos).map(|t| t.start.line);
        let new_line = self.at_end() || self.is_close() || next_line > prev_line;
        let msg = format!(
            "expected `;` after {what}, found {}",
            self.describe(self.pos)
        );
        if new_line {
            let span = self.after_prev();
            self.error(Diagnostic::new(codes::MISSING_SEMI, span, msg).with_help("add `;` here"));
            Ok(())
        } else {
            let span = self.here();
            Err(self.error(
                Diagnostic::new(codes::MISSING_SEMI, span, msg)
                    .with_help(format!("end the {what} with `;`")),
            ))
        }
    }

    // ---- nesting ---------------------------------------------------------------------------

    /// Counts one level of recursion; fails (reported) past [`MAX_DEPTH`].
    pub(crate) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            if self.too_deep {
                return Err(Reported);
            }
            self.too_deep = true;
            let span = self.here();
            return Err(self.error(
                Diagnostic::new(
                    codes::TOO_DEEP,
                    span,
                    format!("nesting deeper than {MAX_DEPTH} levels"),
                )
                .with_help("split the expression or the loop nest"),
            ));
        }
        Ok(())
    }
    /// Reports the nesting limit (once per parse) at `span`.
    pub(crate) fn too_deep_at(&mut self, span: Span) -> Reported {
        if !self.too_deep {
            self.too_deep = true;
            self.error(
                Diagnostic::new(
                    codes::TOO_DEEP,
                    span,
                    format!("expression nested deeper than {} levels", MAX_DEPTH * 2),
                )
                .with_help("split the expression with intermediate names: `t = a + b;`"),
            );
        }
        Reported
    }
    pub(crate) fn max_expr_height(&self) -> u32 {
        MAX_DEPTH * 2
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ---- scopes ----------------------------------------------------------------------------

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }
    pub(crate) fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }
    pub(crate) fn bind(&mut self, name: &str) {
        if let Some(s) = self.scopes.last_mut() {
            s.push(name.to_string());
        }
    }
    pub(crate) fn is_bound(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.iter().any(|n| n == name))
    }
}
