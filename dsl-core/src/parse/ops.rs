//! Data-movement, tensor-core, event and barrier statements: `dma.copy`, `dma.wait`,
//! `tma.copy` / `tma.load`, `mma.*`, `wait`, `trigger`, `sync.shared` and the warp
//! reduction `reduce.sum|max x : group`.

use super::codes;
use super::cursor::{PResult, Parser};
use super::suggest::{did_you_mean, nearest, one_of};
use crate::diag::Diagnostic;
use crate::ir::{CopyDst, Expr, ExprId, Ident, Major, MemSpace, ReduceOp, Stmt, StmtId, ViewOp};
use crate::span::Span;

const DMA_OPS: &[&str] = &["copy", "wait"];
const REDUCE_OPS: &[&str] = &["sum", "max"];
const TMA_OPS: &[&str] = &["copy", "load"];
const MMA_OPS: &[&str] = &["fill", "load", "store", "commit", "row", "col"];
const SYNC_OPS: &[&str] = &["shared"];
const STORE_HELP: &str = "write `mma.store mc, dst;` or, for a column slice, `mma.store mc.subspan(64, W).at(0, j), dst;`";

/// `.async` / `.async<ev>` / `.swiz<N>` after `tma.copy`, `dma.copy` or `mma.load`.
#[derive(Default)]
struct Modifiers {
    is_async: Option<Span>,
    event: Option<ExprId>,
    swizzle: Option<ExprId>,
    /// `.multicast` (TMA loads under a cluster).
    multicast: Option<Span>,
    /// `.frag` (`mma.load.frag`: into registers, the WGMMA A-fragment layout).
    frag: Option<Span>,
}

impl Parser {
    /// `ns.op` after a namespace keyword (`dma`, `tma`, `mma`, `sync`): returns `op`. An
    /// unknown `op` is an unknown statement, with a suggestion from `ops`.
    fn namespace_op(&mut self, ns: &str, ops: &[&str]) -> PResult<Ident> {
        self.bump();
        if self.eat_op(".").is_none() {
            let ops_list: Vec<String> = ops.iter().map(|o| format!("{ns}.{o}")).collect();
            let ops_ref: Vec<&str> = ops_list.iter().map(String::as_str).collect();
            return Err(self.unexpected_help(
                codes::EXPECTED,
                &format!("`.` after `{ns}`"),
                &format!("`{ns}` statements are {}", one_of(&ops_ref)),
            ));
        }
        let op = self.expect_ident(&format!("an operation after `{ns}.`"))?;
        if !ops.contains(&op.name.as_str()) {
            let msg = format!("unknown statement `{ns}.{}`", op.name);
            let help = match nearest(&op.name, ops) {
                Some(o) => format!("did you mean `{ns}.{o}`?"),
                None => format!("`{ns}` operations are {}", one_of(ops)),
            };
            return Err(
                self.error(Diagnostic::new(codes::UNKNOWN_STMT, op.span, msg).with_help(help))
            );
        }
        Ok(op)
    }

    /// `<expr>` after `.swiz` / `.async`.
    fn angle_arg(&mut self, what: &str) -> PResult<ExprId> {
        self.expect_op("<", &format!("after `.{what}`"))?;
        let e = self.expr_no_gt()?;
        self.expect_op(">", &format!("to close `.{what}<…>`"))?;
        Ok(e)
    }

