//! The lowered kernel: a template-ready description of one CUDA C++ kernel. Every string the
//! templates print is computed here; `codegen-cuda` only arranges them.

use super::sym::Sym;
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

/// A tunable as a C++ template parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateParam {
    pub name: String,
    pub domain: Vec<i64>,
    pub default: i64,
}

impl TemplateParam {
    /// Domain text for the header comment (`[128, 136, …, 256]` for long ranges).
    pub fn domain_text(&self) -> String {
        let d = &self.domain;
        if d.len() > 6 {
            let step = d[1] - d[0];
            if d.windows(2).all(|w| w[1] - w[0] == step) {
                return format!("{}..={} step {}", d[0], d[d.len() - 1], step);
            }
        }
        let v: Vec<String> = d.iter().map(|x| x.to_string()).collect();
        format!("[{}]", v.join(", "))
    }
}

/// One line of kernel body.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub indent: usize,
    pub code: String,
    /// The DSL line this code implements (`// dsl:LINE`), when it implements one.
    pub dsl_line: Option<u32>,
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
}

/// What the runtime needs to launch an instance.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchPlan {
    pub grid: [Sym; 3],
    pub block_threads: Sym,
    pub dynamic_smem_bytes: Sym,
    pub args: Vec<KernelArg>,
    /// Restrictions that need problem dims (checked at launch): (condition, DSL text, reason).
    pub launch_requires: Vec<(Sym, String)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CudaKernel {
    /// The DSL function name.
    pub dsl_name: String,
    /// The C++ kernel name (`tsl_<dsl_name>`).
    pub name: String,
    pub path: KernelPath,
    pub tunables: Vec<TemplateParam>,
    /// `constexpr int NAME = expr;` lines, in dependency order.
    pub constants: Vec<(String, String)>,
    /// C++ parameter declarations, in launch order.
    pub params: Vec<String>,
    pub launch_bounds: String,
    pub body: Vec<Line>,
    pub plan: LaunchPlan,
    /// WGMMA instantiations the kernel needs: (accumulator, input) dtype names, e.g. ("f16","f16").
    pub wgmma_types: Vec<(String, String)>,
    /// Kernel parameters (DSL indices) the kernel writes.
    pub written_params: Vec<usize>,
    /// Which N values the WGMMA dispatch must provide (from the tunable domains).
    pub wgmma_ns: Vec<i64>,
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
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.indent {
            f.write_str("  ")?;
        }
        // One trailing comment: `code  // dsl:LINE  explanation`.
        let (code, note) = match self.code.split_once("  // ") {
            Some((c, n)) => (c, Some(n)),
            None => (self.code.as_str(), None),
        };
        f.write_str(code)?;
        match (self.dsl_line, note) {
            (Some(l), Some(n)) => write!(f, "  // dsl:{l}  {n}"),
            (Some(l), None) => write!(f, "  // dsl:{l}"),
            (None, Some(n)) => write!(f, "  // {n}"),
            (None, None) => Ok(()),
        }
    }
}
