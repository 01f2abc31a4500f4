//! The lowered kernel: a template-ready description of one CUDA C++ kernel. Every string the
//! templates print is computed here; `codegen-cuda` only arranges them.

pub use super::cxx::{CExpr, COp, CType, CUn};
use crate::sym::Sym;
use std::collections::BTreeSet;
use std::fmt;

/// Which code path a kernel lowers to (decides the arch and the prelude helpers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelPath {
    /// Scalar FMA on CUDA cores; global→shared copies with `cp.async` (sm_80+).
    Simt,
    /// TMA + WGMMA + mbarrier (sm_90a only).
    Hopper,
}

impl KernelPath {
    pub fn min_arch(self) -> &'static str {
        match self {
            KernelPath::Simt => "sm_80",
            KernelPath::Hopper => "sm_90a",
        }
    }
}

/// One statement of the lowered kernel body: a typed node, the DSL line it implements and an
/// optional explanation. The body is a flat list in which structured control flow is bracketed:
/// [`Op::For`], [`Op::If`] open a block, [`Op::Else`] switches to its second branch and
/// [`Op::End`] closes it; `indent` is the nesting depth, which [`verify`] checks.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub indent: usize,
    pub op: Op,
    /// The DSL line this code implements (`// dsl:LINE`), when it implements one.
    pub dsl_line: Option<u32>,
    /// A short explanation printed after the code (`// dsl:LINE  note`).
    pub note: Option<String>,
}

/// A C++ statement of the kernel body.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `for (int var = init; var < bound; step) {` (`step` defaults to `++var`).
    For {
        var: String,
        init: CExpr,
        bound: CExpr,
        step: Option<CExpr>,
    },
    /// `if (cond) {`, or `if constexpr (cond) {`.
    If { cond: CExpr, constexpr: bool },
    /// `while (cond) {`.
    While { cond: CExpr },
    /// `{`: a block of its own, for the declarations in it.
    Scope,
    /// `} else {`: the second branch of the innermost `If`.
    Else,
    /// `}`: closes the innermost open block.
    End,
    /// `#pragma unroll` for the loop that follows: the whole loop, or by a factor (`: unroll(N)`).
    Unroll(Option<CExpr>),
    /// `__syncthreads();`
    Barrier,
    /// A call of a helper (`tsl_…`), optionally assigning its result.
    Call(Call),
    /// `place = value;`
    Assign { place: CExpr, value: CExpr },
    /// `ty name = init;` (`ty` is the whole C++ type: `const int`, `tsl_f16*`, …).
    Decl {
        ty: CType,
        name: String,
        init: Option<CExpr>,
    },
    /// `ty* name = reinterpret_cast<ty*>(tsl_smem + offset);`: a shared tensor's place in the
    /// kernel's dynamic shared memory (`offset` names its byte offset). Reads no memory.
    SharedPtr {
        ty: CType,
        name: String,
        offset: CExpr,
    },
    /// `asm volatile("template" : outputs : inputs : clobbers);`: inline assembly, its template
    /// and clobbers as the source wrote them (C++ string contents).
    Asm {
        volatile: bool,
        template: String,
        outputs: Vec<AsmArg>,
        inputs: Vec<AsmArg>,
        clobbers: Vec<String>,
    },
    /// `ty name[len];`: an array (of registers, or `__shared__` with its qualifiers in `ty`).
    Array { ty: CType, name: String, len: CExpr },
    /// `ty name[rows][len];`: `rows` arrays of `len` (a register double buffer).
    Array2D {
        ty: CType,
        name: String,
        rows: CExpr,
        len: CExpr,
    },
    /// `if (cond) a();` or `if (cond) { a(); b(); }`: helper calls only the threads for which
    /// `cond` holds make, on one line.
    Guarded { cond: CExpr, calls: Vec<Call> },
    /// `a(); b();`: helper calls that form one step, on one line.
    Calls(Vec<Call>),
    /// `static_assert(cond, "message");`
    StaticAssert { cond: CExpr, message: String },
    /// `// text`: a line of explanation.
    Comment(String),
    /// `{ ty* const tsl_t = a; a = b; b = tsl_t; }`: exchanges two pointers.
    SwapPtrs { ty: CType, a: CExpr, b: CExpr },
    /// `ty a, b;`: several names of one type, declared uninitialised.
    Decls { ty: CType, names: Vec<String> },
    /// `if (cond) place = value;`: an assignment only the threads for which `cond` holds make.
    GuardedAssign {
        cond: CExpr,
        place: CExpr,
        value: CExpr,
    },
    /// `for (int var = 0; var < bound; ++var) call;`: a helper called once per index, on one
    /// line.
    ForCall {
        var: String,
        bound: CExpr,
        call: Call,
    },
    /// `continue;`
    Continue,
    /// `break;`
    Break,
    /// `return;`: the thread leaves the kernel (`yield`).
    Return,
    /// Where the body of a `parallel` statement starts or ends: the region the passes that
    /// work per block body see. Prints nothing; the last pass removes the marks.
    Mark(Mark),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    ParallelStart,
    ParallelEnd,
}