    /// Modifiers in any order; `allowed` lists the accepted ones (`async`, `async<>`, `swiz`).
    fn modifiers(&mut self, stmt: &str, allowed: &[&str]) -> PResult<Modifiers> {
        let mut m = Modifiers::default();
        while self.is_op(".") {
            self.bump();
            let name = self.expect_ident(&format!("a modifier after `{stmt}.`"))?;
            let repeated = match name.name.as_str() {
                "async" if allowed.contains(&"async") => {
                    let rep = m.is_async.is_some();
                    m.is_async = Some(name.span);
                    if self.is_op("<") {
                        if !allowed.contains(&"async<>") {
                            let span = self.here();
                            return Err(self.error(
                                Diagnostic::new(
                                    codes::BAD_MODIFIER,
                                    span,
                                    format!("`{stmt}.async` takes no event"),
                                )
                                .with_help(format!("write `{stmt}.async`")),
                            ));
                        }
                        m.event = Some(self.angle_arg("async")?);
                    }
                    rep
                }
                "swiz" if allowed.contains(&"swiz") => {
                    let rep = m.swizzle.is_some();
                    m.swizzle = Some(self.angle_arg("swiz")?);
                    rep
                }
                "multicast" if allowed.contains(&"multicast") => {
                    m.multicast.replace(name.span).is_some()
                }
                "frag" if allowed.contains(&"frag") => m.frag.replace(name.span).is_some(),
                "multicast" => {
                    return Err(self.error(super::cluster::multicast_not_tma(name.span, stmt)));
                }
                other => {
                    let names: Vec<&str> = allowed
                        .iter()
                        .copied()
                        .filter(|a| !a.ends_with('>'))
                        .collect();
                    let msg = format!("unknown modifier `.{other}` on `{stmt}`");
                    let help = format!(
                        "`{stmt}` accepts {}{}",
                        one_of(&names),
                        did_you_mean(other, &names)
                    );
                    return Err(self.error(
                        Diagnostic::new(codes::BAD_MODIFIER, name.span, msg).with_help(help),
                    ));
                }
            };
            if repeated {
                let msg = format!("`.{}` given twice", name.name);
                return Err(self.error(
                    Diagnostic::new(codes::BAD_MODIFIER, name.span, msg)
                        .with_help("keep one of them"),
                ));
            }
        }
        Ok(m)
    }

    /// `src => dst` of a copy.
    fn copy_operands(&mut self, stmt: &str) -> PResult<(ExprId, CopyDst)> {
        let src = self.copy_operand()?;
        if self.eat_op("=>").is_none() {
            return Err(self.unexpected_help(
                codes::BAD_COPY,
                &format!("`=>` and a destination after the `{stmt}` source"),
                &format!("write `{stmt} src => dst;`"),
            ));
        }
        let dst = match self.peek_ident() {
            Some(w @ ("shared" | "local" | "global")) if self.punct_at(self.pos + 1, ';') => {
                let w = w.to_string();
                let span = self.here();
                self.bump();
                match MemSpace::from_name(&w) {
                    Some(MemSpace::Global) | None => {
                        return Err(self.error(
                            Diagnostic::new(codes::BAD_COPY, span, "a copy cannot create a `global` buffer")
                                .with_help("copy into an existing global tensor, or into fresh `shared`/`local`"),
                        ));
                    }
                    Some(space) => CopyDst::Fresh(space),
                }
            }
            _ => CopyDst::Expr(self.copy_operand()?),
        };
        Ok((src, dst))
    }

    /// One operand of a copy. A tiling that picks no tile (`t.subspan(A, B)`, with or without
    /// `.step(…)`) stands for its first tile there, as in Croqtile: it becomes
    /// `t.subspan(A, B).at(0, 0)`, spanned as written.
    pub(crate) fn copy_operand(&mut self) -> PResult<ExprId> {
        let e = self.expr()?;
        let tiling = |p: &Self, e: ExprId| match &p.exprs[e] {
            Expr::View {
                op: ViewOp::Subspan,
                args,
                ..
            } => Some(args.len()),
            Expr::View {
                op: ViewOp::Step,
                base,
                ..
            } => match &p.exprs[*base] {
                Expr::View {
                    op: ViewOp::Subspan,
                    args,
                    ..
                } => Some(args.len()),
                _ => None,
            },
            _ => None,
        };
        let Some(rank) = tiling(self, e) else {
            return Ok(e);
        };
        let span = self.exprs.get_span(e);
        let args = (0..rank)
            .map(|_| self.add_expr(Expr::Int(0), span))
            .collect();
        Ok(self.add_expr(
            Expr::View {
                base: e,
                op: ViewOp::At,
                args,
            },
            span,
        ))
    }

