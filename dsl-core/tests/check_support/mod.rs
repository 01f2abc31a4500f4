//! Hand-built IR for the checker tests (no dependency on the parser).
//!
//! [`B`] appends statements and expressions to a [`Module`] with synthetic spans: every
//! statement gets a fresh line, every expression node the column of its token inside that
//! line, so each node's span is distinct and tests can compare a diagnostic's span with the
//! span of the node they expect. Expressions are written as small strings (`"cdiv(M, TM)"`)
//! and read by a tiny Pratt reader that only knows expressions.
#![allow(dead_code)]

pub mod kernels;
mod reader;

use dsl_core::check::{Config, Limits, Problem};
use dsl_core::diag::{Diagnostic, Diagnostics};
use dsl_core::ir::*;
use dsl_core::span::{LineCol, Span};

pub struct B {
    pub m: Module,
    line: u32,
    col: u32,
}

fn span(line: u32, c0: u32, c1: u32) -> Span {
    Span {
        start: LineCol { line, col: c0 },
        end: LineCol { line, col: c1 },
        first_token: u32::MAX,
        last_token: u32::MAX,
    }
}

/// A level of a `parallel`: variables, extents, level.
pub type Lvl<'a> = (&'a [&'a str], &'a [&'a str], Level);

impl Default for B {
    fn default() -> Self {
        B::new()
    }
}

impl B {
    pub fn new() -> B {
        B {
            m: Module::new("matmul"),
            line: 1,
            col: 0,
        }
    }

    /// Starts a new source line (each statement does this itself).
    fn next_line(&mut self) -> u32 {
        self.line += 1;
        self.col = 0;
        self.line
    }

    /// An identifier on the current line.
    pub fn id(&mut self, name: &str) -> Ident {
        let c = self.col;
        self.col += name.len() as u32 + 1;
        Ident::new(name, span(self.line, c, c + name.len() as u32))
    }

    /// Reads an expression written in Croqtile syntax.
    pub fn e(&mut self, src: &str) -> ExprId {
        let col = self.col;
        self.col += src.chars().count() as u32 + 1;
        let line = self.line;
        reader::read(self, src, line, col)
    }

    pub fn tunable(&mut self, name: &str, domain: &[i64], default: i64) {
        let l = self.next_line();
        let name = self.id(name);
        self.m.tunables.push(Tunable {
            name,
            domain: domain.to_vec(),
            default,
            domain_span: span(l, 20, 30),
            default_span: span(l, 33, 36),
        });
    }

    pub fn constant(&mut self, name: &str, value: &str) {
        self.next_line();
        let name = self.id(name);
        let value = self.e(value);
        self.m.constants.push(Constant { name, value });
    }

    pub fn require(&mut self, cond: &str) {
        let l = self.next_line();
        let cond = self.e(cond);
        self.m.requires.push(Require {
            cond,
            span: span(l, 0, 40),
        });
    }

    pub fn param(&mut self, space: MemSpace, dtype: DType, shape: &[&str], name: &str) {
        let l = self.next_line();
        let shape = shape.iter().map(|s| self.e(s)).collect();
        let name = self.id(name);
        self.m.kernel.params.push(Param {
            name,
            space,
            dtype,
            dtype_span: span(l, 7, 10),
            shape,
        });
    }

    /// The usual `global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output`.
    pub fn gemm_params(&mut self, dt: DType) {
        self.param(MemSpace::Global, dt, &["M", "K"], "lhs");
        self.param(MemSpace::Global, dt, &["N", "K"], "rhs");
        self.param(MemSpace::Global, dt, &["M", "N"], "output");
    }

    fn stmt(&mut self, s: Stmt, line: u32) -> StmtId {
        self.m.stmts.append(s, span(line, 0, 80))
    }

    pub fn par(&mut self, levels: &[Lvl], body: impl FnOnce(&mut B) -> Vec<StmtId>) -> StmtId {
        let l = self.next_line();
        let levels = levels
            .iter()
            .map(|(vars, exts, level)| {
                let vars = vars.iter().map(|v| self.id(v)).collect();
                let extents = exts.iter().map(|x| self.e(x)).collect();
                let c = self.col;
                self.col += 8;
                ParallelLevel {
                    vars,
                    extents,
                    level: *level,
                    level_span: span(l, c, c + 7),
                }
            })
            .collect();
        let body = body(self);
        self.stmt(Stmt::Parallel { levels, body }, l)
    }

    pub fn foreach(
        &mut self,
        vars: &[&str],
        exts: &[&str],
        body: impl FnOnce(&mut B) -> Vec<StmtId>,
    ) -> StmtId {
        let l = self.next_line();
        let vars = vars.iter().map(|v| self.id(v)).collect();
        let extents = exts.iter().map(|x| self.e(x)).collect();
        let body = body(self);
        self.stmt(
            Stmt::Foreach {
                vars,
                extents,
                unroll: false,
                body,
            },
            l,
        )
    }

    /// `foreach {vars} in [exts] : unroll { body }`.
    pub fn foreach_unroll(
        &mut self,
        vars: &[&str],
        exts: &[&str],
        body: impl FnOnce(&mut B) -> Vec<StmtId>,
    ) -> StmtId {
        let s = self.foreach(vars, exts, body);
        if let Stmt::Foreach { unroll, .. } = &mut self.m.stmts[s] {
            *unroll = true;
        }
        s
    }

    pub fn tensor(
        &mut self,
        space: MemSpace,
        dtype: DType,
        shape: &[&str],
        names: &[(&str, Option<&str>)],
    ) -> StmtId {
        let l = self.next_line();
        let shape = shape.iter().map(|x| self.e(x)).collect();
        let names = self.declarators(names);
        self.stmt(
            Stmt::TensorDecl {
                space,
                dtype,
                dtype_span: span(l, 7, 10),
                shape,
                names,
            },
            l,
        )
    }

    fn declarators(&mut self, names: &[(&str, Option<&str>)]) -> Vec<Declarator> {
        names
            .iter()
            .map(|(n, c)| {
                let name = self.id(n);
                let count = c.map(|c| self.e(c));
                Declarator { name, count }
            })
            .collect()
    }

    pub fn shared(
        &mut self,
        dtype: DType,
        shape: &[&str],
        name: &str,
        count: Option<&str>,
    ) -> StmtId {
        self.tensor(MemSpace::Shared, dtype, shape, &[(name, count)])
    }

    pub fn scalar(&mut self, dtype: DType, name: &str, init: Option<&str>) -> StmtId {
        let l = self.next_line();
        let name = self.id(name);
        let init = init.map(|i| self.e(i));
        let mutable = true;
        self.stmt(
            Stmt::ScalarDecl {
                dtype,
                name,
                init,
                mutable,
            },
            l,
        )
    }

    pub fn events(&mut self, space: MemSpace, names: &[(&str, Option<&str>)]) -> StmtId {
        let l = self.next_line();
        let names = self.declarators(names);
        self.stmt(Stmt::EventDecl { space, names }, l)
    }

    pub fn let_(&mut self, name: &str, value: &str) -> StmtId {
        let l = self.next_line();
        let name = self.id(name);
        let value = self.e(value);
        self.stmt(Stmt::Let { name, value }, l)
    }

    pub fn assign(&mut self, target: &str, op: AssignOp, value: &str) -> StmtId {
        let l = self.next_line();
        let target = self.e(target);
        let value = self.e(value);
        self.stmt(Stmt::Assign { target, op, value }, l)
    }

    pub fn if_(&mut self, cond: &str, then: impl FnOnce(&mut B) -> Vec<StmtId>) -> StmtId {
        let l = self.next_line();
        let cond = self.e(cond);
        let then_body = then(self);
        self.stmt(
            Stmt::If {
                cond,
                then_body,
                else_body: None,
            },
            l,
        )
    }

    pub fn inthreads(&mut self, cond: &str, body: impl FnOnce(&mut B) -> Vec<StmtId>) -> StmtId {
        let l = self.next_line();
        let cond = self.e(cond);
        let body = body(self);
        self.stmt(
            Stmt::InThreads {
                is_async: true,
                cond,
                body,
            },
            l,
        )
    }

    pub fn dma(&mut self, src: &str, dst: &str) -> StmtId {
        let l = self.next_line();
        let src = self.e(src);
        let dst = CopyDst::Expr(self.e(dst));
        self.stmt(
            Stmt::DmaCopy {
                is_async: false,
                zfill: false,
                src,
                dst,
            },
            l,
        )
    }

    pub fn tma(
        &mut self,
        event: Option<&str>,
        swizzle: Option<&str>,
        src: &str,
        dst: &str,
    ) -> StmtId {
        let l = self.next_line();
        let event = event.map(|e| self.e(e));
        let swizzle = swizzle.map(|s| self.e(s));
        let src = self.e(src);
        let dst = CopyDst::Expr(self.e(dst));
        self.stmt(
            Stmt::TmaCopy {
                event,
                swizzle,
                src,
                dst,
                bind: None,
            },
            l,
        )
    }

    pub fn fill(&mut self, name: &str, dtype: DType, value: &str) -> StmtId {
        let l = self.next_line();
        let name = self.id(name);
        let value = self.e(value);
        self.stmt(Stmt::MmaFill { name, dtype, value }, l)
    }

    pub fn load(&mut self, name: &str, swizzle: Option<&str>, src: &str) -> StmtId {
        let l = self.next_line();
        let name = self.id(name);
        let swizzle = swizzle.map(|s| self.e(s));
        let src = self.e(src);
        self.stmt(Stmt::MmaLoad { name, swizzle, src }, l)
    }

    pub fn mma(&mut self, acc: &str, a: &str, b: &str) -> StmtId {
        let l = self.next_line();
        let (acc, a, b) = (self.id(acc), self.id(a), self.id(b));
        self.stmt(
            Stmt::Mma {
                a_major: Major::Row,
                b_major: Major::Row,
                acc,
                a,
                b,
            },
            l,
        )
    }

    pub fn store(&mut self, acc: &str, dst: &str) -> StmtId {
        let l = self.next_line();
        let acc = self.id(acc);
        let dst = self.e(dst);
        self.stmt(
            Stmt::MmaStore {
                acc,
                view: None,
                dst,
                mods: Default::default(),
            },
            l,
        )
    }

    /// `mma.store <view>, dst;` with `view` a slice of the accumulator `acc`
    /// (`"mc.subspan(WARP_M, 64).at(0, h)"`).
    pub fn store_view(&mut self, acc: &str, view: &str, dst: &str) -> StmtId {
        let l = self.next_line();
        let acc = self.id(acc);
        let view = Some(self.e(view));
        let dst = self.e(dst);
        self.stmt(
            Stmt::MmaStore {
                acc,
                view,
                dst,
                mods: Default::default(),
            },
            l,
        )
    }

    pub fn wait(&mut self, ev: &str) -> StmtId {
        let l = self.next_line();
        let event = self.e(ev);
        self.stmt(Stmt::Wait { event }, l)
    }

    pub fn trigger(&mut self, ev: &str) -> StmtId {
        let l = self.next_line();
        let event = self.e(ev);
        self.stmt(Stmt::Trigger { event, after: None }, l)
    }

    pub fn commit(&mut self) -> StmtId {
        let l = self.next_line();
        self.stmt(Stmt::MmaCommit, l)
    }

    pub fn finish(mut self, body: Vec<StmtId>) -> Module {
        self.m.kernel.body = body;
        self.m
    }
}

// ---- assertions ----

/// The expressions whose dump is `text` (e.g. `"cidx"`, `"output_s[cidx]"`), in arena order.
pub fn find(m: &Module, text: &str) -> Vec<ExprId> {
    m.exprs
        .iter()
        .map(|(h, _)| h)
        .filter(|&h| m.expr_to_string(h) == text)
        .collect()
}

/// The single diagnostic with `code`; panics with all diagnostics otherwise.
pub fn only<'a>(d: &'a Diagnostics, code: &str) -> &'a Diagnostic {
    let hits: Vec<&Diagnostic> = d.iter().filter(|x| x.code == code).collect();
    assert_eq!(hits.len(), 1, "expected one {code}, got:\n{d}");
    hits[0]
}