/// `[result = ]name<targs…>(args…);`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Call {
    pub result: Option<CExpr>,
    /// The class the function is a static member of (`tsl_wgmma<tsl_f16, float, 128>::mma`).
    pub scope: Option<CExpr>,
    pub name: String,
    pub targs: Vec<CExpr>,
    pub args: Vec<CExpr>,
}

impl Call {
    pub fn new(name: impl Into<String>) -> Self {
        Call {
            result: None,
            scope: None,
            name: name.into(),
            targs: Vec::new(),
            args: Vec::new(),
        }
    }
    pub fn targs(mut self, t: impl IntoIterator<Item = CExpr>) -> Self {
        self.targs = t.into_iter().collect();
        self
    }
    pub fn args(mut self, a: impl IntoIterator<Item = CExpr>) -> Self {
        self.args = a.into_iter().collect();
        self
    }
    pub fn assign(mut self, to: CExpr) -> Self {
        self.result = Some(to);
        self
    }
    /// `scope::name(…)`: a static member function of the class `scope`.
    pub fn of(mut self, scope: CExpr) -> Self {
        self.scope = Some(scope);
        self
    }
}

/// The names a type mentions.
fn type_names(ty: &CType, out: &mut BTreeSet<String>) {
    ty.names(out)
}

impl Op {
    /// The name a declaration node introduces.
    pub fn declared(&self) -> Option<&str> {
        match self {
            Op::Decl { name, .. }
            | Op::SharedPtr { name, .. }
            | Op::Array { name, .. }
            | Op::Array2D { name, .. } => Some(name),
            _ => None,
        }
    }