    /// `dma.copy[.async] src => dst;` or `dma.wait N;`
    pub(crate) fn dma(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        let op = self.namespace_op("dma", DMA_OPS)?;
        if op.name == "wait" {
            if self.is_op(";") {
                return Err(self.unexpected_help(
                    codes::EXPECTED,
                    "the number of copies that may stay in flight",
                    "write `dma.wait 0;` (all copies done) or `dma.wait STAGES - 1;`",
                ));
            }
            let pending = self.expr()?;
            self.expect_semi("`dma.wait`")?;
            return Ok(self.add_stmt(Stmt::DmaWait { pending }, self.span_from(first)));
        }
        let m = self.modifiers("dma.copy", &["async"])?;
        let (src, dst) = self.copy_operands("dma.copy")?;
        self.expect_semi("the copy")?;
        Ok(self.add_stmt(
            Stmt::DmaCopy {
                is_async: m.is_async.is_some(),
                zfill: false,
                src,
                dst,
            },
            self.span_from(first),
        ))
    }

    /// `[bind =] tma.copy|load[.async[<ev>]][.swiz<N>] src => dst;`. The cursor is at `tma`;
    /// `bind` spans the bound name.
    pub(crate) fn tma(&mut self, bind: Option<Ident>) -> PResult<StmtId> {
        let first = self.pos;
        let op = self.namespace_op("tma", TMA_OPS)?;
        let stmt = format!("tma.{}", op.name);
        let m = self.modifiers(&stmt, &["async", "async<>", "swiz", "multicast"])?;
        if let (None, Some(span), None) = (&bind, m.is_async, m.event) {
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_COPY,
                    span,
                    format!("`{stmt}.async` needs an event to complete"),
                )
                .with_help(format!(
                    "name one (`{stmt}.async<full[s]> …`) or bind the load: `f = {stmt}.async …;`"
                )),
            ));
        }
        let (src, dst) = self.copy_operands(&stmt)?;
        if let (Some(b), None) = (&bind, m.is_async) {
            // `f = tma.copy src => shared;`: a synchronous copy whose future names the data.
            self.expect_semi("the copy")?;
            let span = b.span.join(self.span_from(first));
            let modifiers = m
                .swizzle
                .map(|sw| (Ident::new("swiz", self.exprs.get_span(sw)), vec![sw]))
                .into_iter()
                .collect();
            if let (Some(b), crate::ir::CopyDst::Fresh(_)) = (&bind, &dst) {
                self.record_fresh_shape(&b.name, src);
            }
            let id = self.add_stmt(
                Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                    tma: true,
                    bind,
                    is_async: false,
                    modifiers,
                    src,
                    dst,
                    after: None,
                }),
                span,
            );
            self.multicast.extend(m.multicast.map(|sp| (id, sp)));
            return Ok(id);
        }
        self.expect_semi("the copy")?;
        let span = match &bind {
            Some(b) => b.span.join(self.span_from(first)),
            None => self.span_from(first),
        };
        if let (Some(b), CopyDst::Fresh(_)) = (&bind, &dst) {
            self.record_fresh_shape(&b.name, src);
        }
        let id = self.add_stmt(
            Stmt::TmaCopy {
                event: m.event,
                swizzle: m.swizzle,
                src,
                dst,
                bind,
            },
            span,
        );
        self.multicast.extend(m.multicast.map(|sp| (id, sp)));
        Ok(id)
    }

    /// Whether the statement from the cursor to its `;` has a `,` outside brackets (the
    /// two-operand form `mma.load src, t;`).
    fn load_into_ahead(&self) -> bool {
        let mut depth = 0i32;
        let mut i = self.pos;
        while let Some(k) = self.kind_at(i) {
            match k {
                super::lexer::TokKind::Open(_) => depth += 1,
                super::lexer::TokKind::Close(_) => depth -= 1,
                super::lexer::TokKind::Punct { ch: ';', .. } if depth == 0 => return false,
                super::lexer::TokKind::Punct { ch: ',', .. } if depth == 0 => return true,
                _ => {}
            }
            if depth < 0 {
                return false;
            }
            i += 1;
        }
        false
    }

    /// `mma.<a>.<b> acc, a, b;`, `mma.store acc, dst;`, `mma.commit;` (unbound forms).
    pub(crate) fn mma(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        let op = self.namespace_op("mma", MMA_OPS)?;
        let s = match op.name.as_str() {
            // `mma.load src, t;`: into the registers of a declared `frag` tile.
            "load" if self.load_into_ahead() => {
                let src = self.expr()?;
                self.expect_op(",", "between the source and the `frag` tile")?;
                let dst = self.expr()?;
                self.expect_semi("`mma.load`")?;
                return Ok(self.add_stmt(
                    Stmt::Ext(crate::ir::ExtStmt::LoadInto { src, dst }),
                    self.span_from(first),
                ));
            }
            "fill" | "load" => {
                let msg = format!(
                    "`mma.{}` produces a fragment that must be bound to a name",
                    op.name
                );
                let help = if op.name == "fill" {
                    "write `mc = mma.fill.f16 0.0f;`"
                } else {
                    "write `ma = mma.load src;`"
                };
                return Err(
                    self.error(Diagnostic::new(codes::BAD_MMA, op.span, msg).with_help(help))
                );
            }
            "commit" => Stmt::MmaCommit,
            "store" => {
                let mut mods = crate::ir::StoreMods::default();
                let mut mask = false;
                while self.eat_op(".").is_some() {
                    let md = self.expect_ident("a modifier of `mma.store` (`transp` or `mask`)")?;
                    let rep = match md.name.as_str() {
                        "transp" => std::mem::replace(&mut mods.transpose, true),
                        "mask" => std::mem::replace(&mut mask, true),
                        _ => {
                            let msg = format!("unknown modifier `.{}` on `mma.store`", md.name);
                            return Err(self.error(
                                Diagnostic::new(codes::BAD_MODIFIER, md.span, msg)
                                    .with_help("`mma.store` accepts `.transp` (store the transpose) and `.mask` (`mma.store.mask mc, dst, rows[, cols];`)"),
                            ));
                        }
                    };
                    if rep {
                        let msg = format!("`.{}` is repeated on `mma.store`", md.name);
                        return Err(self.error(Diagnostic::new(codes::BAD_MODIFIER, md.span, msg)));
                    }
                }
                if self.peek_ident().is_none() {
                    return Err(self.unexpected_help(
                        codes::EXPECTED,
                        "the accumulator fragment after `mma.store`",
                        STORE_HELP,
                    ));
                }
                let (acc, view) = if self.at_acc_element(self.pos) {
                    (self.acc_ref("the accumulator fragment")?, None)
                } else {
                    let src = self.expr()?;
                    self.stored_fragment(src)?
                };
                self.expect_op(",", "between the accumulator and the destination")?;
                let dst = self.expr()?;
                if mask {
                    self.expect_op(",", "and the row guard of `mma.store.mask`")?;
                    let rows = self.expr()?;
                    let cols = match self.eat_op(",") {
                        Some(_) => Some(self.expr()?),
                        None => None,
                    };
                    mods.mask = Some((rows, cols));
                }
                Stmt::MmaStore {
                    acc,
                    view,
                    dst,
                    mods,
                }
            }
            _ => return self.mma_op(first, &op, None),
        };
        self.expect_semi(&format!("`mma.{}`", op.name))?;
        let id = self.add_stmt(s, self.span_from(first));
        self.expand_dyn_acc(id)
    }

    /// `[f =] mma.<a>.<b>[.scale][.async] acc, a, b[, sa, sb];` after `mma.<a>`: `future` is
    /// the bound name of an `.async` one.
    fn mma_op(&mut self, first: usize, op: &Ident, future: Option<Ident>) -> PResult<StmtId> {
        let a_major = major(&op.name).unwrap_or(Major::Row);
        self.expect_op(".", &format!("and the B layout after `mma.{}`", op.name))?;
        let b = self.expect_ident("the B layout (`row` or `col`)")?;
        let Some(b_major) = major(&b.name) else {
            let msg = format!("unknown operand layout `{}`", b.name);
            return Err(self.error(
                Diagnostic::new(codes::BAD_MMA, b.span, msg)
                    .with_help("layouts are `row` and `col`"),
            ));
        };
        let (mut scaled, mut is_async, mut sp) = (false, false, false);
        let mut sparse = None;
        while self.eat_op(".").is_some() {
            let md = self.expect_ident("a modifier of `mma` (`sp`, `scale` or `async`)")?;
            let flag = match md.name.as_str() {
                "sp" => {
                    sparse = Some(md.span);
                    &mut sp
                }
                "scale" => &mut scaled,
                "async" => &mut is_async,
                _ => {
                    let msg = format!("unknown modifier `.{}` on `mma`", md.name);
                    return Err(self.error(
                        Diagnostic::new(codes::BAD_MODIFIER, md.span, msg).with_help(
                            "`mma.<a>.<b>` takes `.sp` (`mma.row.row.sp acc, a, b, meta;`, a 2:4 sparse A), `.scale` (`mma.row.row.scale acc, a, b, scale_a, scale_b;`) and `.async` (`f = mma.row.row.async acc, a, b;` … `wait f;`)",
                        ),
                    ));
                }
            };
            if std::mem::replace(flag, true) {
                let msg = format!("`.{}` is repeated on `mma`", md.name);
                return Err(self.error(Diagnostic::new(codes::BAD_MODIFIER, md.span, msg)));
            }
        }
        if let Some(f) = &future
            && !is_async
        {
            let msg = format!(
                "`{} = mma.{}.{}` binds a future, but the `mma` is not `.async`",
                f.name, op.name, b.name
            );
            return Err(
                self.error(
                    Diagnostic::new(codes::BAD_MMA, f.span, msg).with_help(format!(
                        "write `{} = mma.{}.{}.async …;` and later `wait {};`",
                        f.name, op.name, b.name, f.name
                    )),
                ),
            );
        }
        let acc = self.acc_ref("the accumulator fragment")?;
        self.expect_op(",", "after the accumulator")?;
        let a = self.mma_operand("A", first)?;
        self.expect_op(",", "after the A fragment")?;
        let b = self.mma_operand("B", first)?;
        // A scaled `mma` takes its scales where a sparse one takes its metadata.
        let meta = match scaled && sparse.is_none() {
            true => None,
            false => self.sparse_metadata(sparse, first)?,
        };
        let scales = match scaled {
            true => {
                self.expect_op(",", "and the A-side scale of `mma….scale`")?;
                let lhs = self.expr()?;
                self.expect_op(",", "and the B-side scale of `mma….scale`")?;
                Some((lhs, self.expr()?))
            }
            false => None,
        };
        self.expect_semi(&format!("`mma.{}`", op.name))?;
        let id = self.add_stmt(
            Stmt::Mma {
                a_major,
                b_major,
                acc,
                a,
                b,
            },
            self.span_from(first),
        );
        if let (Some(span), Some(meta)) = (sparse, meta) {
            self.sparse.push(crate::ir::SparseMma {
                stmt: id,
                meta,
                span,
            });
        }
        if let Some((lhs, rhs)) = scales {
            self.mma_scales
                .push(crate::ir::MmaScale { stmt: id, lhs, rhs });
        }
        if self.dyn_acc.is_some() && (sparse.is_some() || scaled || is_async) {
            self.dyn_acc = None;
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_MMA,
                    self.span_from(first),
                    "a run-time index into an accumulator array names a plain `mma`'s accumulator only",
                )
                .with_help("index the accumulator with integer literals"),
            ));
        }
        if is_async {
            if let Some(f) = &future {
                self.bind(&f.name);
            }
            self.mma_async.push((id, future));
        }
        self.expand_dyn_acc(id)
    }

    /// The fourth operand of `mma.<a>.<b>.sp` (the metadata fragment, or a shared view read
    /// directly); a fourth operand without `.sp` is an error.
    fn sparse_metadata(&mut self, sparse: Option<Span>, first: usize) -> PResult<Option<Ident>> {
        if sparse.is_none() {
            if self.is_op(",") {
                let span = self.here();
                return Err(self.error(
                    Diagnostic::new(
                        codes::BAD_MMA,
                        span,
                        "`mma` takes three operands; a fourth (sparsity metadata) needs `.sp`",
                    )
                    .with_help("write `mma.row.row.sp acc, a, b, meta;` for a 2:4 sparse A, or drop the fourth operand"),
                ));
            }
            return Ok(None);
        }
        if !self.is_op(",") {
            let span = self.here();
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_MMA,
                    span,
                    "`mma….sp` takes four operands: the accumulator, A, B and the sparsity metadata",
                )
                .with_help("write `me = mma.load meta_s;` and `mma.row.row.sp acc, a, b, me;`"),
            ));
        }
        self.eat_op(",");
        Ok(Some(self.mma_operand("metadata", first)?))
    }

    /// An operand of `mma.<a>.<b>`: a loaded fragment's name, or — today's Croqtile — a shared
    /// tensor or view of one read directly (`mma.row.row mc, lhs_s.chunkat(_, k), rhs_s;`),
    /// which becomes an `mma.load` into a fragment named `direct$<role><n>` placed just before
    /// the `mma` (the `$` keeps it apart from every name a user can write).
    fn mma_operand(&mut self, role: &str, first: usize) -> PResult<Ident> {
        let start = self.pos;
        let e = self.expr()?;
        if let Expr::Name(n) = &self.exprs[e]
            && !self.shapes.iter().any(|(k, _)| k == n)
            && !self.fresh_shared_future(n)
        {
            return Ok(Ident::new(n.clone(), self.exprs.get_span(e)));
        }
        let span = self.span_from(start);
        let name = Ident::new(
            format!("direct${}{}", role.to_lowercase(), self.stmts.len()),
            span,
        );
        self.bind(&name.name);
        let load = self.add_stmt(
            Stmt::MmaLoad {
                name: name.clone(),
                swizzle: None,
                src: e,
            },
            span.join(self.span(first, first)),
        );
        self.pre_stmts.push(load);
        Ok(name)
    }

    /// Whether `name` is the future of a copy into a fresh shared buffer
    /// (`f = tma.copy … => shared;`): the name is that shared tile.
    fn fresh_shared_future(&self, name: &str) -> bool {
        self.stmts.iter().any(|(_, s)| match s {
            Stmt::TmaCopy {
                bind: Some(b),
                dst: CopyDst::Fresh(MemSpace::Shared),
                ..
            }
            | Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                bind: Some(b),
                dst: CopyDst::Fresh(MemSpace::Shared),
                ..
            }) => b.name == name,
            _ => false,
        })
    }

    /// The first operand of `mma.store`: an accumulator name, or a view chain on one
    /// (`mc.subspan(64, W).at(0, j)`, `mc.chunkat(_, j)`): the name and, for a view, the view.
    fn stored_fragment(&mut self, src: ExprId) -> PResult<(Ident, Option<ExprId>)> {
        let mut root = src;
        while let Expr::View { base, .. } = &self.exprs[root] {
            root = *base;
        }
        match &self.exprs[root] {
            Expr::Name(n) => {
                let acc = Ident::new(n.clone(), self.exprs.get_span(root));
                Ok((acc, (root != src).then_some(src)))
            }
            _ => {
                let span = self.exprs.get_span(src);
                Err(self.error(
                    Diagnostic::new(
                        codes::BAD_MMA,
                        span,
                        "`mma.store` stores an accumulator or a view of its columns",
                    )
                    .with_help(STORE_HELP),
                ))
            }
        }
    }

    /// `name = mma.fill.<dtype> v;` or `name = mma.load[.swiz<N>] src;`. The cursor is at
    /// `mma`; `first` is the name's token.
    pub(crate) fn mma_bound(&mut self, first: usize, name: Ident) -> PResult<StmtId> {
        let op = self.namespace_op("mma", MMA_OPS)?;
        let s =
            match op.name.as_str() {
                "fill" => {
                    // Without a type the accumulator is f32 (Croqtile's default).
                    let dtype = if self.eat_op(".").is_some() {
                        self.dtype()?.0
                    } else {
                        crate::ir::DType::F32
                    };
                    let value = self.expr()?;
                    Stmt::MmaFill { name, dtype, value }
                }
                "load" => {
                    let m = self.modifiers("mma.load", &["swiz", "frag"])?;
                    let src = self.expr()?;
                    let load = Stmt::MmaLoad {
                        name,
                        swizzle: m.swizzle,
                        src,
                    };
                    if m.frag.is_some() {
                        self.expect_semi("`mma.load.frag`")?;
                        let id = self.add_stmt(load, self.span_from(first));
                        self.frag_loads.push(id);
                        return Ok(id);
                    }
                    load
                }
                "row" | "col" => return self.mma_op(first, &op, Some(name)),
                other => {
                    let msg = format!("`mma.{other}` does not produce a value");
                    return Err(self.error(
                        Diagnostic::new(codes::BAD_MMA, op.span, msg).with_help(format!(
                            "remove `{} =`; only `mma.fill` and `mma.load` bind",
                            name.name
                        )),
                    ));
                }
            };
        self.expect_semi(&format!("`mma.{}`", op.name))?;
        Ok(self.add_stmt(s, self.span_from(first)))
    }

    /// `wait e;`, `trigger e;`, `trigger e after f;`.
    pub(crate) fn event_stmt(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        let is_wait = self.bump_kw("wait");
        let event = self.expr()?;
        let s = if is_wait {
            Stmt::Wait { event }
        } else {
            let after = match self.eat_kw("after") {
                Some(_) => Some(self.expect_ident("the bound load after `after`")?),
                None => None,
            };
            Stmt::Trigger { event, after }
        };
        self.expect_semi(if is_wait { "`wait`" } else { "`trigger`" })?;
        Ok(self.add_stmt(s, self.span_from(first)))
    }

    /// `sync.shared;`
    pub(crate) fn sync(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        self.namespace_op("sync", SYNC_OPS)?;
        self.expect_semi("`sync.shared`")?;
        Ok(self.add_stmt(Stmt::SyncShared, self.span_from(first)))
    }

    /// `reduce.sum x : group;` / `reduce.max x : group;`
    pub(crate) fn reduce(&mut self) -> PResult<StmtId> {
        let first = self.pos;
        let op = self.namespace_op("reduce", REDUCE_OPS)?;
        let op = ReduceOp::from_name(&op.name).unwrap_or(ReduceOp::Sum);
        let target = self.expect_ident("the scalar to reduce")?;
        if self.eat_op(":").is_none() {
            return Err(self.unexpected_help(
                codes::EXPECTED,
                "`:` and the level the reduction spans",
                &format!(
                    "write `reduce.{} {} : group;` (across the 32 threads of a warp)",
                    op.name(),
                    target.name
                ),
            ));
        }
        let (level, level_span) = self.level()?;
        self.expect_semi("`reduce`")?;
        Ok(self.add_stmt(
            Stmt::Reduce {
                op,
                target,
                level,
                level_span,
            },
            self.span_from(first),
        ))
    }

    /// Consumes the identifier at the cursor; whether it was `kw`.
    fn bump_kw(&mut self, kw: &str) -> bool {
        let is = self.is_kw(kw);
        self.bump();
        is
    }
}

fn major(s: &str) -> Option<Major> {
    match s {
        "row" => Some(Major::Row),
        "col" => Some(Major::Col),
        _ => None,
    }
}
