//! The module level: header items (`tunable`, `const`, `require`, `#define`, in any order)
//! and the `__co__` kernel signature. Header names are bound in the outermost scope, the
//! parameters in the kernel's.

use super::codes;
use super::cursor::{PResult, Parser, Reported};
use super::lexer::Delim;
use crate::diag::Diagnostic;
use crate::ir::{Constant, DType, Ident, Kernel, MemSpace, Param, Require, Returns, Tunable};
use crate::span::Span;

/// Most values a range domain may expand to.
const MAX_DOMAIN: i64 = 4096;
const ITEMS: &[&str] = &[
    "tunable",
    "const",
    "require",
    "raster",
    "persistent",
    "pingpong",
    "streamk",
    "cluster",
    "occupancy",
    "promote",
    "__co__",
];

/// Everything parsed at the module level.
#[derive(Default)]
pub(crate) struct Items {
    pub tunables: Vec<Tunable>,
    pub constants: Vec<Constant>,
    pub requires: Vec<Require>,
    pub raster: Option<crate::ir::ExprId>,
    pub persistent: Option<crate::ir::ExprId>,
    /// `pingpong;`: the consumer warpgroups take turns on whole tiles.
    pub pingpong: Option<Span>,
    /// `streamk;`: the last partial wave's tiles split by k-iterations over every unit.
    pub streamk: Option<Span>,
    pub cluster: Option<crate::ir::ExprId>,
    /// `cluster nonportable;`: the opt-in to clusters of 9..=16 blocks.
    pub cluster_nonportable: Option<Span>,
    pub occupancy: Option<crate::ir::ExprId>,
    pub promote: Option<crate::ir::ExprId>,
    pub kernel: Option<Kernel>,
}

impl Parser {
    /// Parses the whole token vector. Diagnostics go to `self.diags`.
    pub(crate) fn items(&mut self) -> Items {
        let mut items = Items::default();
        let mut saw_kernel = false;
        while !self.at_end() {
            saw_kernel |= self.is_kw("__co__");
            let before = self.pos;
            let kernel_seen = items.kernel.is_some();
            if kernel_seen && !self.starts_item() {
                let span = self.here();
                let msg = format!("unexpected {} after the kernel", self.describe(self.pos));
                self.error(Diagnostic::new(codes::BAD_KERNEL, span, msg).with_help(
                    "the `__co__` kernel ends the module; remove what follows its body",
                ));
                break;
            }
            if kernel_seen && !self.is_kw("__co__") && !self.punct_at(self.pos, '#') {
                let span = self.here();
                self.error(
                    Diagnostic::new(
                        codes::BAD_HEADER,
                        span,
                        "header items must come before the `__co__` kernel",
                    )
                    .with_help("move this item above `__co__`"),
                );
            }
            if self.item(&mut items).is_err() {
                self.recover_item();
            }
            if self.pos == before {
                self.skip_one();
            }
        }
        if !saw_kernel {
            let start = crate::span::LineCol { line: 1, col: 0 };
            let span = if self.toks.is_empty() {
                Span {
                    start,
                    end: start,
                    first_token: u32::MAX,
                    last_token: u32::MAX,
                }
            } else {
                self.here()
            };
            self.error(
                Diagnostic::new(codes::BAD_KERNEL, span, "no `__co__` kernel found").with_help(
                    "add `__co__ void name(global f16 [M, K] a, …) { … }` after the header",
                ),
            );
        }
        items
    }

    fn starts_item(&self) -> bool {
        ITEMS.iter().any(|k| self.is_kw(k)) || self.punct_at(self.pos, '#')
    }

    /// Skips to the end of a broken item: past `;` or a `{…}` group, or up to the next item.
    fn recover_item(&mut self) {
        while !self.at_end() && !self.starts_item() {
            if self.eat_op(";").is_some() {
                return;
            }
            let body = self.at_body();
            self.skip_one();
            if body {
                self.eat_op(";");
                return;
            }
        }
    }

