//! Name resolution: binds every `Expr::Name` (and the identifiers of `mma`, `mma.store` and
//! `trigger … after`) to its declaration, following block scoping, and records the chain of
//! enclosing `parallel` levels of every statement.
//!
//! Errors: unknown names (with the nearest visible name as a suggestion), `_` outside
//! `.chunkat`, a name declared twice in one scope or shadowing a header name, a name of the
//! wrong kind for its position, unknown functions, non-assignable targets.

mod expr;

use super::Binding;
use super::codes;
use super::suggest;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Block, CopyDst, Expr, ExprId, Ident, Module, Stmt, StmtId};
use crate::span::Span;
use std::collections::{HashMap, HashSet};

/// Which identifier of a statement an entry of the checker's `idents` is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Acc,
    A,
    B,
    /// The metadata fragment of a sparse `mma` (`mma.row.row.sp acc, a, b, meta;`).
    Meta,
    After,
    /// The scalar a `reduce` updates.
    Target,
}

/// One `parallel` level: the statement and the index of the level in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct LevelRef {
    pub stmt: StmtId,
    pub level: usize,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Resolved {
    pub bindings: HashMap<ExprId, Binding>,
    pub idents: HashMap<(StmtId, Role), Binding>,
    /// Enclosing parallel levels of every statement, outermost first (a `Parallel`'s own
    /// levels are not in its own chain, only in its body's).
    pub chains: HashMap<StmtId, Vec<LevelRef>>,
}

impl Resolved {
    /// The binding of the scalar the `reduce` statement `s` updates.
    pub(crate) fn reduce_target(&self, s: StmtId) -> Option<&Binding> {
        self.idents.get(&(s, Role::Target))
    }
}

/// What an expression position expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    Value,
    Tensor,
    Event,
    /// Anything that names something (arguments of `call`, `println`, `return`).
    Any,
}

pub(crate) fn resolve(m: &Module, diags: &mut Diagnostics) -> Resolved {
    let mut r = R {
        m,
        scopes: Vec::new(),
        header: HashSet::new(),
        out: Resolved::default(),
        diags,
        chain: Vec::new(),
        suggestions: 0,
        elem_frags: Vec::new(),
    };
    r.header();
    let body = m.kernel.body.clone();
    r.block(&body);
    r.out
}

struct R<'a> {
    m: &'a Module,
    scopes: Vec<HashMap<String, (Binding, Span)>>,
    header: HashSet<String>,
    out: Resolved,
    diags: &'a mut Diagnostics,
    chain: Vec<LevelRef>,
    /// Unknown names given a suggestion search so far (bounded by [`MAX_SUGGESTIONS`]).
    suggestions: usize,
    /// Fragments whose elements are values here: the target of a whole-fragment assignment
    /// (`mc *= s;`) and the fragment an `apply {i, j} in acc.span` walks (`check/frag_elem.rs`
    /// says where each form may appear).
    elem_frags: Vec<String>,
}

/// Unknown names past this many get no "did you mean": each search scans every visible name,
/// so a file of thousands of typos would cost names × typos.
const MAX_SUGGESTIONS: usize = 100;

/// Names the emitted CUDA C++ cannot give a variable: the C++ keywords the DSL's own grammar
/// leaves free, and CUDA's built-in variables (a local `threadIdx` would hide the real one).
const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bool",
    "break",
    "const",
    "continue",
    "else",
    "false",
    "float",
    "for",
    "if",
    "int",
    "mutable",
    "return",
    "void",
    "while",
    "bitand",
    "bitor",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "compl",
    "concept",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "enum",
    "explicit",
    "export",
    "extern",
    "friend",
    "goto",
    "inline",
    "long",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "true",
    "thread_local",
    "throw",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "volatile",
    "wchar_t",
    "xor",
    "xor_eq",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
];