    /// The names this node's C++ mentions (types, names, operands).
    pub fn names(&self, out: &mut BTreeSet<String>) {
        match self {
            Op::For {
                var,
                init,
                bound,
                step,
            } => {
                out.insert(var.clone());
                init.names(out);
                bound.names(out);
                if let Some(s) = step {
                    s.names(out);
                }
            }
            Op::If { cond, .. }
            | Op::While { cond }
            | Op::Guarded { cond, .. }
            | Op::StaticAssert { cond, .. } => cond.names(out),
            Op::Assign { place, value } => {
                place.names(out);
                value.names(out);
            }
            Op::Call(_) | Op::Calls(_) => {}
            Op::Array { ty, name, len } => {
                type_names(ty, out);
                out.insert(name.clone());
                len.names(out);
            }
            Op::Array2D {
                ty,
                name,
                rows,
                len,
            } => {
                type_names(ty, out);
                out.insert(name.clone());
                rows.names(out);
                len.names(out);
            }
            Op::SwapPtrs { ty, a, b } => {
                type_names(ty, out);
                a.names(out);
                b.names(out);
            }
            Op::Decl { ty, name, init } => {
                type_names(ty, out);
                out.insert(name.clone());
                if let Some(i) = init {
                    i.names(out);
                }
            }
            Op::Asm {
                outputs, inputs, ..
            } => {
                for a in outputs.iter().chain(inputs) {
                    a.value.names(out);
                }
            }
            Op::SharedPtr { ty, name, offset } => {
                type_names(ty, out);
                out.insert(name.clone());
                offset.names(out);
                out.insert("tsl_smem".into());
            }
            Op::Decls { ty, names } => {
                type_names(ty, out);
                out.extend(names.iter().cloned());
            }
            Op::GuardedAssign { cond, place, value } => {
                cond.names(out);
                place.names(out);
                value.names(out);
            }
            Op::ForCall { var, bound, .. } => {
                out.insert(var.clone());
                bound.names(out);
            }
            Op::Unroll(Some(factor)) => factor.names(out),
            Op::Else
            | Op::End
            | Op::Scope
            | Op::Unroll(None)
            | Op::Barrier
            | Op::Continue
            | Op::Break
            | Op::Return
            | Op::Mark(_)
            | Op::Comment(_) => {}
        }
        for c in self.calls() {
            out.insert(c.name.clone());
            for a in c
                .result
                .iter()
                .chain(&c.scope)
                .chain(&c.targs)
                .chain(&c.args)
            {
                a.names(out);
            }
        }
    }

