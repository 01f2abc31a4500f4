//! The adapter between the command line and the runtime's GPU side (`tessel run`, `tessel
//! tune`): a `.co` file as the runtime's [`KernelDef`], the problem shape and dtype flags, and
//! opening the device with "no GPU" told apart from other failures.

use clap::Args;
use dsl_core::def::{KernelDef, ParamDef, TunableDef, Variant};
use dsl_core::ir;
use tessel_runtime::device::{Device, DeviceError};

use super::exit;
use super::source::{Failure, KernelArgs, Loaded};

/// The problem and dtype flags `run` and `tune` share.
#[derive(Debug, Clone, Args)]
pub struct ProblemArgs {
    #[command(flatten)]
    pub kernel: KernelArgs,
    /// The problem size: a value for every symbolic dimension of the parameters
    /// (`--shape M=4096,N=4096,K=4096`).
    #[arg(long, value_name = "DIM=N,…", value_delimiter = ',', value_parser = parse_dim, required = true)]
    pub shape: Vec<(String, i64)>,
    /// Run the kernel with these input operands instead of the declared ones.
    #[arg(long, value_name = "f16|bf16|f32", value_parser = parse_dtype)]
    pub dtype: Option<ir::DType>,
    /// Accumulate in this dtype instead of the declared one.
    #[arg(long, value_name = "f16|f32", value_parser = parse_dtype)]
    pub acc: Option<ir::DType>,
}

impl ProblemArgs {
    /// The dtype variant the flags ask for (bf16 operands accumulate in f32 unless told).
    pub fn variant(&self) -> Variant {
        let mut v = Variant {
            input: self.dtype,
            acc: self.acc,
        };
        if v.input == Some(ir::DType::BF16) && v.acc.is_none() {
            v.acc = Some(ir::DType::F32);
        }
        v
    }

    /// The size of dimension `name`, if given.
    pub fn dim(&self, name: &str) -> Option<i64> {
        self.shape.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// `M=… N=… K=…` as given.
    pub fn shape_text(&self) -> String {
        let kv: Vec<String> = self.shape.iter().map(|(k, v)| format!("{k}={v}")).collect();
        kv.join(" ")
    }
}

fn parse_dim(s: &str) -> Result<(String, i64), String> {
    let (k, v) = super::source::parse_set(s)?;
    if v <= 0 {
        return Err(format!("`{k}` must be positive, not {v}"));
    }
    Ok((k, v))
}

fn parse_dtype(s: &str) -> Result<ir::DType, String> {
    match ir::DType::from_name(s) {
        Some(d @ (ir::DType::F16 | ir::DType::BF16 | ir::DType::F32)) => Ok(d),
        _ => Err(format!("`{s}` is not f16, bf16 or f32")),
    }
}

fn leak<T: ?Sized>(b: Box<T>) -> &'static T {
    Box::leak(b)
}

/// The loaded kernel as the [`KernelDef`] the macro would have generated for it: the runtime's
/// launch and tuning APIs take `&'static KernelDef`. Leaked once per command (a process runs
/// one command).
pub fn kernel_def(k: &Loaded) -> &'static KernelDef {
    let m = &k.module;
    let params: Vec<ParamDef> = m
        .kernel
        .params
        .iter()
        .map(|p| {
            let dims: Vec<&'static str> = p
                .shape
                .iter()
                .map(|&d| leak(m.expr_to_string(d).into_boxed_str()))
                .collect();
            ParamDef {
                name: leak(p.name.name.clone().into_boxed_str()),
                dtype: p.dtype,
                space: p.space,
                shape: leak(dims.into_boxed_slice()),
            }
        })
        .collect();
    let tunables: Vec<TunableDef> = m
        .tunables
        .iter()
        .map(|t| TunableDef {
            name: leak(t.name.name.clone().into_boxed_str()),
            domain: leak(t.domain.clone().into_boxed_slice()),
            default: t.default,
        })
        .collect();
    leak(Box::new(KernelDef {
        name: leak(m.kernel.name.name.clone().into_boxed_str()),
        dsl: leak(k.text.clone().into_boxed_str()),
        file: Some(leak(k.file.clone().into_boxed_str())),
        // Empty: the runtime emits the CUDA from the module (for any dtype variant).
        cuda: "",
        ir: leak(m.to_string().into_boxed_str()),
        params: leak(params.into_boxed_slice()),
        tunables: leak(tunables.into_boxed_slice()),
    }))
}

/// A `.co` file, parsed and checked at its defaults, as the [`KernelDef`] that
/// `gemm_kernel!(file = …)` generates for it (without the CUDA text, which the runtime emits):
/// what the runtime's launch and tuning APIs take, for a kernel chosen at run time. The
/// definition is leaked (it lives for the rest of the process).
pub fn kernel_def_from_file(file: &str) -> Result<&'static KernelDef, Failure> {
    let k = Loaded::load(&KernelArgs {
        file: file.to_string(),
        sets: Vec::new(),
        function: None,
    })?;
    Ok(kernel_def(&k))
}

/// Opens GPU 0: no driver or no device is exit 3, any other failure exit 4.
pub fn open_device() -> Result<Device, Failure> {
    Device::open(0).map_err(|e| {
        let no_gpu = match &e {
            DeviceError::Locate(_) | DeviceError::NoDevice { .. } => true,
            DeviceError::Driver { source, .. } => {
                // cudarc's `DriverError` wraps the `CUresult`; its name is what this crate can
                // see without depending on cudarc itself.
                let s = format!("{source:?}");
                s.contains("NO_DEVICE") || s.contains("NOT_INITIALIZED")
            }
            DeviceError::Panicked { .. } => false,
        };
        if no_gpu {
            Failure::new(exit::NO_GPU, format!("no GPU to run on: {e}"))
        } else {
            Failure::new(exit::RUNTIME, format!("cannot open GPU 0: {e}"))
        }
    })
}