    fn item(&mut self, items: &mut Items) -> PResult<()> {
        let word = self.peek_ident().map(str::to_string);
        match word.as_deref() {
            Some("tunable") => items.tunables.push(self.tunable()?),
            Some("const") => items.constants.push(self.constant()?),
            Some("require") => items.requires.push(self.require()?),
            Some("persistent") => {
                let first = self.bump();
                // `persistent;` or `persistent COND;` (a tunable switch: 0 = one block per tile).
                let cond = if self.eat_op(";").is_some() {
                    let span = self.span_from(first);
                    self.add_expr(crate::ir::Expr::Int(1), span)
                } else {
                    let c = self.expr()?;
                    self.expect_semi("the `persistent` switch")?;
                    c
                };
                items.persistent = Some(cond);
            }
            Some("pingpong") => {
                // `pingpong;`: the ping-pong schedule of a persistent kernel (no argument).
                let first = self.bump();
                let span = self.span_from(first);
                self.expect_semi("`pingpong`")?;
                items.pingpong = Some(span);
            }
            Some("streamk") => {
                // `streamk;`: stream-K for a persistent kernel's last wave (no argument).
                let first = self.bump();
                let span = self.span_from(first);
                self.expect_semi("`streamk`")?;
                items.streamk = Some(span);
            }
            Some("cluster") if self.ident_at(self.pos + 1) == Some("nonportable") => {
                // `cluster nonportable;`: allow 9..=16 blocks per `: cluster` level.
                self.bump();
                let span = self.here();
                self.bump();
                self.expect_semi("`cluster nonportable`")?;
                items.cluster_nonportable = Some(span);
            }
            Some("cluster") => {
                self.bump();
                let size = self.expr()?;
                self.expect_semi("the cluster size")?;
                items.cluster = Some(size);
            }
            Some("raster") => {
                self.bump();
                let group = self.expr()?;
                self.expect_semi("the raster group size")?;
                items.raster = Some(group);
            }
            Some("promote") => {
                // `promote P;`: two-level accumulation of 8-bit float WGMMAs (every P k-tiles
                // the partial sums are added into the f32 accumulator; P = 0: off).
                self.bump();
                let every = self.expr()?;
                self.expect_semi("the `promote` interval")?;
                items.promote = Some(every);
            }
            Some("occupancy") => {
                // `occupancy N;`: at least N blocks per SM (`__launch_bounds__(THREADS, N)`).
                self.bump();
                let blocks = self.expr()?;
                self.expect_semi("the `occupancy` block count")?;
                items.occupancy = Some(blocks);
            }
            Some("__co__") => {
                let dup = items.kernel.is_some().then(|| self.here());
                let k = self.kernel()?;
                match dup {
                    Some(span) => {
                        self.error(
                            Diagnostic::new(
                                codes::BAD_KERNEL,
                                span,
                                "a module holds one `__co__` kernel",
                            )
                            .with_help("put the second kernel in its own file or macro invocation"),
                        );
                    }
                    None => items.kernel = Some(k),
                }
            }
            Some("void" | "auto")
                if self.ident_at(self.pos + 1).is_some()
                    && self.open_at(self.pos + 2, Delim::Paren) =>
            {
                let span = self.here();
                self.error(
                    Diagnostic::new(
                        codes::BAD_KERNEL,
                        span,
                        "the kernel function must be marked `__co__`",
                    )
                    .with_help("write `__co__ void name(…)`"),
                );
                return Err(Reported);
            }
            _ if self.punct_at(self.pos, '#') => items.constants.push(self.define()?),
            _ => {
                return Err(self.unexpected_help(
                    codes::BAD_HEADER,
                    "a header item (`tunable`, `const`, `require`, `#define`) or `__co__`",
                    "the file is a header of tunables and constants followed by one `__co__` kernel",
                ));
            }
        }
        Ok(())
    }

    /// An integer literal of a domain, reporting anything else.
    fn domain_value(&mut self, what: &str) -> PResult<i64> {
        match self.int_literal() {
            Some(r) => r.map(|(v, _)| v),
            None => Err(self.unexpected_help(
                codes::BAD_DOMAIN,
                &format!("an integer literal {what}"),
                "write the values `in [4, 8, 16]` or a range `in 8..=64 step 8`",
            )),
        }
    }