    /// Whether this node opens a block (`{` at the end of its line).
    pub fn opens(&self) -> bool {
        matches!(
            self,
            Op::For { .. } | Op::If { .. } | Op::While { .. } | Op::Scope
        )
    }
    /// The helper this node calls, if it is a call.
    pub fn call(&self) -> Option<&Call> {
        match self {
            Op::Call(c) => Some(c),
            _ => None,
        }
    }
    /// Every helper call of this node (a call, guarded calls, a line of calls).
    pub fn calls(&self) -> &[Call] {
        match self {
            Op::Call(c) | Op::ForCall { call: c, .. } => std::slice::from_ref(c),
            Op::Guarded { calls, .. } | Op::Calls(calls) => calls,
            _ => &[],
        }
    }
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = &self.result {
            write!(f, "{r} = ")?;
        }
        if let Some(s) = &self.scope {
            write!(f, "{s}::")?;
        }
        f.write_str(&self.name)?;
        if !self.targs.is_empty() {
            f.write_str("<")?;
            super::cxx::comma(f, &self.targs)?;
            f.write_str(">")?;
        }
        f.write_str("(")?;
        super::cxx::comma(f, &self.args)?;
        f.write_str(");")
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::For {
                var,
                init,
                bound,
                step,
            } => {
                write!(f, "for (int {var} = {init}; {var} < {bound}; ")?;
                match step {
                    Some(s) => write!(f, "{s}) {{"),
                    None => write!(f, "++{var}) {{"),
                }
            }
            Op::While { cond } => write!(f, "while ({cond}) {{"),
            Op::If { cond, constexpr } => {
                let c = if *constexpr { " constexpr" } else { "" };
                write!(f, "if{c} ({cond}) {{")
            }
            Op::Else => f.write_str("} else {"),
            Op::Scope => f.write_str("{"),
            Op::End => f.write_str("}"),
            Op::Unroll(None) => f.write_str("#pragma unroll"),
            // A template parameter or an expression needs the parenthesized form.
            Op::Unroll(Some(n)) => match n.to_string() {
                t if t.bytes().all(|b| b.is_ascii_digit()) => write!(f, "#pragma unroll {t}"),
                t => write!(f, "#pragma unroll ({t})"),
            },
            Op::Barrier => f.write_str("__syncthreads();"),
            Op::Call(c) => write!(f, "{c}"),
            Op::Assign { place, value } => write!(f, "{place} = {value};"),
            Op::Asm {
                volatile,
                template,
                outputs,
                inputs,
                clobbers,
            } => {
                let v = if *volatile { " volatile" } else { "" };
                let names: Vec<Option<&str>> = outputs
                    .iter()
                    .chain(inputs)
                    .map(|a| a.name.as_deref())
                    .collect();
                // The parser saw every `%[name]` name an operand.
                let template = positional(template, &names).unwrap_or_else(|| template.clone());
                write!(f, "asm{v}(\"{template}\"")?;
                let sections =
                    crate::ir::ext::asm_sections(outputs.len(), inputs.len(), clobbers.len());
                for args in [outputs, inputs].into_iter().take(sections) {
                    let list: Vec<String> = args.iter().map(|a| format!(" {a}")).collect();
                    write!(f, " :{}", list.join(","))?;
                }
                if sections == 3 {
                    let list: Vec<String> = clobbers.iter().map(|c| format!("\"{c}\"")).collect();
                    write!(f, " : {}", list.join(", "))?;
                }
                write!(f, ");")
            }
            Op::Decl { ty, name, init } => match init {
                Some(i) => write!(f, "{ty} {name} = {i};"),
                None => write!(f, "{ty} {name};"),
            },
            Op::SharedPtr { ty, name, offset } => {
                write!(
                    f,
                    "{ty}* {name} = reinterpret_cast<{ty}*>(tsl_smem + {offset});"
                )
            }
            Op::Array { ty, name, len } => write!(f, "{ty} {name}[{len}];"),
            Op::Array2D {
                ty,
                name,
                rows,
                len,
            } => write!(f, "{ty} {name}[{rows}][{len}];"),
            Op::Guarded { cond, calls } => match calls.as_slice() {
                [c] => write!(f, "if ({cond}) {c}"),
                cs => {
                    write!(f, "if ({cond}) {{")?;
                    for c in cs {
                        write!(f, " {c}")?;
                    }
                    f.write_str(" }")
                }
            },
            Op::Calls(calls) => {
                let text: Vec<String> = calls.iter().map(Call::to_string).collect();
                f.write_str(&text.join(" "))
            }
            Op::StaticAssert { cond, message } => {
                write!(f, "static_assert({cond}, \"{message}\");")
            }
            Op::Comment(text) => write!(f, "// {text}"),
            Op::SwapPtrs { ty, a, b } => {
                write!(f, "{{ {ty}* const tsl_t = {a}; {a} = {b}; {b} = tsl_t; }}")
            }
            Op::Decls { ty, names } => write!(f, "{ty} {};", names.join(", ")),
            Op::GuardedAssign { cond, place, value } => {
                write!(f, "if ({cond}) {place} = {value};")
            }
            Op::ForCall { var, bound, call } => {
                write!(f, "for (int {var} = 0; {var} < {bound}; ++{var}) {call}")
            }
            Op::Continue => f.write_str("continue;"),
            Op::Break => f.write_str("break;"),
            Op::Return => f.write_str("return;"),
            Op::Mark(Mark::ParallelStart) => f.write_str("// <parallel>"),
            Op::Mark(Mark::ParallelEnd) => f.write_str("// </parallel>"),
        }
    }
}

impl Line {
    /// A node with no DSL line and no note.
    pub fn new(indent: usize, op: Op) -> Self {
        Line {
            indent,
            op,
            dsl_line: None,
            note: None,
        }
    }
    /// The C++ of the node with its note (`code  // note`), without indentation or DSL line.
    pub fn text(&self) -> String {
        match &self.note {
            Some(n) => format!("{}  // {n}", self.op),
            None => self.op.to_string(),
        }
    }
}

