//! The stable text dump of a [`Module`]: Croqtile-like, fully parenthesized where precedence
//! needs it, one statement per line, no spans (so file mode and macro mode dump identically).

use super::*;
use std::fmt::{self, Write};

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer {
            m: self,
            out: String::new(),
        };
        p.module();
        f.write_str(&p.out)
    }
}

impl Module {
    /// Renders one expression as the dump does.
    pub fn expr_to_string(&self, e: ExprId) -> String {
        let mut p = Printer {
            m: self,
            out: String::new(),
        };
        p.expr(e, 0);
        p.out
    }
}

struct Printer<'a> {
    m: &'a Module,
    out: String,
}

const COMPOSE_PREC: u8 = 12;
const UNARY_PREC: u8 = 11;

impl Printer<'_> {
    fn module(&mut self) {
        for t in &self.m.tunables {
            let dom: Vec<String> = t.domain.iter().map(|v| v.to_string()).collect();
            let _ = writeln!(
                self.out,
                "tunable {} in [{}] = {}",
                t.name.name,
                dom.join(", "),
                t.default
            );
        }
        for c in &self.m.constants {
            let _ = write!(self.out, "const {} = ", c.name.name);
            self.expr(c.value, 0);
            self.out.push('\n');
        }
        for r in &self.m.requires {
            self.out.push_str("require ");
            self.expr(r.cond, 0);
            self.out.push('\n');
        }
        let items = [
            ("persistent", self.m.persistent),
            ("raster", self.m.raster),
            ("cluster", self.m.cluster),
            ("occupancy", self.m.occupancy),
            ("promote", self.m.promote),
        ];
        for (keyword, e) in items {
            if let Some(e) = e {
                self.out.push_str(keyword);
                self.out.push(' ');
                self.expr(e, 0);
                self.out.push('\n');
            }
        }
        if self.m.pingpong.is_some() {
            self.out.push_str("pingpong\n");
        }
        if self.m.streamk.is_some() {
            self.out.push_str("streamk\n");
        }
        if self.m.cluster_nonportable.is_some() {
            self.out.push_str("cluster nonportable\n");
        }
        if let Some(c) = &self.m.cluster_level {
            self.out.push_str("cluster level {");
            self.names(&c.vars);
            self.out.push_str("} by [");
            self.list(&c.extents);
            self.out.push_str("]\n");
        }
        let k = &self.m.kernel;
        let _ = write!(self.out, "kernel {}(", k.name.name);
        let returns = match &k.returns {
            Returns::Void => None,
            Returns::Auto => Some("auto".to_string()),
            Returns::Value { dtype, shape, .. } if shape.is_empty() => Some(dtype.to_string()),
            Returns::Value { dtype, shape, .. } => {
                let dims: Vec<String> = shape.iter().map(|&e| self.m.expr_to_string(e)).collect();
                Some(format!("{dtype} [{}]", dims.join(", ")))
            }
        };
        let mut first = true;
        for i in 0..=k.params.len() {
            for s in self.m.streams.iter().filter(|s| s.position == i) {
                if !first {
                    self.out.push_str(", ");
                }
                first = false;
                let _ = write!(self.out, "stream {}", s.name.name);
            }
            let Some(p) = k.params.get(i) else { break };
            if !first {
                self.out.push_str(", ");
            }
            first = false;
            let _ = write!(self.out, "{} {} [", p.space, p.dtype);
            self.list(&p.shape);
            let _ = write!(self.out, "] {}", p.name.name);
        }
        self.out.push(')');
        if let Some(r) = returns {
            let _ = write!(self.out, " -> {r}");
        }
        self.out.push('\n');
        self.block(&k.body, 1);
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn list(&mut self, es: &[ExprId]) {
        for (i, &e) in es.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(e, 0);
        }
    }

    fn names(&mut self, ids: &[Ident]) {
        let v: Vec<&str> = ids.iter().map(|i| i.name.as_str()).collect();
        self.out.push_str(&v.join(", "));
    }

    fn declarators(&mut self, ds: &[Declarator]) {
        for (i, d) in ds.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(&d.name.name);
            if let Some(c) = d.count {
                self.out.push('[');
                self.expr(c, 0);
                self.out.push(']');
            }
        }
    }

    fn block(&mut self, b: &Block, depth: usize) {
        for &s in b {
            self.stmt(s, depth);
        }
    }

    fn dst(&mut self, d: &CopyDst) {
        match d {
            CopyDst::Expr(e) => self.expr(*e, 0),
            CopyDst::Fresh(space) => self.out.push_str(space.name()),
        }
    }

    fn swiz(&mut self, s: Option<ExprId>) {
        if let Some(s) = s {
            self.out.push_str(".swiz<");
            self.expr(s, 0);
            self.out.push('>');
        }
    }

    fn stmt(&mut self, s: StmtId, depth: usize) {
        for a in self.m.attributes.iter().filter(|a| a.target == s) {
            self.indent(depth);
            let _ = write!(self.out, "[[{}", a.name.name);
            if !a.args.is_empty() {
                self.out.push('(');
                self.list(&a.args);
                self.out.push(')');
            }
            self.out.push_str("]]\n");
        }
        self.indent(depth);
        match &self.m.stmts[s] {
            Stmt::Parallel { levels, body } => {
                self.out.push_str("parallel");
                if let Some(x) = self.m.parallel_ext.iter().find(|x| x.stmt == s) {
                    if x.is_async {
                        self.out.push_str(".async");
                    }
                    if let Some(st) = &x.stream {
                        let _ = write!(self.out, "<{}>", st.name);
                    }
                }
                self.out.push(' ');
                for (i, l) in levels.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push('{');
                    self.names(&l.vars);
                    self.out.push_str("} by [");
                    self.list(&l.extents);
                    let _ = write!(self.out, "] : {}", l.level);
                    let coop = self
                        .m
                        .parallel_ext
                        .iter()
                        .any(|x| x.stmt == s && x.cooperative);
                    if coop && l.level == Level::Block {
                        self.out.push_str("<cooperative>");
                    }
                }
                self.out.push_str(" {\n");
                self.block(body, depth + 1);
                self.indent(depth);
                self.out.push_str("}\n");
            }
            Stmt::Foreach {
                vars,
                extents,
                unroll,
                body,
            } => {
                self.out.push_str("foreach {");
                self.names(vars);
                self.out.push_str("} in [");
                self.list(extents);
                self.out.push(']');
                for r in self.m.loop_ranges.iter().filter(|r| r.stmt == s) {
                    let _ = write!(self.out, " range {}(", vars[r.var].name);
                    self.expr(r.start, 0);
                    self.out.push(':');
                    self.expr(r.end, 0);
                    self.out.push(')');
                }
                if *unroll {
                    self.out.push_str(" : unroll");
                    if let Some(factor) = self.m.unroll_factor(s) {
                        self.out.push('(');
                        self.expr(factor, 0);
                        self.out.push(')');
                    }
                }
                self.out.push_str(" {\n");
                self.block(body, depth + 1);
                self.indent(depth);
                self.out.push_str("}\n");
            }
            Stmt::TensorDecl {
                space,
                dtype,
                shape,
                names,
                ..
            } => {
                let frag = self
                    .m
                    .decl_ext
                    .iter()
                    .any(|x| matches!(x, DeclExt::Frag { decl } if *decl == s));
                if frag {
                    let _ = write!(self.out, "frag {dtype} [");
                } else {
                    let _ = write!(self.out, "{space} {dtype} [");
                }
                self.list(shape);
                self.out.push_str("] ");
                self.declarators(names);
                if let Some(v) = self.m.decl_init(s) {
                    self.out.push_str(" {");
                    self.expr(v, 0);
                    self.out.push('}');
                }
                self.out.push_str(";\n");
            }
            Stmt::ScalarDecl {
                dtype,
                name,
                init,
                mutable,
            } => {
                // `int` and `bool` are immutable unless `mutable`; the other types are mutable.
                if *mutable && matches!(dtype, crate::ir::DType::I32 | crate::ir::DType::Bool) {
                    self.out.push_str("mutable ");
                }
                let _ = write!(self.out, "{dtype} {}", name.name);
                if let Some(i) = init {
                    self.out.push_str(" = ");
                    self.expr(*i, 0);
                }
                self.out.push_str(";\n");
            }
            Stmt::EventDecl { space, names } => {
                let _ = write!(self.out, "{space} event");
                if let Some((_, n)) = self.m.event_participants.iter().find(|(d, _)| *d == s) {
                    self.out.push('<');
                    self.expr(*n, 0);
                    self.out.push('>');
                }
                self.out.push(' ');
                self.declarators(names);
                if self.m.is_ready(s) {
                    self.out.push_str(" = ready");
                }
                self.out.push_str(";\n");
            }
            Stmt::Let { name, value } => {
                let _ = write!(self.out, "let {} = ", name.name);
                self.expr(*value, 0);
                self.out.push_str(";\n");
            }
            Stmt::Assign { target, op, value } => {
                self.expr(*target, 0);
                let _ = write!(self.out, " {} ", op.symbol());
                self.expr(*value, 0);
                self.out.push_str(";\n");
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                self.out.push_str("if (");
                self.expr(*cond, 0);
                self.out.push_str(") {\n");
                self.block(then_body, depth + 1);
                self.indent(depth);
                self.out.push('}');
                if let Some(e) = else_body {
                    self.out.push_str(" else {\n");
                    self.block(e, depth + 1);
                    self.indent(depth);
                    self.out.push('}');
                }
                self.out.push('\n');
            }
            Stmt::DmaCopy {
                is_async,
                zfill,
                src,
                dst,
            } => {
                self.out.push_str("dma.copy");
                if *is_async {
                    self.out.push_str(".async");
                }
                if *zfill {
                    self.out.push_str(".zfill");
                }
                self.out.push(' ');
                self.expr(*src, 0);
                self.out.push_str(" => ");
                self.dst(dst);
                self.out.push_str(";\n");
            }
            Stmt::TmaCopy {
                event,
                swizzle,
                src,
                dst,
                bind,
            } => {
                if let Some(b) = bind {
                    let _ = write!(self.out, "{} = ", b.name);
                }
                self.out.push_str("tma.copy");
                if let Some(e) = event {
                    self.out.push_str(".async<");
                    self.expr(*e, 0);
                    self.out.push('>');
                } else if bind.is_some() {
                    // A bound copy (`f = tma.load.async …`) is asynchronous by construction.
                    self.out.push_str(".async");
                }
                if self.m.is_multicast(s) {
                    self.out.push_str(".multicast");
                }
                self.swiz(*swizzle);
                self.out.push(' ');
                self.expr(*src, 0);
                self.out.push_str(" => ");
                self.dst(dst);
                self.out.push_str(";\n");
            }
            Stmt::MmaFill { name, dtype, value } => {
                let _ = write!(self.out, "{} = mma.fill.{} ", name.name, dtype);
                self.expr(*value, 0);
                self.out.push_str(";\n");
            }
            Stmt::MmaLoad { name, swizzle, src } => {
                let _ = write!(self.out, "{} = mma.load", name.name);
                self.swiz(*swizzle);
                if self.m.is_frag_load(s) {
                    self.out.push_str(".frag");
                }
                self.out.push(' ');
                self.expr(*src, 0);
                self.out.push_str(";\n");
            }
            Stmt::Mma {
                a_major,
                b_major,
                acc,
                a,
                b,
            } => {
                if let Some(Some(f)) = self.m.mma_async(s) {
                    let _ = write!(self.out, "{} = ", f.name);
                }
                let scale = self.m.mma_scale(s);
                let meta = self.m.sparse_meta(s);
                let _ = write!(
                    self.out,
                    "mma.{}.{}{}{}{} {}, {}, {}",
                    a_major.name(),
                    b_major.name(),
                    if meta.is_some() { ".sp" } else { "" },
                    if scale.is_some() { ".scale" } else { "" },
                    if self.m.mma_async(s).is_some() {
                        ".async"
                    } else {
                        ""
                    },
                    acc.name,
                    a.name,
                    b.name
                );
                if let Some(meta) = meta {
                    let _ = write!(self.out, ", {}", meta.name);
                }
                if let Some(sc) = scale {
                    self.out.push_str(", ");
                    self.expr(sc.lhs, 0);
                    self.out.push_str(", ");
                    self.expr(sc.rhs, 0);
                }
                self.out.push_str(";\n");
            }
            Stmt::MmaStore {
                acc,
                view,
                dst,
                mods,
            } => {
                self.out.push_str("mma.store");
                if mods.transpose {
                    self.out.push_str(".transp");
                }
                if mods.mask.is_some() {
                    self.out.push_str(".mask");
                }
                self.out.push(' ');
                match view {
                    Some(v) => self.expr(*v, 0),
                    None => self.out.push_str(&acc.name),
                }
                self.out.push_str(", ");
                self.expr(*dst, 0);
                if let Some((r, c)) = mods.mask {
                    self.out.push_str(", ");
                    self.expr(r, 0);
                    if let Some(c) = c {
                        self.out.push_str(", ");
                        self.expr(c, 0);
                    }
                }
                self.out.push_str(";\n");
            }
            Stmt::MmaCommit => self.out.push_str("mma.commit;\n"),
            Stmt::Wait { event } => {
                self.out.push_str("wait ");
                self.expr(*event, 0);
                self.out.push_str(";\n");
            }
            Stmt::Trigger { event, after } => {
                self.out.push_str(if self.m.cluster_triggers.contains(&s) {
                    "trigger.cluster "
                } else {
                    "trigger "
                });
                self.expr(*event, 0);
                if let Some(a) = after {
                    let _ = write!(self.out, " after {}", a.name);
                }
                self.out.push_str(";\n");
            }
            Stmt::InThreads {
                is_async,
                cond,
                body,
            } => {
                self.out.push_str(if *is_async {
                    "inthreads.async ("
                } else {
                    "inthreads ("
                });
                self.expr(*cond, 0);
                self.out.push_str(") {\n");
                self.block(body, depth + 1);
                self.indent(depth);
                self.out.push_str("}\n");
            }
            Stmt::SyncShared => self.out.push_str("sync.shared;\n"),
            Stmt::DmaWait { pending } => {
                self.out.push_str("dma.wait ");
                self.expr(*pending, 0);
                self.out.push_str(";\n");
            }
            Stmt::Reduce {
                op, target, level, ..
            } => {
                let _ = writeln!(self.out, "reduce.{} {} : {level};", op.name(), target.name);
            }
            Stmt::Ext(x) => self.ext(x, depth),
        }
    }

    /// Prints `e`, parenthesized if its precedence is below `min_prec`.
    fn ext(&mut self, x: &ExtStmt, depth: usize) {
        match x {
            ExtStmt::Return { value } => {
                self.out.push_str("return");
                if let Some(v) = value {
                    self.out.push(' ');
                    self.expr(*v, 0);
                }
                self.out.push_str(";\n");
            }
            ExtStmt::Call { func, targs, args } => {
                let _ = write!(self.out, "call {}", func.name);
                if !targs.is_empty() {
                    self.out.push('<');
                    self.list(targs);
                    self.out.push('>');
                }
                self.out.push('(');
                self.list(args);
                self.out.push_str(");\n");
            }
            ExtStmt::Println { args, newline } => {
                self.out
                    .push_str(if *newline { "println(" } else { "print(" });
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match a {
                        PrintArg::Str(t) => {
                            let _ = write!(self.out, "{t:?}");
                        }
                        PrintArg::Expr(e) => self.expr(*e, 0),
                    }
                }
                self.out.push_str(");\n");
            }
            ExtStmt::Assert { cond, message } => {
                self.out.push_str("assert(");
                self.expr(*cond, 0);
                if let Some(msg) = message {
                    let _ = write!(self.out, ", {msg:?}");
                }
                self.out.push_str(");\n");
            }
            ExtStmt::Sync { kind, level } => {
                let _ = write!(self.out, "sync.{}", kind.name());
                if let Some(l) = level {
                    let _ = write!(self.out, " : {l}");
                }
                self.out.push_str(";\n");
            }
            ExtStmt::While { cond, body } => {
                self.out.push_str("while (");
                self.expr(*cond, 0);
                self.out.push_str(") {\n");
                self.block(body, depth + 1);
                self.indent(depth);
                self.out.push_str("}\n");
            }
            ExtStmt::DmaFuture {
                tma,
                bind,
                is_async,
                modifiers,
                src,
                dst,
                after,
            } => {
                if let Some(b) = bind {
                    let _ = write!(self.out, "{} = ", b.name);
                }
                // `dma.pad<…>` / `dma.transp<…>` / `dma.any`: the operation leads the modifiers.
                let op_first = modifiers
                    .first()
                    .is_some_and(|(n, _)| matches!(n.name.as_str(), "pad" | "transp" | "any"));
                let (head, rest) = modifiers.split_at(usize::from(op_first));
                let engine = if *tma { "tma" } else { "dma" };
                match head.first() {
                    Some((op, args)) => {
                        let _ = write!(self.out, "{engine}.{}", op.name);
                        if !args.is_empty() {
                            self.out.push('<');
                            self.list(args);
                            self.out.push('>');
                        }
                    }
                    None => {
                        let _ = write!(self.out, "{engine}.copy");
                    }
                }
                if *is_async {
                    self.out.push_str(".async");
                }
                for (m, args) in rest {
                    let _ = write!(self.out, ".{}", m.name);
                    if !args.is_empty() {
                        self.out.push('<');
                        self.list(args);
                        self.out.push('>');
                    }
                }
                self.out.push(' ');
                self.expr(*src, 0);
                self.out.push_str(" => ");
                self.dst(dst);
                if let Some(a) = after {
                    self.out.push_str(" after ");
                    self.expr(*a, 0);
                }
                self.out.push_str(";\n");
            }
            ExtStmt::TriggerAfter { event, after } => {
                self.out.push_str("trigger ");
                self.expr(*event, 0);
                self.out.push_str(" after ");
                self.list(after);
                self.out.push_str(";\n");
            }
            ExtStmt::Asm {
                volatile,
                template,
                outputs,
                inputs,
                clobbers,
            } => {
                let v = if *volatile { " volatile" } else { "" };
                let _ = write!(self.out, "__asm__{v}(\"{template}\"");
                let sections =
                    crate::ir::ext::asm_sections(outputs.len(), inputs.len(), clobbers.len());
                for ops in [outputs, inputs].into_iter().take(sections) {
                    self.out.push_str(" :");
                    for (k, o) in ops.iter().enumerate() {
                        self.out.push_str(if k > 0 { ", " } else { " " });
                        if let Some(n) = &o.name {
                            let _ = write!(self.out, "[{}] ", n.name);
                        }
                        let _ = write!(self.out, "\"{}\"(", o.constraint);
                        self.expr(o.expr, 0);
                        self.out.push(')');
                    }
                }
                if sections == 3 {
                    let c: Vec<String> = clobbers.iter().map(|c| format!("\"{c}\"")).collect();
                    let _ = write!(self.out, " : {}", c.join(", "));
                }
                self.out.push_str(");\n");
            }
            ExtStmt::Jump { kind } => {
                let _ = writeln!(self.out, "{kind};");
            }
            ExtStmt::MmaRefill { acc, value } => {
                let _ = write!(self.out, "mma.fill {}, ", acc.name);
                self.expr(*value, 0);
                self.out.push_str(";\n");
            }
            ExtStmt::MmaScaleAcc { acc, lhs, rhs } => {
                let _ = write!(self.out, "mma.scale {}, ", acc.name);
                self.expr(*lhs, 0);
                self.out.push_str(", ");
                self.expr(*rhs, 0);
                self.out.push_str(";\n");
            }
            ExtStmt::AnyFuture { tma, bind } => {
                let ns = if *tma { "tma" } else { "dma" };
                let _ = writeln!(self.out, "{} = {ns}.any;", bind.name);
            }
            ExtStmt::FragOp { op, args } => {
                let _ = write!(self.out, "{op}(");
                self.list(args);
                self.out.push_str(");\n");
            }
            ExtStmt::Swap { a, b } => {
                let _ = writeln!(self.out, "swap({}, {});", a.name, b.name);
            }
            ExtStmt::LoadInto { src, dst } => {
                self.out.push_str("mma.load ");
                self.expr(*src, 0);
                self.out.push_str(", ");
                self.expr(*dst, 0);
                self.out.push_str(";\n");
            }
        }
    }

    fn expr(&mut self, e: ExprId, min_prec: u8) {
        match &self.m.exprs[e] {
            Expr::Int(v) => {
                let _ = write!(self.out, "{v}");
            }
            Expr::Float { text, .. } => self.out.push_str(text),
            Expr::Bool(b) => {
                let _ = write!(self.out, "{b}");
            }
            Expr::Name(n) => self.out.push_str(n),
            Expr::Wildcard => self.out.push('_'),
            Expr::Unary { op, expr } => {
                let paren = UNARY_PREC < min_prec;
                if paren {
                    self.out.push('(');
                }
                self.out.push_str(op.symbol());
                self.expr(*expr, UNARY_PREC);
                if paren {
                    self.out.push(')');
                }
            }
            Expr::Binary { op, lhs, rhs } => {
                let p = op.precedence();
                let paren = p < min_prec;
                if paren {
                    self.out.push('(');
                }
                self.expr(*lhs, p);
                let _ = write!(self.out, " {} ", op.symbol());
                self.expr(*rhs, p + 1);
                if paren {
                    self.out.push(')');
                }
            }
            Expr::Compose { outer, inner } => {
                let paren = COMPOSE_PREC < min_prec;
                if paren {
                    self.out.push('(');
                }
                self.expr(*outer, COMPOSE_PREC);
                self.out.push_str(" # ");
                self.expr(*inner, COMPOSE_PREC + 1);
                if paren {
                    self.out.push(')');
                }
            }
            Expr::Call { func, args } if func.name == "ituple" => {
                self.out.push('{');
                let args = args.clone();
                self.list(&args);
                self.out.push('}');
            }
            Expr::Call { func, args } => {
                let _ = write!(self.out, "{}(", func.name);
                let args = args.clone();
                self.list(&args);
                self.out.push(')');
            }
            Expr::Index { base, index } => {
                self.expr(*base, 100);
                self.out.push('[');
                self.expr(*index, 0);
                self.out.push(']');
            }
            // `t.view(A, B : SA, SB)`, as written.
            Expr::View {
                base,
                op: ViewOp::Strides,
                args,
            } if matches!(
                &self.m.exprs[*base],
                Expr::View {
                    op: ViewOp::Window,
                    ..
                }
            ) =>
            {
                let Expr::View {
                    base: tensor,
                    args: extents,
                    ..
                } = self.m.exprs[*base].clone()
                else {
                    return;
                };
                let strides = args.clone();
                self.expr(tensor, 100);
                self.out.push_str(".view(");
                self.list(&extents);
                self.out.push_str(" : ");
                self.list(&strides);
                self.out.push(')');
            }
            Expr::View { base, op, args } => {
                self.expr(*base, 100);
                let _ = write!(self.out, ".{}(", op.name());
                let args = args.clone();
                self.list(&args);
                self.out.push(')');
            }
            Expr::Field { base, field } => {
                self.expr(*base, 100);
                let _ = write!(self.out, ".{}", field.name);
            }
        }
    }
}
