//! Expressions: names bound by kind (a value, a tensor or an event is expected at each
//! position), `_` only inside `.chunkat`, the built-in functions, assignment targets.

use super::{R, Want};
use crate::check::{Binding, at_expr, codes, suggest};
use crate::diag::Diagnostic;
use crate::ir::{Expr, ExprId, Stmt, ViewOp};

impl R<'_> {
    fn kind_error(&mut self, e: ExprId, found: &str, want: Want) {
        let (expected, help) = match want {
            Want::Value => (
                "a value (a number, a scalar or a tensor element)",
                "use one element of it, e.g. `t.at(i, j)`",
            ),
            Want::Tensor => (
                "a tensor or view",
                "copies and mma loads/stores take tensors, e.g. `lhs.subspan(TM, TK).at(i, k)`",
            ),
            Want::Event => (
                "an event or a copy future",
                "name an event (`shared event name;`) or a copy's future (`f = dma.copy … => shared;`)",
            ),
            Want::Any => ("a name", "name a value, tensor, event or future"),
        };
        self.diags.push(
            at_expr(
                self.m,
                codes::WRONG_KIND,
                e,
                format!("expected {expected}, found {found}"),
            )
            .with_help(help),
        );
    }

    pub(super) fn expr(&mut self, e: ExprId, want: Want, wildcard_ok: bool) {
        let m = self.m;
        match &m.exprs[e] {
            Expr::Int(_) | Expr::Float { .. } | Expr::Bool(_) => {
                if want != Want::Value && want != Want::Any {
                    self.kind_error(e, "a literal", want);
                }
            }
            Expr::Name(n) => match self.lookup(n) {
                None => self.unknown(n, m.expr_span(e), want),
                Some(b) => {
                    self.out.bindings.insert(e, b);
                    let found = match b {
                        // A scalar parameter (`int d`) is a value.
                        Binding::Param(i)
                            if m.kernel.params.get(i).is_some_and(|p| p.shape.is_empty()) =>
                        {
                            None
                        }
                        Binding::Param(_) | Binding::Tensor(..) => Some("tensor"),
                        Binding::Event(..) => Some("event"),
                        Binding::Frag(_) => Some("mma fragment"),
                        Binding::Future(_) => Some("copy future"),
                        _ => None,
                    };
                    let elem = matches!(b, Binding::Frag(_)) && self.elem_frags.contains(n);
                    let ok = match want {
                        Want::Value => found.is_none() || elem,
                        // A future of a copy into fresh storage also names that data.
                        Want::Tensor => matches!(
                            b,
                            Binding::Param(_) | Binding::Tensor(..) | Binding::Future(_)
                        ),
                        Want::Event => matches!(b, Binding::Event(..) | Binding::Future(_)),
                        Want::Any => true,
                    };
                    if !ok {
                        let what = format!("{} `{n}`", found.unwrap_or("the integer"));
                        self.kind_error(e, &what, want);
                    }
                }
            },
            Expr::Wildcard => {
                if !wildcard_ok {
                    self.diags.push(
                        at_expr(
                            m,
                            codes::WILDCARD,
                            e,
                            "`_` is only allowed as an index of `.chunkat(…)` or a size of `.subspan(…)` or `.view(…)`",
                        )
                        .with_help(
                            "name the index, or keep a dimension whole with `.chunkat(_, k)` or `.subspan(BM, _)`",
                        ),
                    );
                }
            }
            Expr::Unary { expr, .. } => {
                self.expr(*expr, Want::Value, false);
                self.value_only(e, want);
            }
            Expr::Binary { lhs, rhs, .. }
            | Expr::Compose {
                outer: lhs,
                inner: rhs,
            } => {
                self.expr(*lhs, Want::Value, false);
                self.expr(*rhs, Want::Value, false);
                self.value_only(e, want);
            }
            Expr::Call { func, args } => {
                let arity = crate::ir::builtin_arity(&func.name);
                if func.name == "ituple" || (func.name == "select" && args.len() > 3) {
                    // `{a, b}`: any number of values; `select(i, a, b, c, …)`: the `i`-th.
                } else if arity.is_none() {
                    let mut d = Diagnostic::new(
                        codes::BAD_CALL,
                        func.span,
                        format!("unknown function `{}`", func.name),
                    );
                    d = match suggest::nearest(&func.name, ["cdiv", "min", "max"]) {
                        Some(s) => d.with_help(format!("did you mean `{s}`?")),
                        None => d.with_help("the built-in functions are `cdiv`, `min` and `max`"),
                    };
                    self.diags.push(d);
                } else if arity != Some(args.len()) {
                    let n = arity.unwrap_or(2);
                    self.diags.push(
                        at_expr(
                            m,
                            codes::BAD_CALL,
                            e,
                            format!(
                                "`{}` takes {n} argument{}, found {}",
                                func.name,
                                if n == 1 { "" } else { "s" },
                                args.len()
                            ),
                        )
                        .with_help(if n == 1 {
                            format!("write `{}(x)`", func.name)
                        } else {
                            format!("write `{}(a, b)`", func.name)
                        }),
                    );
                }
                for &a in args {
                    self.expr(a, Want::Value, false);
                }
                self.value_only(e, want);
            }
            Expr::Index { base, index } => {
                let bw = if want == Want::Event {
                    Want::Event
                } else {
                    Want::Tensor
                };
                self.expr(*base, bw, false);
                self.expr(*index, Want::Value, false);
                if want == Want::Value {
                    self.kind_error(e, "a tensor array element", want);
                }
            }
            Expr::View { base, op, args } if want == Want::Event && *op == ViewOp::At => {
                // `e.at(k)`: a generation of an event.
                self.expr(*base, Want::Event, false);
                for &a in args {
                    self.expr(a, Want::Value, false);
                }
                if args.len() != 1 {
                    self.diags.push(
                        at_expr(
                            m,
                            codes::WRONG_KIND,
                            e,
                            format!(
                                "an event generation `e.at(k)` takes one index, found {}",
                                args.len()
                            ),
                        )
                        .with_help("name the generation with one integer, e.g. `full.at(k)`"),
                    );
                }
            }
            // `acc.at(i, j)` inside `apply {i, j} in acc.span`: an element of the fragment.
            Expr::View {
                base,
                op: ViewOp::At,
                args,
            } if matches!(&m.exprs[*base], Expr::Name(n) if self.elem_frags.contains(n)) => {
                self.fragment_view(*base);
                for &a in args {
                    self.expr(a, Want::Value, false);
                }
                if want == Want::Event || want == Want::Tensor {
                    self.kind_error(e, "a fragment element", want);
                }
            }
            Expr::View { base, op, args } => {
                self.expr(*base, Want::Tensor, false);
                // Element access goes through the copied data (`f.data.at(i)`); tiles of a
                // future's data may be taken directly (`f.chunkat(_, k)`).
                if *op == ViewOp::At
                    && let Expr::Name(n) = &m.exprs[*base]
                    && matches!(self.lookup(n), Some(Binding::Future(_)))
                {
                    self.diags.push(
                        at_expr(
                            m,
                            codes::WRONG_KIND,
                            *base,
                            format!("`{n}` is a copy future, not a tensor"),
                        )
                        .with_help(format!("view the copied data: `{n}.data.{}(…)`", op.name())),
                    );
                }
                for &a in args {
                    self.expr(a, Want::Value, op.keeps_whole());
                }
                let value_op = matches!(op, ViewOp::At | ViewOp::SpanOf);
                if want == Want::Event || (want == Want::Value && !value_op) {
                    self.kind_error(e, &format!("a `.{}` view", op.name()), want);
                }
            }
            Expr::Field { base, field } if field.name == "span" => {
                // `t.span`: the shape of a tensor (a value list).
                self.expr(*base, Want::Tensor, false);
                if want == Want::Event {
                    self.kind_error(e, "a shape `.span`", want);
                }
            }
            Expr::Field { base, field } => {
                let ok = matches!(&m.exprs[*base], Expr::Name(n) if matches!(self.lookup(n), Some(Binding::Future(_))));
                if ok {
                    if let Expr::Name(n) = &m.exprs[*base]
                        && let Some(b) = self.lookup(n)
                    {
                        self.out.bindings.insert(*base, b);
                    }
                } else {
                    self.expr(*base, Want::Tensor, false);
                }
                if field.name != "data" || !ok {
                    self.diags.push(
                        Diagnostic::new(
                            codes::BAD_CALL,
                            field.span,
                            format!("unknown field `.{}`", field.name),
                        )
                        .with_help(
                            "only a copy future has a field: `f.data`, the copy's destination",
                        ),
                    );
                }
                if want != Want::Tensor && want != Want::Any {
                    self.kind_error(e, "a tensor", want);
                }
            }
        }
    }

    /// The view of an accumulator in `mma.store acc.subspan(…).at(…), dst`: the indices and
    /// sizes are values; the root name (the parser made it the statement's `acc`, resolved as
    /// `Role::Acc`) is bound like any name, so later passes can find the fragment.
    pub(super) fn fragment_view(&mut self, e: ExprId) {
        let m = self.m;
        match &m.exprs[e] {
            Expr::View { base, op, args } => {
                self.fragment_view(*base);
                for &a in args {
                    self.expr(a, Want::Value, op.keeps_whole());
                }
            }
            Expr::Name(n) => {
                if let Some(b) = self.lookup(n) {
                    self.out.bindings.insert(e, b);
                }
            }
            _ => self.expr(e, Want::Tensor, false),
        }
    }

    fn value_only(&mut self, e: ExprId, want: Want) {
        if want != Want::Value && want != Want::Any {
            self.kind_error(e, "an arithmetic expression", want);
        }
    }

    /// Whether `b` is a scalar declared without `mutable` (an `int` or `bool`); if so, reports
    /// the update of `n` at `at` (E0106).
    pub(super) fn immutable_scalar(&mut self, b: Binding, n: &str, at: crate::span::Span) -> bool {
        let m = self.m;
        let Binding::Scalar(d) = b else {
            return false;
        };
        let Stmt::ScalarDecl {
            dtype,
            mutable: false,
            ..
        } = &m.stmts[d]
        else {
            return false;
        };
        self.diags.push(
            Diagnostic::new(codes::NOT_ASSIGNABLE, at, format!("cannot assign to `{n}`: an `{dtype}` declared without `mutable` is immutable"))
                .with_note(m.stmt_span(d), format!("`{n}` is declared here"))
                .with_help(format!("declare it `mutable {dtype} {n} = …;` to update it, or give the new value a name of its own")),
        );
        true
    }

    pub(super) fn assign_target(&mut self, t: ExprId) {
        let m = self.m;
        match &m.exprs[t] {
            Expr::Name(n) => match self.lookup(n) {
                None => self.unknown(n, m.expr_span(t), Want::Value),
                Some(b) => {
                    self.out.bindings.insert(t, b);
                    let elem = matches!(b, Binding::Frag(_)) && self.elem_frags.contains(n);
                    let immutable = self.immutable_scalar(b, n, m.expr_span(t));
                    if !immutable && !matches!(b, Binding::Scalar(_)) && !elem {
                        self.diags.push(
                            at_expr(m, codes::NOT_ASSIGNABLE, t, format!("cannot assign to `{n}`: only scalars and tensor elements are assignable"))
                                .with_help("bindings (`x = expr;`), loop variables and header names are immutable; declare a mutable scalar (`mutable int x = 0;`) to update it"),
                        );
                    }
                }
            },
            Expr::View { op: ViewOp::At, .. } => self.expr(t, Want::Value, false),
            _ => {
                self.expr(t, Want::Value, false);
                self.diags.push(
                    at_expr(
                        m,
                        codes::NOT_ASSIGNABLE,
                        t,
                        "this expression cannot be assigned to",
                    )
                    .with_help("assign to a scalar or to a tensor element `t.at(i, j)`"),
                );
            }
        }
    }
}