    /// `tunable NAME in [a, b] = d;` or `tunable NAME in lo..=hi [step s] = d;`.
    fn tunable(&mut self) -> PResult<Tunable> {
        self.bump();
        let name = self.expect_ident("the tunable's name")?;
        self.bind(&name.name);
        self.const_names.push(name.name.clone());
        if self.eat_kw("in").is_none() {
            return Err(self.unexpected_help(
                codes::BAD_DOMAIN,
                "`in` and the tunable's values",
                &format!("write `tunable {} in [64, 128] = 64;`", name.name),
            ));
        }
        let dom_first = self.pos;
        let domain = if let Some((_, close)) = self.open(Delim::Bracket) {
            let vals = self.comma_list(close, "the value list", |p| {
                p.domain_value("in the value list")
            })?;
            if vals.is_empty() {
                let span = self.span_from(dom_first);
                return Err(self.error(
                    Diagnostic::new(
                        codes::BAD_DOMAIN,
                        span,
                        "a tunable needs at least one value",
                    )
                    .with_help("write `in [64, 128]`"),
                ));
            }
            vals
        } else {
            self.range_domain(dom_first)?
        };
        let domain_span = self.span_from(dom_first);
        if self.eat_op("=").is_none() {
            return Err(self.unexpected_help(
                codes::BAD_DEFAULT,
                "`=` and the tunable's default value",
                &format!("write `= {}` (one of its values)", domain[0]),
            ));
        }
        let default = match self.int_literal() {
            Some(r) => r?,
            None => {
                return Err(self.unexpected_help(
                    codes::BAD_DEFAULT,
                    "an integer literal as the tunable's default",
                    &format!(
                        "the default must be one of its values, written as a number, e.g. `= {}`",
                        domain[0]
                    ),
                ));
            }
        };
        self.expect_semi("the tunable")?;
        Ok(Tunable {
            name,
            domain,
            default: default.0,
            domain_span,
            default_span: default.1,
        })
    }

    /// `lo..=hi [step s]` or `lo..hi [step s]`, expanded.
    fn range_domain(&mut self, first: usize) -> PResult<Vec<i64>> {
        let lo = self.domain_value("or `[` to start the tunable's values")?;
        let inclusive = if self.eat_op("..=").is_some() {
            true
        } else if self.eat_op("..").is_some() {
            false
        } else {
            return Err(self.unexpected_help(
                codes::BAD_DOMAIN,
                "`..=` or `..` after the range start",
                "write a range `8..=64 step 8` or a list `[8, 16]`",
            ));
        };
        let hi = self.domain_value("to end the range")?;
        let step = match self.eat_kw("step") {
            Some(_) => self.domain_value("after `step`")?,
            None => 1,
        };
        let span = self.span_from(first);
        let bad = |msg: String| Diagnostic::new(codes::BAD_DOMAIN, span, msg);
        if step <= 0 {
            return Err(self.error(
                bad(format!("range step must be positive, found {step}"))
                    .with_help("write `step 8`"),
            ));
        }
        let end = if inclusive { hi } else { hi.saturating_sub(1) };
        if end < lo {
            return Err(self.error(
                bad(format!(
                    "the range {lo}{}{hi} is empty",
                    if inclusive { "..=" } else { ".." }
                ))
                .with_help("the start must not exceed the end"),
            ));
        }
        let count = ((end as i128 - lo as i128) / step as i128) + 1;
        if count > MAX_DOMAIN as i128 {
            return Err(self.error(
                bad(format!(
                    "the range has {count} values; at most {MAX_DOMAIN} are allowed"
                ))
                .with_help("use a larger `step`"),
            ));
        }
        Ok((0..count as i64).map(|k| lo + k * step).collect())
    }

    /// `const NAME = expr;`
    fn constant(&mut self) -> PResult<Constant> {
        self.bump();
        let name = self.expect_ident("the constant's name")?;
        self.bind(&name.name);
        self.const_names.push(name.name.clone());
        self.expect_op("=", "and the constant's value")?;
        let value = self.expr()?;
        self.expect_semi("the constant")?;
        Ok(Constant { name, value })
    }