/// Checks the structure of a body: every block opened is closed at its own depth, `Else` only
/// follows the `If` branch it belongs to, and each line's `indent` is its nesting depth.
pub fn verify(body: &[Line]) -> Result<(), String> {
    // The kinds of the open blocks: true for an `If` whose `else` has not come yet.
    let mut open: Vec<bool> = Vec::new();
    let base = body.first().map(|l| l.indent).unwrap_or(0);
    // The open `parallel` regions, with the block depth at which each started.
    let mut regions: Vec<usize> = Vec::new();
    for (i, l) in body.iter().enumerate() {
        match l.op {
            Op::Mark(Mark::ParallelStart) => {
                regions.push(open.len());
                continue;
            }
            Op::Mark(Mark::ParallelEnd) => {
                if regions.pop() != Some(open.len()) {
                    return Err(format!(
                        "line {i}: a `parallel` region ends in another block"
                    ));
                }
                continue;
            }
            _ => {}
        }
        let depth = match l.op {
            Op::End | Op::Else => open.len().checked_sub(1),
            _ => Some(open.len()),
        }
        .ok_or_else(|| format!("line {i}: `{}` closes no block", l.op))?;
        if l.indent != base + depth {
            return Err(format!(
                "line {i}: `{}` is at depth {}, its block at {}",
                l.op,
                l.indent,
                base + depth
            ));
        }
        match &l.op {
            Op::End => {
                open.pop();
            }
            Op::Else => {
                if open.last() != Some(&true) {
                    return Err(format!("line {i}: `else` without its `if`"));
                }
                *open.last_mut().unwrap() = false;
            }
            Op::If { .. } => open.push(true),
            op if op.opens() => open.push(false),
            Op::Unroll(_) if !matches!(body.get(i + 1).map(|n| &n.op), Some(Op::For { .. })) => {
                return Err(format!("line {i}: `#pragma unroll` before no loop"));
            }
            _ => {}
        }
    }
    if !open.is_empty() {
        return Err(format!("{} block(s) not closed", open.len()));
    }
    if !regions.is_empty() {
        return Err("a `parallel` region does not end".into());
    }
    Ok(())
}

/// How a kernel argument is produced at launch.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// Device pointer of kernel parameter `param` (index into the DSL signature).
    Pointer { param: usize },
    /// A `CUtensorMap` over kernel parameter `param` (2-D, row-major) with this box.
    TensorMap {
        param: usize,
        box_rows: Sym,
        box_cols: Sym,
        swizzle: Sym,
    },
    /// A symbolic dim, as `int`.
    Dim { name: String },
    /// Scalar parameter `param` (`f16 bias`, `int n`) by value: a `float` for a floating
    /// type (the caller's value rounded to the declared type first), else an `int`.
    Scalar { param: usize, float: bool },
    /// Device memory the kernel keeps between its blocks (`streamk;`): `block_bytes` per block
    /// of the launch's grid, zeroed once when allocated and left zeroed by every launch, so the
    /// runtime allocates it once per kernel instance and grid and passes the same buffer again.
    Workspace { block_bytes: Sym },
}

/// What the runtime needs to launch an instance.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchPlan {
    pub grid: [Sym; 3],
    pub block_threads: Sym,
    pub dynamic_smem_bytes: Sym,
    pub args: Vec<KernelArg>,
    /// Restrictions that need problem dims, checked at launch: the condition and the DSL
    /// statement it comes from (`require M % 64 == 0`, `assert(K > 0, "…")`).
    pub launch_requires: Vec<(Sym, String)>,
    /// Outputs the runtime fills with their initializer's value before each launch.
    pub fills: Vec<OutputFill>,
}

/// `f32 [M, N] output {0.0f};` where the kernel itself does not give every element its value
/// (`check::host_fill`): before each launch the runtime sets all `elems` elements of parameter
/// `param` to `value` (converted to the element type), on the launch's stream.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputFill {
    pub param: usize,
    pub value: f64,
    pub elems: Sym,
}

/// One operand of inline assembly: `[name] "constraint"(value)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AsmArg {
    pub name: Option<String>,
    pub constraint: String,
    pub value: CExpr,
}

/// Printed without its name: the template refers to it by position ([`positional`]).
impl fmt::Display for AsmArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"({})", self.constraint, self.value)
    }
}

