//! tessel's CUDA back end: renders a lowered [`CudaKernel`] as one self-contained `.cu` file
//! (helpers + kernel + launch notes) with askama templates. The templates hold no logic: every
//! string is computed here from the lowered kernel, and each template is one concern
//! (`header.cu`, `prelude.cu`, `kernel.cu`, `launch.cu`).
//!
//! The helpers are the inline-PTX headers in `cuda/` (no CUDA headers: NVRTC has none), included
//! by path: the SIMT path gets the scalar and `cp.async` helpers, the Hopper path the mbarrier /
//! TMA / WGMMA helpers and only the WGMMA specializations its tunable domains can reach.

mod prelude;
pub mod wgmma;
pub mod wgmma_rs;
pub mod wgmma_sp;
pub mod wgmma_tb;
mod writer;

use askama::Template;
use dsl_core::lower::{CudaKernel, KernelArg, KernelPath};

pub use wgmma::specializations as wgmma_specializations;

/// One tunable row of the header comment.
pub struct TunableRow {
    pub name: String,
    pub domain: String,
    pub default: i64,
    /// The value of this file's instance, if it is instantiated.
    pub chosen: String,
}

/// A helper section.
pub struct Section {
    pub name: &'static str,
    pub text: String,
}

#[derive(Template)]
#[template(path = "file.cu", escape = "none")]
struct File<'a> {
    title: &'a str,
    source: &'a str,
    path_desc: &'static str,
    arch: &'static str,
    tunables: Vec<TunableRow>,
    sections: Vec<Section>,
    template_params: String,
    launch_bounds: String,
    name: &'a str,
    params: Vec<String>,
    /// `constexpr` (or `const`, for one known only at launch), name, value.
    constants: Vec<(&'static str, String, String)>,
    uses_smem: bool,
    smem_align: i64,
    body: Vec<String>,
    grid: (String, String, String),
    block: String,
    smem: String,
    args: Vec<String>,
    requires: Vec<String>,
    /// Outputs the runtime fills before each launch.
    fills: Vec<String>,
    instances: Vec<String>,
    /// The source's `__device__` functions the kernel calls: (first line, text).
    device_fns: Vec<(u32, String)>,
}

/// What to render.
pub struct Emit<'a> {
    pub kernel: &'a CudaKernel,
    /// Where the DSL came from (`kernels/v4_tuned.co`, or the Rust file of the macro).
    pub source: &'a str,
    /// Tunable values to instantiate explicitly at the end of the file (in template order).
    pub instance: Option<Vec<i64>>,
}

/// The `.cu` text.
pub fn emit(e: &Emit) -> String {
    let k = e.kernel;
    let tunables = k
        .tunables
        .iter()
        .enumerate()
        .map(|(i, t)| TunableRow {
            name: t.name.clone(),
            domain: t.domain_text(),
            default: t.default,
            chosen: e
                .instance
                .as_ref()
                .and_then(|v| v.get(i))
                .map(|v| v.to_string())
                .unwrap_or_default(),
        })
        .collect();
    let template_params = if k.tunables.is_empty() {
        String::new()
    } else {
        k.tunables
            .iter()
            .map(|t| format!("int {}", t.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let param_types: Vec<String> = k.params.iter().map(|p| p.ty.to_string()).collect();
    // A kernel without tunables is a plain function: nothing to instantiate.
    let instances = match &e.instance {
        Some(v) if !k.tunables.is_empty() => vec![format!(
            "{}({})",
            k.name_expression(v),
            param_types.join(", ")
        )],
        _ => vec![],
    };
    let plan = &k.plan;
    let body = writer::write(&k.body);
    let args = plan
        .args
        .iter()
        .map(|a| match a {
            KernelArg::Pointer { param } => format!("device pointer of parameter #{param}"),
            KernelArg::TensorMap {
                param,
                box_rows,
                box_cols,
                swizzle,
            } => format!(
                "CUtensorMap over parameter #{param}, box [{box_rows}, {box_cols}], swizzle {}",
                if *swizzle == dsl_core::lower::Sym::Int(0) {
                    "none".to_string()
                } else {
                    format!("{swizzle} bytes")
                }
            ),
            KernelArg::Dim { name } => format!("int {name}"),
            KernelArg::Scalar { param, float } => format!(
                "{} value of scalar parameter #{param}",
                if *float { "float" } else { "int" }
            ),
            KernelArg::Workspace { block_bytes } => format!(
                "workspace of grid.x * {block_bytes} bytes, zeroed once (kept between launches)"
            ),
        })
        .collect();
    let file = File {
        title: &format!("tessel kernel `{}`", k.dsl_name),
        source: e.source,
        path_desc: match k.path {
            KernelPath::Simt
                if dsl_core::lower::WARP_MMA_HELPERS
                    .iter()
                    .any(|h| body.calls.contains(*h)) =>
            {
                "SIMT with warp-level tensor cores (mma.sync, ldmatrix, cp.async tile copies)"
            }
            KernelPath::Simt => "SIMT (scalar FMA, cp.async tile copies)",
            KernelPath::Hopper
                if dsl_core::lower::WARP_MMA_HELPERS
                    .iter()
                    .chain(dsl_core::lower::WARP_SWZ_HELPERS.iter())
                    .any(|h| body.calls.contains(*h)) =>
            {
                "Hopper with warp-level tensor cores (TMA + mbarrier, ldmatrix, mma.sync)"
            }
            KernelPath::Hopper => "Hopper (TMA + WGMMA + mbarrier)",
        },
        arch: k.path.min_arch(),
        tunables,
        sections: prelude::sections(k, &body.calls),
        template_params,
        launch_bounds: k.launch_bounds.to_string(),
        name: &k.name,
        params: k.params.iter().map(|p| p.to_string()).collect(),
        constants: {
            let at_launch = k.launch_time_constants();
            k.constants
                .iter()
                .map(|(n, v)| {
                    let q = if at_launch.contains(n) {
                        "const"
                    } else {
                        "constexpr"
                    };
                    (q, n.clone(), v.to_string())
                })
                .collect()
        },
        uses_smem: !plan.dynamic_smem_bytes.eq(&dsl_core::lower::Sym::Int(0)),
        smem_align: if k.path == KernelPath::Hopper {
            1024
        } else {
            128
        },
        body: body.lines,
        grid: (
            plan.grid[0].to_cpp(),
            plan.grid[1].to_cpp(),
            plan.grid[2].to_cpp(),
        ),
        block: plan.block_threads.to_cpp(),
        smem: plan.dynamic_smem_bytes.to_cpp(),
        args,
        requires: plan.launch_requires.iter().map(|r| r.1.clone()).collect(),
        fills: plan
            .fills
            .iter()
            .map(|f| {
                format!(
                    "all {} elements of parameter #{} set to {} (its initializer)",
                    f.elems.to_cpp(),
                    f.param,
                    f.value
                )
            })
            .collect(),
        instances,
        device_fns: k
            .device_fns
            .iter()
            .map(|f| (f.line, f.text.clone()))
            .collect(),
    };
    let mut s = file
        .render()
        .expect("askama rendering of plain strings cannot fail");
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}