/// Asserts that checking fails with exactly the given codes (in any order, with multiplicity).
pub fn codes(d: &Diagnostics) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = d.iter().map(|x| x.code).collect();
    v.sort();
    v
}

pub fn check_err(m: &Module) -> Diagnostics {
    match dsl_core::check::check(m) {
        Ok(_) => panic!("expected errors, the check passed:\n{m}"),
        Err(d) => d,
    }
}

pub fn check_cfg_err(m: &Module, cfg: &Config, problem: Option<&Problem>) -> Diagnostics {
    match dsl_core::check::check_config(m, cfg, problem, &Limits::SM90) {
        Ok(_) => panic!("expected errors, the check passed"),
        Err(d) => d,
    }
}

/// The language checks pass (what no lowering handles yet, e.g. a shared → shared copy, is
/// the lowering gate's business and not what these tests are about).
pub fn check_ok(m: &Module) -> dsl_core::check::KernelInfo {
    match dsl_core::check::check_language(m, &Config::defaults(m), None, &Limits::SM90) {
        Ok((i, _)) => i,
        Err(d) => panic!("expected the check to pass:\n{d}\n{m}"),
    }
}

/// Whether `text` appears in the message, help or notes.
pub fn mentions(d: &Diagnostic, text: &str) -> bool {
    d.rendered_message().contains(text)
}