/// Why `name` cannot name a variable of the emitted CUDA, if it cannot.
fn reserved(name: &str) -> Option<&'static str> {
    if name.starts_with("tsl_") {
        Some("names starting with `tsl_` are the ones tessel makes up in the emitted CUDA")
    } else if name.starts_with("__") {
        Some("names starting with `__` are reserved to the C++ implementation")
    } else if ["threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"].contains(&name) {
        Some("it is a CUDA built-in variable, which the emitted kernel uses")
    } else if RESERVED.contains(&name) {
        Some("it is a C++ keyword, and the emitted CUDA keeps the names you write")
    } else if !name.is_ascii() {
        Some("NVRTC reads only ASCII identifiers, and the emitted CUDA keeps the names you write")
    } else if name == "printf"
        || name
            .strip_suffix('f')
            .is_some_and(|b| super::LOWERED_MATH.contains(&b))
    {
        Some(
            "it is a CUDA function the emitted kernel calls (`expf`, `fmaf`, `printf`, …), which a variable of that name would hide",
        )
    } else {
        None
    }
}

impl R<'_> {
    fn header(&mut self) {
        let m = self.m;
        let mut scope: HashMap<String, (Binding, Span)> = HashMap::new();
        for t in &m.tunables {
            self.not_reserved(&t.name.name, t.name.span);
            scope
                .entry(t.name.name.clone())
                .or_insert((Binding::Tunable, t.name.span));
        }
        // Constants see tunables and earlier constants only: each is declared after its value
        // is resolved (in one scope, not a copy per constant: that would be quadratic).
        self.scopes = vec![scope];
        for c in &m.constants {
            self.not_reserved(&c.name.name, c.name.span);
            self.expr(c.value, Want::Value, false);
            if let Some(s) = self.scopes.first_mut() {
                s.entry(c.name.name.clone())
                    .or_insert((Binding::Constant, c.name.span));
            }
        }
        let mut scope = std::mem::take(&mut self.scopes)
            .into_iter()
            .next()
            .unwrap_or_default();
        // Symbolic dims: names in parameter shapes that are neither tunables nor constants.
        for (pi, p) in m.kernel.params.iter().enumerate() {
            for (di, &d) in p.shape.iter().enumerate() {
                if let Expr::Name(n) = &m.exprs[d]
                    && !scope.contains_key(n)
                {
                    self.not_reserved(n, m.expr_span(d));
                    scope.insert(
                        n.clone(),
                        (Binding::SymDim { param: pi, dim: di }, m.expr_span(d)),
                    );
                }
            }
        }
        self.scopes = vec![scope.clone()];
        for p in &m.kernel.params {
            for &d in &p.shape {
                self.expr(d, Want::Value, false);
            }
        }
        for r in &m.requires {
            self.expr(r.cond, Want::Value, false);
        }
        for e in [m.occupancy, m.raster, m.persistent].into_iter().flatten() {
            self.expr(e, Want::Value, false);
        }
        if let Some(c) = m.cluster {
            self.expr(c, Want::Value, false);
        }
        if let Some(p) = m.promote {
            self.expr(p, Want::Value, false);
        }
        for &e in m.cluster_level.iter().flat_map(|c| &c.extents) {
            self.expr(e, Want::Value, false);
        }
        for (pi, p) in m.kernel.params.iter().enumerate() {
            self.not_reserved(&p.name.name, p.name.span);
            scope
                .entry(p.name.name.clone())
                .or_insert((Binding::Param(pi), p.name.span));
        }
        self.header = scope.keys().cloned().collect();
        self.scopes = vec![scope];
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).map(|(b, _)| *b))
    }

    fn visible(&self) -> Vec<(String, Binding)> {
        let mut seen = std::collections::HashSet::new();
        let mut v: Vec<(String, Binding)> = Vec::new();
        for s in self.scopes.iter().rev() {
            for (k, (b, _)) in s {
                if seen.insert(k.as_str()) {
                    v.push((k.clone(), *b));
                }
            }
        }
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    fn unknown(&mut self, name: &str, span: Span, want: Want) {
        if crate::check::cluster::is_cluster_var(self.m, name) {
            return; // a block's coordinate in its cluster: the lowering gate reports it
        }
        self.suggestions += 1;
        let visible = if self.suggestions <= MAX_SUGGESTIONS {
            self.visible()
        } else {
            Vec::new()
        };
        let fits = |b: &Binding| match want {
            Want::Event => matches!(b, Binding::Event(..) | Binding::Future(_)),
            Want::Tensor => matches!(
                b,
                Binding::Tensor(..) | Binding::Param(_) | Binding::Future(_)
            ),
            Want::Value | Want::Any => true,
        };
        let preferred: Vec<&str> = visible
            .iter()
            .filter(|(_, b)| fits(b))
            .map(|(n, _)| n.as_str())
            .collect();
        let all: Vec<&str> = visible.iter().map(|(n, _)| n.as_str()).collect();
        let what = match want {
            Want::Event => "event",
            Want::Tensor => "tensor",
            Want::Value | Want::Any => "name",
        };
        let mut d = Diagnostic::new(
            codes::UNKNOWN_NAME,
            span,
            format!("unknown {what} `{name}`"),
        );
        if let Some(s) = suggest::nearest(name, preferred.iter().copied())
            .or_else(|| suggest::nearest(name, all.iter().copied()))
        {
            d = d.with_help(format!("did you mean `{s}`?"));
        } else if let Some(c) = self.m.constants.iter().find(|c| c.name.name == name) {
            d = d.with_note(
                c.name.span,
                "a constant of this name is defined later; constants may only use earlier ones",
            );
        } else {
            d = d.with_help(format!(
                "declare `{name}` before this use (a tunable, a constant, a tensor or a binding)"
            ));
        }
        self.diags.push(d);
    }

    /// Reports `name` (declared at `span`) if the emitted CUDA cannot keep it.
    fn not_reserved(&mut self, name: &str, span: Span) {
        if let Some(why) = reserved(name) {
            self.diags.push(
                Diagnostic::new(
                    codes::RESERVED_NAME,
                    span,
                    format!("`{name}` cannot name a variable: {why}"),
                )
                .with_help(if name.is_ascii() {
                    format!("rename it (e.g. `{}_`)", name.trim_start_matches('_'))
                } else {
                    "rename it with ASCII letters, digits and `_`".to_string()
                }),
            );
        }
    }

    fn declare(&mut self, id: &Ident, b: Binding) {
        if id.name == "_" {
            return;
        }
        self.not_reserved(&id.name, id.span);
        let scope_len = self.scopes.len();
        if let Some((_, first)) = self.scopes.last().and_then(|s| s.get(&id.name))
            && scope_len > 1
        {
            self.diags.push(
                Diagnostic::new(
                    codes::DUPLICATE_DECL,
                    id.span,
                    format!("`{}` is already declared in this scope", id.name),
                )
                .with_note(*first, "first declared here")
                .with_help("use a different name"),
            );
            return;
        }
        if scope_len > 1 && self.header.contains(&id.name) {
            let (outer, first) = self.scopes[0]
                .get(&id.name)
                .map(|(b, s)| (Some(*b), *s))
                .unwrap_or((None, Span::DUMMY));
            // A scalar parameter hidden by a typed scalar or a loop or parallel variable is
            // legal Croqtile (the inner name hides the outer one from its declaration on), but
            // the lowering declares the parameter as an argument of the same C++ function,
            // where `int a = a + 5;` would read the new `a`: not supported yet. Hiding a
            // tunable, a constant, a dimension or a tensor, or rebinding one with `x = e;`,
            // stays an error.
            let scalar_param = matches!(outer, Some(Binding::Param(i))
                if self.m.kernel.params.get(i).is_some_and(|p| p.shape.is_empty()));
            let typed = matches!(
                b,
                Binding::Scalar(_) | Binding::LoopVar { .. } | Binding::ParallelVar { .. }
            );
            let d = if scalar_param && typed {
                Diagnostic::new(
                    codes::NOT_LOWERED_HEADER_SHADOW,
                    id.span,
                    format!(
                        "not supported yet: `{}` declared again in the body, hiding the parameter `{}`",
                        id.name, id.name
                    ),
                )
            } else {
                Diagnostic::new(
                    codes::DUPLICATE_DECL,
                    id.span,
                    format!("`{}` shadows a name declared in the kernel header", id.name),
                )
            };
            self.diags.push(
                d.with_note(first, "declared here")
                    .with_help("use a different name: header names become template parameters and kernel arguments"),
            );
        }
        if let Some(s) = self.scopes.last_mut() {
            s.insert(id.name.clone(), (b, id.span));
        }
    }

    fn ident(&mut self, s: StmtId, role: Role, id: &Ident, want_frag: bool) {
        match self.lookup(&id.name) {
            Some(b) => {
                if want_frag && !matches!(b, Binding::Frag(_)) {
                    self.diags.push(
                        Diagnostic::new(codes::MMA_OPERAND, id.span, format!("`{}` is not an mma fragment", id.name))
                            .with_help("mma operands are names bound by `mma.fill` (accumulator) or `mma.load` (A, B)"),
                    );
                }
                self.out.idents.insert((s, role), b);
            }
            None => {
                let frags: Vec<String> = self
                    .visible()
                    .into_iter()
                    .filter(|(_, b)| !want_frag || matches!(b, Binding::Frag(_)))
                    .map(|(n, _)| n)
                    .collect();
                let mut d = Diagnostic::new(
                    codes::UNKNOWN_NAME,
                    id.span,
                    format!("unknown name `{}`", id.name),
                );
                if let Some(n) = suggest::nearest(&id.name, frags.iter().map(|s| s.as_str())) {
                    d = d.with_help(format!("did you mean `{n}`?"));
                }
                self.diags.push(d);
            }
        }
    }

    fn block(&mut self, b: &Block) {
        self.scopes.push(HashMap::new());
        for &s in b {
            self.stmt(s);
        }
        self.scopes.pop();
    }

    fn stmt(&mut self, s: StmtId) {
        let m = self.m;
        self.out.chains.insert(s, self.chain.clone());
        match &m.stmts[s] {
            Stmt::Parallel { levels, body } => {
                for l in levels {
                    for &e in &l.extents {
                        self.expr(e, Want::Value, false);
                    }
                }
                self.scopes.push(HashMap::new());
                let depth = self.chain.len();
                for (li, l) in levels.iter().enumerate() {
                    for (vi, v) in l.vars.iter().enumerate() {
                        self.declare(
                            v,
                            Binding::ParallelVar {
                                stmt: s,
                                level: li,
                                index: vi,
                            },
                        );
                    }
                    self.chain.push(LevelRef { stmt: s, level: li });
                }
                self.block(body);
                self.chain.truncate(depth);
                self.scopes.pop();
            }
            Stmt::Foreach {
                vars,
                extents,
                body,
                ..
            } => {
                // `apply {i, j} in acc.span`: the fragment's elements are values in the body.
                let walked = m
                    .walked_fragment(extents)
                    .filter(|n| matches!(self.lookup(n), Some(Binding::Frag(_))));
                for &e in extents {
                    match (&walked, &m.exprs[e]) {
                        (Some(_), Expr::Field { base, .. }) => self.fragment_view(*base),
                        (Some(_), _) => self.fragment_view(e),
                        (None, _) => self.expr(e, Want::Value, false),
                    }
                }
                self.scopes.push(HashMap::new());
                for (i, v) in vars.iter().enumerate() {
                    self.declare(v, Binding::LoopVar { stmt: s, index: i });
                }
                let mark = self.elem_frags.len();
                self.elem_frags.extend(walked);
                self.block(body);
                self.elem_frags.truncate(mark);
                self.scopes.pop();
            }
            Stmt::TensorDecl { shape, names, .. } => {
                for &e in shape {
                    self.expr(e, Want::Value, false);
                }
                // `{v}`: every element starts at the value `v`.
                for x in &self.m.decl_ext {
                    if let crate::ir::DeclExt::Init { decl, value } = x
                        && *decl == s
                    {
                        self.expr(*value, Want::Value, false);
                    }
                }
                for (i, d) in names.iter().enumerate() {
                    if let Some(c) = d.count {
                        self.expr(c, Want::Value, false);
                    }
                    self.declare(&d.name, Binding::Tensor(s, i));
                }
            }
            Stmt::ScalarDecl { name, init, .. } => {
                if let Some(i) = init {
                    self.expr(*i, Want::Value, false);
                }
                self.declare(name, Binding::Scalar(s));
            }
            Stmt::EventDecl { names, .. } => {
                for (i, d) in names.iter().enumerate() {
                    if let Some(c) = d.count {
                        self.expr(c, Want::Value, false);
                    }
                    self.declare(&d.name, Binding::Event(s, i));
                }
            }
            // A view given a name (its uses were expanded by the parser): a tensor view.
            Stmt::Let { value, .. } if crate::check::views_ext::is_view_let(m, *value) => {
                self.expr(*value, Want::Tensor, false);
            }
            Stmt::Let { name, value } => {
                self.expr(*value, Want::Value, false);
                self.declare(name, Binding::Let(s));
            }
            Stmt::Assign { target, value, .. } => {
                // `mc = mc * s + b;`: every element of the fragment `mc` is updated.
                let whole = match &m.exprs[*target] {
                    Expr::Name(n) if matches!(self.lookup(n), Some(Binding::Frag(_))) => {
                        Some(n.clone())
                    }
                    _ => None,
                };
                let mark = self.elem_frags.len();
                self.elem_frags.extend(whole);
                self.expr(*value, Want::Value, false);
                self.assign_target(*target);
                self.elem_frags.truncate(mark);
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                self.expr(*cond, Want::Value, false);
                self.block(then_body);
                if let Some(b) = else_body {
                    self.block(b);
                }
            }
            Stmt::DmaCopy { src, dst, .. } => {
                self.expr(*src, Want::Tensor, false);
                if let CopyDst::Expr(d) = dst {
                    self.expr(*d, Want::Tensor, false);
                }
            }
            Stmt::TmaCopy {
                event,
                swizzle,
                src,
                dst,
                bind,
            } => {
                if let Some(ev) = event {
                    self.expr(*ev, Want::Event, false);
                }
                if let Some(sw) = swizzle {
                    self.expr(*sw, Want::Value, false);
                }
                self.expr(*src, Want::Tensor, false);
                if let CopyDst::Expr(d) = dst {
                    self.expr(*d, Want::Tensor, false);
                }
                if let Some(b) = bind {
                    self.declare(b, Binding::Future(s));
                }
            }
            Stmt::MmaFill { name, value, .. } => {
                self.expr(*value, Want::Value, false);
                self.rebind_frag(name, s);
            }
            Stmt::MmaLoad { name, swizzle, src } => {
                if let Some(sw) = swizzle {
                    self.expr(*sw, Want::Value, false);
                }
                self.expr(*src, Want::Tensor, false);
                self.rebind_frag(name, s);
            }
            Stmt::Mma { acc, a, b, .. } => {
                self.ident(s, Role::Acc, acc, true);
                self.ident(s, Role::A, a, true);
                self.ident(s, Role::B, b, true);
                if let Some(meta) = m.sparse_meta(s) {
                    self.ident(s, Role::Meta, meta, true);
                }
                if let Some(sc) = self.m.mma_scale(s) {
                    self.expr(sc.lhs, Want::Any, false);
                    self.expr(sc.rhs, Want::Value, false);
                }
                // `f = mma.<a>.<b>.async …`: `wait f` completes it.
                if let Some(Some(f)) = self.m.mma_async(s) {
                    self.declare(f, Binding::Future(s));
                }
            }
            Stmt::MmaStore {
                acc,
                view,
                dst,
                mods,
            } => {
                self.ident(s, Role::Acc, acc, true);
                if let Some(v) = view {
                    self.fragment_view(*v);
                }
                self.expr(*dst, Want::Tensor, false);
                if let Some((r, c)) = mods.mask {
                    self.expr(r, Want::Value, false);
                    if let Some(c) = c {
                        self.expr(c, Want::Value, false);
                    }
                }
            }
            Stmt::Wait { event } => self.expr(*event, Want::Event, false),
            Stmt::Trigger { event, after } => {
                self.expr(*event, Want::Event, false);
                if let Some(a) = after {
                    self.ident(s, Role::After, a, false);
                }
            }
            Stmt::InThreads { cond, body, .. } => {
                self.expr(*cond, Want::Value, false);
                self.block(body);
            }
            Stmt::DmaWait { pending } => self.expr(*pending, Want::Value, false),
            Stmt::Reduce { target, .. } => {
                match self.lookup(&target.name) {
                    Some(b) => {
                        if !matches!(b, Binding::Scalar(_)) {
                            self.diags.push(
                            Diagnostic::new(
                                codes::NOT_ASSIGNABLE,
                                target.span,
                                format!("`reduce` updates a scalar, but `{}` is not one", target.name),
                            )
                            .with_help("declare the value as a scalar (`f32 acc = 0.0f;`) and reduce that"),
                        );
                        }
                        self.immutable_scalar(b, &target.name, target.span);
                        self.out.idents.insert((s, Role::Target), b);
                    }
                    None => self.unknown(&target.name, target.span, Want::Value),
                }
            }
            Stmt::MmaCommit | Stmt::SyncShared => {}
            Stmt::Ext(x) => self.ext(s, x),
        }
    }

    /// Names in an extension statement: operands resolve like their core counterparts, a
    /// bound `dma.copy` future is declared, a called function's name is external.
    fn ext(&mut self, s: StmtId, x: &crate::ir::ExtStmt) {
        use crate::ir::{ExtStmt, PrintArg};
        match x {
            ExtStmt::Return { value } => {
                if let Some(v) = value {
                    self.expr(*v, Want::Any, false);
                }
            }
            ExtStmt::Call { targs, args, .. } => {
                for &a in targs.iter().chain(args) {
                    self.expr(a, Want::Any, false);
                }
            }
            ExtStmt::Println { args, .. } => {
                for a in args {
                    if let PrintArg::Expr(e) = a {
                        self.expr(*e, Want::Any, false);
                    }
                }
            }
            ExtStmt::Assert { cond, .. } => self.expr(*cond, Want::Value, false),
            ExtStmt::Sync { .. } => {}
            ExtStmt::While { cond, body } => {
                self.expr(*cond, Want::Value, false);
                self.block(body);
            }
            ExtStmt::DmaFuture {
                bind,
                src,
                dst,
                after,
                modifiers,
                ..
            } => {
                for (_, args) in modifiers {
                    for &a in args {
                        self.expr(a, Want::Value, false);
                    }
                }
                if let Some(a) = after {
                    self.expr(*a, Want::Value, false);
                }
                self.expr(*src, Want::Tensor, false);
                if let CopyDst::Expr(d) = dst {
                    self.expr(*d, Want::Tensor, false);
                }
                if let Some(b) = bind {
                    self.declare(b, Binding::Future(s));
                }
            }
            ExtStmt::TriggerAfter { event, after } => {
                self.expr(*event, Want::Event, false);
                for &a in after {
                    self.expr(a, Want::Any, false);
                }
            }
            ExtStmt::MmaRefill { acc, value } => {
                self.expr(*value, Want::Value, false);
                self.ident(s, Role::Acc, acc, true);
            }
            ExtStmt::MmaScaleAcc { acc, lhs, rhs } => {
                self.expr(*lhs, Want::Any, false);
                self.expr(*rhs, Want::Value, false);
                self.ident(s, Role::Acc, acc, true);
            }
            ExtStmt::Asm {
                outputs, inputs, ..
            } => {
                for o in inputs {
                    self.expr(o.expr, Want::Value, false);
                }
                // An output (or `+` operand) is written: a mutable scalar or an element.
                for o in outputs {
                    if o.constraint.starts_with('+') {
                        self.expr(o.expr, Want::Value, false);
                    }
                    self.assign_target(o.expr);
                }
            }
            ExtStmt::Jump { .. } => {}
            ExtStmt::AnyFuture { bind, .. } => self.declare(bind, Binding::Future(s)),
            ExtStmt::FragOp { op, args } => {
                for (i, &a) in args.iter().enumerate() {
                    // The axis of a reduction is a value; the rest name tiles.
                    let want = if *op != "copy" && i == 2 {
                        Want::Value
                    } else {
                        Want::Any
                    };
                    self.expr(a, want, false);
                }
            }
            ExtStmt::Swap { a, b } => {
                self.ident(s, Role::A, a, false);
                self.ident(s, Role::B, b, false);
            }
            ExtStmt::LoadInto { src, dst } => {
                self.expr(*src, Want::Tensor, false);
                self.expr(*dst, Want::Tensor, false);
            }
        }
    }

    /// `mc = mma.fill …` may re-define a fragment of the same scope (a fresh accumulator).
    fn rebind_frag(&mut self, name: &Ident, s: StmtId) {
        let same_scope_frag = matches!(
            self.scopes.last().and_then(|sc| sc.get(&name.name)),
            Some((Binding::Frag(_), _))
        );
        if same_scope_frag {
            if let Some(sc) = self.scopes.last_mut() {
                sc.insert(name.name.clone(), (Binding::Frag(s), name.span));
            }
        } else {
            self.declare(name, Binding::Frag(s));
        }
    }
}