    /// `#define NAME expr` (a trailing `;` is allowed).
    fn define(&mut self) -> PResult<Constant> {
        let hash = self.bump();
        let same_line = self
            .toks
            .get(self.pos)
            .is_some_and(|t| t.start.line == self.toks[hash].end.line);
        match self.peek_ident() {
            Some("define") if same_line => {
                self.bump();
            }
            other => {
                let msg = match other {
                    Some(w) if same_line => format!("unsupported preprocessor directive `#{w}`"),
                    _ => format!(
                        "expected `define` after `#`, found {}",
                        self.describe(self.pos)
                    ),
                };
                let span = self.span(hash, self.pos.min(self.toks.len().saturating_sub(1)));
                return Err(self.error(
                    Diagnostic::new(codes::BAD_HEADER, span, msg)
                        .with_help("only `#define NAME value` is supported"),
                ));
            }
        }
        let name = self.expect_ident("the macro's name after `#define`")?;
        self.bind(&name.name);
        self.const_names.push(name.name.clone());
        let value = self.expr()?;
        self.eat_op(";");
        Ok(Constant { name, value })
    }

    /// `require expr;`
    fn require(&mut self) -> PResult<Require> {
        let first = self.bump();
        let cond = self.expr()?;
        let span = self.span_from(first);
        self.expect_semi("the requirement")?;
        Ok(Require { cond, span })
    }

    /// `__co__ void name(params) { body }`.
    fn kernel(&mut self) -> PResult<Kernel> {
        self.bump();
        let returns = self.kernel_returns()?;
        let name = self.expect_ident("the kernel's name")?;
        let (_, close) = self.expect_open(Delim::Paren, "and the kernel's parameters")?;
        self.push_scope();
        // A broken parameter is reported; the kernel is kept (with the parameters that did
        // parse) so the body is still checked and no "missing kernel" error follows.
        let mut params = Vec::new();
        let _ = self.comma_list(close, "the parameter list", |p| {
            // `stream s`: a CUDA stream for `parallel<s>` launches.
            if p.is_kw("stream") && p.ident_at(p.pos + 1).is_some() {
                p.bump();
                let name = p.expect_ident("the stream's name")?;
                p.bind(&name.name);
                p.streams.push(crate::ir::StreamParam {
                    name,
                    position: params.len(),
                });
                return Ok(());
            }
            let r = p.param();
            if let Ok(param) = &r {
                params.push(param.clone());
            }
            r.map(|_| ())
        });
        let body = self.brace_block("to open the kernel body");
        self.pop_scope();
        Ok(Kernel {
            name,
            params,
            body: body?,
            returns,
        })
    }

    /// What a `__co__` function returns: `void`, `auto` (the type of its `return`), an
    /// element type (`int`, `f32`) or a tensor type (`f32 [N]`, `s32[2]`).
    fn kernel_returns(&mut self) -> PResult<Returns> {
        let first = self.pos;
        match self.peek_ident() {
            Some("void") => {
                self.bump();
                return Ok(Returns::Void);
            }
            Some("auto") => {
                self.bump();
                return Ok(Returns::Auto);
            }
            Some(w) if DType::from_name(w).is_some() => {}
            _ => {
                return Err(self.unexpected_help(
                    codes::BAD_KERNEL,
                    "a return type (`void`, `auto`, an element type) after `__co__`",
                    "write `__co__ void name(…)` or `__co__ auto name(…)`",
                ));
            }
        }
        let (dtype, _) = self.dtype()?;
        // `f32 [N] name(` / `f32 mdspan<2> name(` (a tensor) or `int name(` (a scalar).
        let shape = self.type_shape()?.unwrap_or_default();
        Ok(Returns::Value {
            dtype,
            shape,
            span: self.span_from(first),
        })
    }

    /// A parameter's name; `_` when it has none (`int` followed by `,` or `)`), as
    /// Croqtile allows: an unnamed parameter cannot be referred to.
    fn param_name(&mut self) -> PResult<Ident> {
        if self.punct_at(self.pos, ',') || self.at_end() || self.is_close() {
            return Ok(Ident::new("_", self.after_prev()));
        }
        self.expect_ident("the parameter's name")
    }