/// `template` with each `%[name]` replaced by `%N`, `N` the position of the operand of that
/// name among `names` (outputs, then inputs): NVVM takes no symbolic operand references. `%%`
/// stays. `None` when a name has no operand.
pub fn positional(template: &str, names: &[Option<&str>]) -> Option<String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('%') {
            out.push_str("%%");
            rest = tail;
        } else if let Some(tail) = after.strip_prefix('[') {
            let end = tail.find(']')?;
            let k = names.iter().position(|n| *n == Some(&tail[..end]))?;
            out.push_str(&format!("%{k}"));
            rest = &tail[end + 1..];
        } else {
            out.push('%');
            rest = after;
        }
    }
    out.push_str(rest);
    Some(out)
}

/// A kernel parameter: its C++ type and name (`const float* __restrict__` `lhs`).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub ty: CType,
    pub name: String,
}

impl fmt::Display for ParamDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.ty, self.name)
    }
}

/// The kernel's `__cluster_dims__` and `__launch_bounds__`: threads per block, the blocks per
/// SM asked for (`occupancy N;`, the Hopper register split), the cluster size.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchBounds {
    pub threads: Sym,
    pub min_blocks: Option<Sym>,
    pub cluster: Option<Sym>,
    /// `[[maxnreg(N)]]`: `__maxnreg__(N)` in place of `__launch_bounds__` (CUDA takes one).
    pub max_regs: Option<Sym>,
}

impl fmt::Display for LaunchBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(c) = &self.cluster {
            write!(f, "__cluster_dims__({c}, 1, 1) ")?;
        }
        match (&self.max_regs, &self.min_blocks) {
            (Some(n), _) => write!(f, "__maxnreg__({n})"),
            (None, Some(b)) => write!(f, "__launch_bounds__({}, ({b}))", self.threads),
            (None, None) => write!(f, "__launch_bounds__({})", self.threads),
        }
    }
}

/// The value of a kernel-scope `constexpr int`.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    /// Integer arithmetic over tunables and earlier constants.
    Int(Sym),
    /// The same, printed in parentheses as the launch bounds print it (`(1 + (T <= 256))`).
    Grouped(Sym),
    /// A shared buffer's byte offset after the buffer at offset `after` of `bytes` bytes:
    /// `after + bytes` rounded up to `align` (`tsl_align_up`).
    AlignUp {
        after: String,
        bytes: Sym,
        align: i64,
    },
}

impl ConstValue {
    /// The names the value mentions (tunables, earlier constants).
    pub fn names(&self, out: &mut BTreeSet<String>) {
        let mut v = Vec::new();
        match self {
            ConstValue::Int(s) | ConstValue::Grouped(s) => s.names(&mut v),
            ConstValue::AlignUp { after, bytes, .. } => {
                v.push(after.clone());
                bytes.names(&mut v);
            }
        }
        out.extend(v);
    }
}

impl fmt::Display for ConstValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstValue::Int(s) => write!(f, "{s}"),
            ConstValue::Grouped(s) => write!(f, "({s})"),
            ConstValue::AlignUp {
                after,
                bytes,
                align,
            } => write!(
                f,
                "tsl_align_up({after} + {}, {align})",
                bytes.to_cpp_operand()
            ),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct CudaKernel {
    /// The DSL function name.
    pub dsl_name: String,
    /// The C++ kernel name (`tsl_<dsl_name>`).
    pub name: String,
    pub path: KernelPath,
    pub tunables: Vec<crate::tunable::Tunable>,
    /// `constexpr int NAME = value;` lines, in dependency order.
    pub constants: Vec<(String, ConstValue)>,
    /// The parameters, in launch order.
    pub params: Vec<ParamDecl>,
    pub launch_bounds: LaunchBounds,
    pub body: Vec<Line>,
    pub plan: LaunchPlan,
    /// WGMMA instantiations the kernel needs: (accumulator, input) dtype names, e.g. ("f16","f16").
    pub wgmma_types: Vec<(String, String)>,
    /// Kernel parameters (DSL indices) the kernel writes.
    pub written_params: Vec<usize>,
    /// Which N values the WGMMA dispatch must provide (from the tunable domains).
    pub wgmma_ns: Vec<i64>,
    /// The `__device__` functions of the source that the kernel calls (`call f(…)`), as
    /// written, in source order.
    pub device_fns: Vec<crate::ir::DeviceFn>,
}

