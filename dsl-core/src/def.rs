//! [`KernelDef`]: the static description a `gemm_kernel!` expands to. It carries the DSL text
//! so that any later stage (the runtime's launch plan, the tuner's legality filter) re-derives
//! the IR from the one source of truth instead of trusting copies.

use crate::check::{self, Config, KernelInfo, Limits, Problem};
use crate::diag::Diagnostics;
use crate::ir::{DType, MemSpace, Module};
use crate::lower::{self, CudaKernel};

/// A kernel parameter as declared.
#[derive(Clone, Copy, Debug)]
pub struct ParamDef {
    pub name: &'static str,
    pub dtype: DType,
    pub space: MemSpace,
    /// Dimensions as written (`"M"`, `"K"`).
    pub shape: &'static [&'static str],
}

/// A tunable as declared.
#[derive(Clone, Copy, Debug)]
pub struct TunableDef {
    pub name: &'static str,
    pub domain: &'static [i64],
    pub default: i64,
}

impl From<&TunableDef> for crate::tunable::Tunable {
    fn from(t: &TunableDef) -> crate::tunable::Tunable {
        crate::tunable::Tunable {
            name: t.name.to_string(),
            domain: t.domain.to_vec(),
            default: t.default,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct KernelDef {
    pub name: &'static str,
    /// The DSL text (the macro's tokens, or the `.co` file).
    pub dsl: &'static str,
    /// The `.co` path in file mode.
    pub file: Option<&'static str>,
    /// The emitted CUDA template.
    pub cuda: &'static str,
    /// The IR dump.
    pub ir: &'static str,
    pub params: &'static [ParamDef],
    pub tunables: &'static [TunableDef],
}

impl KernelDef {
    /// What a kernel that failed to compile expands to.
    pub const INVALID: KernelDef = KernelDef {
        name: "",
        dsl: "",
        file: None,
        cuda: "",
        ir: "",
        params: &[],
        tunables: &[],
    };

    /// Parses the DSL text again, in its launch form (a body-declared output is a parameter,
    /// as in [`KernelDef::params`]).
    pub fn module(&self) -> Result<Module, Diagnostics> {
        crate::parse::parse_str(self.dsl, self.file).map(|p| crate::lower::launch_form(p.module))
    }

    pub fn default_config(&self) -> Config {
        Config {
            values: self
                .tunables
                .iter()
                .map(|t| (t.name.to_string(), t.default))
                .collect(),
        }
    }

    /// The legality checks for `config` (and `problem`, when given) with sm_90 limits.
    pub fn check(
        &self,
        config: &Config,
        problem: Option<&Problem>,
    ) -> Result<KernelInfo, Diagnostics> {
        self.check_with(config, problem, &Limits::default())
    }

    pub fn check_with(
        &self,
        config: &Config,
        problem: Option<&Problem>,
        limits: &Limits,
    ) -> Result<KernelInfo, Diagnostics> {
        let m = self.module()?;
        check::check_config(&m, config, problem, limits)
    }

    pub fn smem_bytes(&self, config: &Config) -> Result<u64, Diagnostics> {
        let m = self.module()?;
        check::smem_bytes(&m, config)
    }

    /// Parse, check (defaults) and lower: the launch plan and signature.
    pub fn lowered(&self) -> Result<(Module, CudaKernel), Diagnostics> {
        let m = self.module()?;
        let info = check::check(&m)?;
        let k = lower::lower(&m, &info)?;
        Ok((m, k))
    }
}

/// A dtype variant of a kernel: the same DSL with its 16-bit operands (parameters and shared
/// tensors of the declared input dtype) re-typed, and/or its accumulators (`mma.fill.<d>`,
/// scalar accumulators) re-typed. The output keeps its role: for a bf16 input it becomes bf16,
/// for an f32 accumulator it stays as declared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    pub input: Option<DType>,
    pub acc: Option<DType>,
}

impl Variant {
    pub fn is_default(&self) -> bool {
        self.input.is_none() && self.acc.is_none()
    }
    /// `f16`, `bf16 / f32 acc`, …
    pub fn describe(&self, declared_input: DType, declared_acc: DType) -> String {
        format!(
            "{} in, {} accumulate",
            self.input.unwrap_or(declared_input),
            self.acc.unwrap_or(declared_acc)
        )
    }
}

/// Applies a [`Variant`] to a parsed module.
pub fn retype(m: &Module, v: Variant) -> Module {
    use crate::ir::Stmt;
    let mut out = m.clone();
    let declared = m.kernel.params.first().map(|p| p.dtype);
    if let (Some(to), Some(from)) = (v.input, declared) {
        for p in &mut out.kernel.params {
            if p.dtype == from {
                p.dtype = to;
            }
        }
        for i in 0..out.stmts.len() {
            let h = crate::ir::Handle::from_index(i);
            if let Stmt::TensorDecl { dtype, .. } = &mut out.stmts[h]
                && *dtype == from
            {
                *dtype = to;
            }
        }
    }
    if let Some(acc) = v.acc {
        for i in 0..out.stmts.len() {
            let h = crate::ir::Handle::from_index(i);
            match &mut out.stmts[h] {
                Stmt::MmaFill { dtype, .. } => *dtype = acc,
                Stmt::ScalarDecl { dtype, .. } if dtype.is_float() => *dtype = acc,
                _ => {}
            }
        }
    }
    out
}