    /// The shape after an element type: `[M, K]`, `mdspan[M, K]` or `mdspan<2>` (rank 2,
    /// every dimension unnamed); a `?` dimension is unnamed too. Each unnamed dimension gets
    /// a fresh symbolic name (`?1`, `?2`, …: bound at launch like `M`, never written by the
    /// user). `None` when no shape follows (a scalar).
    pub(crate) fn type_shape(&mut self) -> PResult<Option<Vec<crate::ir::ExprId>>> {
        let mdspan = self.eat_kw("mdspan").is_some();
        if mdspan && self.eat_op("<").is_some() {
            let rank_at = self.here();
            let rank = match self.int_literal() {
                Some(r) => r?.0,
                None => {
                    return Err(self.unexpected_help(
                        codes::EXPECTED,
                        "the rank after `mdspan<`",
                        "write `f32 mdspan<2> a` (a rank-2 tensor of unnamed extents)",
                    ));
                }
            };
            if !(1..=8).contains(&rank) {
                return Err(self.error(
                    Diagnostic::new(
                        codes::EXPECTED,
                        rank_at,
                        format!("an `mdspan` rank is 1 to 8, found {rank}"),
                    )
                    .with_help("write `mdspan<2>`"),
                ));
            }
            self.expect_op(">", "to close `mdspan<…>`")?;
            let span = self.span_from(self.pos - 1);
            return Ok(Some((0..rank).map(|_| self.unnamed_dim(span)).collect()));
        }
        if !self.is_open(Delim::Bracket) {
            if mdspan {
                return Err(self.unexpected_help(
                    codes::EXPECTED,
                    "`[` or `<` after `mdspan`",
                    "write `f32 mdspan[M, K] a` or `f32 mdspan<2> a`",
                ));
            }
            return Ok(None);
        }
        let (_, close) = self.expect_open(Delim::Bracket, "and the shape")?;
        let shape = self.comma_list(close, "the shape", |p| {
            if p.is_op("?") {
                let at = p.here();
                p.bump();
                Ok(p.unnamed_dim(at))
            } else {
                p.expr()
            }
        })?;
        if shape.is_empty() {
            let span = self.span(close, close);
            return Err(self.error(
                Diagnostic::new(
                    codes::EXPECTED,
                    span,
                    "a shape needs at least one dimension",
                )
                .with_help("write `[M, K]`"),
            ));
        }
        Ok(Some(shape))
    }

    fn unnamed_dim(&mut self, span: Span) -> crate::ir::ExprId {
        self.unnamed_dims += 1;
        let name = format!("?{}", self.unnamed_dims);
        self.add_expr(crate::ir::Expr::Name(name), span)
    }

    /// `global f16 [M, K] name` (the memory space may be left out: global).
    fn param(&mut self) -> PResult<Param> {
        let word = self.peek_ident().map(str::to_string);
        let space = match word.as_deref().and_then(MemSpace::from_name) {
            Some(s) => {
                self.bump();
                s
            }
            // No memory space: a global tensor (Croqtile's default for parameters).
            None if word.as_deref().and_then(DType::from_name).is_some() => MemSpace::Global,
            None => {
                return Err(self.unexpected_help(
                    codes::BAD_SPACE,
                    "a parameter (`global f16 [M, K] name`)",
                    "parameters are written `space dtype [dims] name`",
                ));
            }
        };
        let (dtype, dtype_span) = self.dtype()?;
        let Some(shape) = self.type_shape()? else {
            // `int d`: a scalar parameter (a value, no shape); `int` alone: an unnamed one.
            let name = self.param_name()?;
            self.bind(&name.name);
            return Ok(Param {
                name,
                space,
                dtype,
                dtype_span,
                shape: Vec::new(),
            });
        };
        // `f32 [N] &out`: a parameter the caller reads back (every tensor parameter is one).
        self.eat_op("&");
        let name = self.param_name()?;
        self.bind(&name.name);
        self.shapes.push((name.name.clone(), shape.clone()));
        Ok(Param {
            name,
            space,
            dtype,
            dtype_span,
            shape,
        })
    }
}