impl CudaKernel {
    /// `tsl_matmul<32, 32>` for a config, in template-parameter order; the plain name
    /// `tsl_matmul` for a kernel without tunables (not a template).
    pub fn name_expression(&self, values: &[i64]) -> String {
        if self.tunables.is_empty() {
            return self.name.clone();
        }
        let v: Vec<String> = values.iter().map(|x| x.to_string()).collect();
        format!("{}<{}>", self.name, v.join(", "))
    }

    /// The constants known only at launch, printed `const int` where the others are
    /// `constexpr int`: those that name a parameter (a problem size, a scalar) or another such
    /// constant — the offset of a shared buffer after one sized at launch.
    pub fn launch_time_constants(&self) -> BTreeSet<String> {
        let params: BTreeSet<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
        let mut out = BTreeSet::new();
        for (n, v) in &self.constants {
            let mut names = BTreeSet::new();
            v.names(&mut names);
            if names
                .iter()
                .any(|x| params.contains(x.as_str()) || out.contains(x))
            {
                out.insert(n.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(indent: usize, op: Op) -> Line {
        Line::new(indent, op)
    }
    fn cond() -> Op {
        Op::If {
            cond: CExpr::var("x"),
            constexpr: false,
        }
    }

    #[test]
    fn the_verifier_accepts_nested_blocks_and_rejects_broken_ones() {
        let ok = [
            at(0, cond()),
            at(1, Op::Barrier),
            at(0, Op::Else),
            at(1, Op::Unroll(None)),
            at(
                1,
                Op::For {
                    var: "i".into(),
                    init: CExpr::int(0),
                    bound: CExpr::int(4),
                    step: None,
                },
            ),
            at(
                2,
                Op::Assign {
                    place: CExpr::var("a"),
                    value: CExpr::int(1),
                },
            ),
            at(1, Op::End),
            at(0, Op::End),
        ];
        assert_eq!(verify(&ok), Ok(()));
        assert!(verify(&ok[..7]).unwrap_err().contains("not closed"));
        assert!(
            verify(&[at(0, Op::End)])
                .unwrap_err()
                .contains("closes no block")
        );
        assert!(
            verify(&[at(0, cond()), at(0, Op::Barrier), at(0, Op::End)])
                .unwrap_err()
                .contains("depth")
        );
        let twice_else = [
            at(0, cond()),
            at(0, Op::Else),
            at(0, Op::Else),
            at(0, Op::End),
        ];
        assert!(verify(&twice_else).unwrap_err().contains("else"));
        assert!(verify(&[at(0, Op::Unroll(None)), at(0, Op::Barrier)]).is_err());
    }

    #[test]
    fn nodes_print_as_cpp() {
        let c = Call::new("tsl_warp_sum")
            .args([CExpr::var("acc")])
            .assign(CExpr::var("acc"));
        assert_eq!(Op::Call(c).to_string(), "acc = tsl_warp_sum(acc);");
        let c = Call::new("tsl_cp_async_wait").targs([CExpr::int(1)]);
        assert_eq!(Op::Call(c).to_string(), "tsl_cp_async_wait<1>();");
        let f = Op::For {
            var: "t".into(),
            init: CExpr::builtin("blockIdx", "x"),
            bound: CExpr::var("n"),
            step: Some(CExpr::var("t").bin(COp::AddAssign, CExpr::builtin("gridDim", "x"))),
        };
        assert_eq!(
            f.to_string(),
            "for (int t = blockIdx.x; t < n; t += gridDim.x) {"
        );
        let d = Op::Decl {
            ty: "const bool".into(),
            name: "e".into(),
            init: Some(CExpr::Lit("true")),
        };
        assert_eq!(d.to_string(), "const bool e = true;");
        let i = Op::If {
            cond: CExpr::var("S").bin(COp::Gt, CExpr::int(2)),
            constexpr: true,
        };
        assert_eq!(i.to_string(), "if constexpr (S > 2) {");
        let a = Op::Assign {
            place: CExpr::var("acc"),
            value: CExpr::call(
                "fmaf",
                vec![CExpr::var("a"), CExpr::var("b"), CExpr::var("acc")],
            ),
        };
        assert_eq!(a.to_string(), "acc = fmaf(a, b, acc);");
        let mut names = BTreeSet::new();
        a.names(&mut names);
        assert_eq!(
            names.into_iter().collect::<Vec<_>>(),
            ["a", "acc", "b", "fmaf"]
        );
        let arr = Op::Array {
            ty: "__shared__ alignas(8) unsigned long long".into(),
            name: "full".into(),
            len: CExpr::var("STAGES"),
        };
        assert_eq!(
            arr.to_string(),
            "__shared__ alignas(8) unsigned long long full[STAGES];"
        );
        assert_eq!(arr.declared(), Some("full"));
        let arrive = Call::new("tsl_mbar_arrive").args([CExpr::var("bar").addr()]);
        let one = Op::Guarded {
            cond: CExpr::builtin("threadIdx", "x").eq(CExpr::int(0)),
            calls: vec![arrive.clone()],
        };
        assert_eq!(
            one.to_string(),
            "if (threadIdx.x == 0) tsl_mbar_arrive(&bar);"
        );
        let two = Op::Guarded {
            cond: CExpr::var("lead"),
            calls: vec![arrive.clone(), Call::new("tsl_commit")],
        };
        assert_eq!(
            two.to_string(),
            "if (lead) { tsl_mbar_arrive(&bar); tsl_commit(); }"
        );
        let names: Vec<&str> = two.calls().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["tsl_mbar_arrive", "tsl_commit"]);
        let mut ids = BTreeSet::new();
        two.names(&mut ids);
        assert!(ids.contains("lead") && ids.contains("bar") && ids.contains("tsl_commit"));
        let seq = Op::Calls(vec![
            Call::new("tsl_wgmma_commit"),
            Call::new("tsl_wgmma_wait").targs([CExpr::int(0)]),
        ]);
        assert_eq!(seq.to_string(), "tsl_wgmma_commit(); tsl_wgmma_wait<0>();");
        let sa = Op::StaticAssert {
            cond: CExpr::var("BM").rem(CExpr::int(64)).eq(CExpr::int(0)),
            message: "whole tiles".into(),
        };
        assert_eq!(
            sa.to_string(),
            "static_assert(BM % 64 == 0, \"whole tiles\");"
        );
        assert_eq!(Op::Comment("why".into()).to_string(), "// why");
        assert_eq!(Op::Scope.to_string(), "{");
        // Inline assembly: named operands by position, empty sections kept.
        let arg = |n: &str, c: &str, v: &str| AsmArg {
            name: Some(n.into()),
            constraint: c.into(),
            value: CExpr::var(v),
        };
        let asm = Op::Asm {
            volatile: true,
            template: "mov.u32 %[dst], %[src]; // %%r".into(),
            outputs: Vec::new(),
            inputs: vec![arg("src", "r", "x"), arg("dst", "r", "y")],
            clobbers: vec!["memory".into()],
        };
        assert_eq!(
            asm.to_string(),
            r#"asm volatile("mov.u32 %1, %0; // %%r" : : "r"(x), "r"(y) : "memory");"#
        );
        assert_eq!(positional("add %[z]", &[Some("x")]), None);
        let scoped = [at(0, Op::Scope), at(1, Op::Barrier), at(0, Op::End)];
        assert_eq!(verify(&scoped), Ok(()));
        assert!(verify(&[at(0, Op::Scope), at(1, Op::Else), at(0, Op::End)]).is_err());
        let sw = Op::SwapPtrs {
            ty: "float".into(),
            a: CExpr::var("x"),
            b: CExpr::var("y"),
        };
        assert_eq!(
            sw.to_string(),
            "{ float* const tsl_t = x; x = y; y = tsl_t; }"
        );
    }
}
