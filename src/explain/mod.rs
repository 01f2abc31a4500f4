//! `tessel explain`: one self-contained HTML page that shows a kernel's DSL source, the CUDA
//! C++ tessel emits for it and the SASS NVRTC makes of that, linked line by line.
//!
//! ```no_run
//! use tessel::explain::{explain, ExplainRequest};
//! let text = std::fs::read_to_string("kernels/v4_tuned.co").unwrap();
//! let page = explain(&ExplainRequest::new(&text, "kernels/v4_tuned.co")).unwrap();
//! std::fs::write("v4.html", &page.html).unwrap();
//! ```
//!
//! The steps, one module each:
//!
//! * here: parse, check and lower the `.co` text for the `--set` config (the same front end as
//!   `tessel emit`), emit the instantiated `.cu`, compile it with NVRTC (`-lineinfo`) and
//!   disassemble the kernel with `nvdisasm -gi` (all on a CPU);
//! * `linemap.rs`: `// dsl:LINE` tags of the `.cu`, the SASS line table with its inlining
//!   chains, and which DSL line each instruction belongs to;
//! * `classes.rs`: instruction classes (HGMMA, FFMA, UTMALDG, …) and counts per DSL line;
//! * `legend.rs`: what each `tsl_` helper the kernel uses is, read from the emitted `.cu`
//!   itself (its comment and the PTX in its `asm` strings);
//! * `tune.rs`: the one adapter to the tuner's cache (sweep chart, top configs, winner against
//!   cuBLAS, roofline) when a cache for this exact kernel exists; `roofline.rs` draws the
//!   roofline;
//! * `render.rs` (+ `page.css`, `page.js`): the page.

mod classes;
mod html;
mod legend;
mod linemap;
mod render;
mod roofline;
mod tune;

use std::path::PathBuf;

use dsl_core::Diagnostics;
use dsl_core::check::{self, Config};
use dsl_core::lower::{KernelArg, KernelPath, Sym, SymEnv};
use tessel_runtime::nvrtc::{self, Arch, CompileError, CompileRequest};
use tessel_runtime::ptxas::KernelResources;
use tessel_runtime::sass::{self, SassError};

pub use classes::{CLASSES, class_of};
pub use legend::Helper;
pub use linemap::SassInstruction;
pub use roofline::Roofline;
pub use tune::{TopConfig, TuneSummary, identity as tune_identity};

/// What to explain.
#[derive(Clone, Debug)]
pub struct ExplainRequest<'a> {
    /// The `.co` text.
    pub source: &'a str,
    /// Its path (shown on the page and in the `.cu` header; diagnostics name it).
    pub path: &'a str,
    /// `--set NAME=V` values; the other tunables keep their defaults.
    pub sets: Vec<(String, i64)>,
    /// Target architecture; `None`: the kernel's own (`sm_80` SIMT, `sm_90a` Hopper).
    pub arch: Option<Arch>,
    /// Where to look for tuning results: `None` is the tuner's default folder
    /// (`$TESSEL_TUNE_CACHE`, else `~/.cache/tessel/tune`).
    pub tune_cache: Option<PathBuf>,
}

impl<'a> ExplainRequest<'a> {
    /// Default config, the kernel's own architecture, the default tune cache.
    pub fn new(source: &'a str, path: &'a str) -> Self {
        Self {
            source,
            path,
            sets: Vec::new(),
            arch: None,
            tune_cache: None,
        }
    }
}

/// Why no page could be made.
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    /// The DSL does not parse, check or lower (render with `tessel::cli::render`).
    #[error("{path}: the kernel does not compile:\n{diags}")]
    Dsl {
        /// The file the source came from.
        path: String,
        /// Its diagnostics.
        diags: Diagnostics,
    },
    /// `--set` names something that is not a tunable.
    #[error("`{0}` is not a tunable of this kernel")]
    UnknownTunable(String),
    /// A Hopper kernel asked for an architecture without TMA/WGMMA.
    #[error("this kernel takes the {path} path and needs {needs}; {asked} cannot run it")]
    Arch {
        /// The kernel's lowering path.
        path: &'static str,
        /// The architecture that path needs.
        needs: &'static str,
        /// The architecture asked for.
        asked: Arch,
    },
    /// NVRTC failed (or is missing).
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// nvdisasm failed (or is missing).
    #[error(transparent)]
    Disassemble(#[from] SassError),
    /// The cubin has no code for the kernel instance.
    #[error("the disassembly has no function `{0}`")]
    NoFunction(String),
}

/// Facts about the kernel instance, as shown on the page.
#[derive(Clone, Debug)]
pub struct KernelFacts {
    /// The DSL function name (`matmul`).
    pub name: String,
    /// The C++ instance (`tsl_matmul<192, 2, …>`).
    pub name_expression: String,
    /// The lowering path (SIMT or Hopper).
    pub path: KernelPath,
    /// The architecture it was compiled for.
    pub arch: Arch,
    /// Tunable values in template-parameter order.
    pub template_values: Vec<(String, i64)>,
    /// `const`s of the DSL evaluated for this config.
    pub constants: Vec<(String, i64)>,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Shared memory the DSL declares (checker), bytes.
    pub smem_bytes: u64,
    /// The bytes of the shared buffers sized by problem sizes, as C++ over them (the launch
    /// counts them), if any.
    pub smem_at_launch: Option<String>,
    /// ptxas's report for the instance.
    pub resources: Option<KernelResources>,
    /// Launch plan rows: (what, C++ expression, value when it needs no problem size).
    pub launch: Vec<(String, String, Option<i64>)>,
    /// Launch arguments, in order.
    pub args: Vec<String>,
}

/// Per DSL line: where it went.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DslLineFacts {
    /// 1-based DSL line.
    pub line: u32,
    /// `.cu` lines tagged `// dsl:LINE`.
    pub cuda_lines: Vec<u32>,
    /// Indices into [`Page::sass`] of the instructions attributed to it.
    pub sass: Vec<usize>,
    /// Instruction count per class ([`CLASSES`] names and `other`).
    pub counts: Vec<(&'static str, usize)>,
}

/// The page and what was found to make it.
#[derive(Clone, Debug)]
pub struct Page {
    /// The HTML (self-contained: inline CSS, JS and SVG; no network).
    pub html: String,
    /// Facts about the kernel instance.
    pub kernel: KernelFacts,
    /// The `.cu` exactly as compiled.
    pub cuda: String,
    /// DSL line of each `.cu` line (index = line − 1).
    pub cuda_dsl: Vec<Option<u32>>,
    /// The kernel's SASS (labels and instructions) with their line attribution.
    pub sass: Vec<SassInstruction>,
    /// Labels between instructions: (index of the next instruction, label).
    pub labels: Vec<(usize, String)>,
    /// DSL lines that have CUDA or SASS, in line order.
    pub lines: Vec<DslLineFacts>,
    /// Helpers the kernel uses, with what PTX they are.
    pub helpers: Vec<Helper>,
    /// Tuning results for this exact kernel (one per cached shape / GPU).
    pub tune: Vec<TuneSummary>,
}

impl Page {
    /// The facts of one DSL line, if it produced anything.
    pub fn line(&self, line: u32) -> Option<&DslLineFacts> {
        self.lines.iter().find(|l| l.line == line)
    }
}

/// Writes the page of a compiled-in kernel (`gemm_kernel!`'s `KERNEL`) at the tunables `sets`
/// to `out`, for the examples' `--explain` flag (see `tessel_harness::explain`); returns a
/// one-line summary.
pub fn write_for_def(
    def: &dsl_core::def::KernelDef,
    sets: &[(String, i64)],
    out: &std::path::Path,
) -> Result<String, String> {
    let path = def.file.unwrap_or(def.name);
    let mut req = ExplainRequest::new(def.dsl, path);
    req.sets = sets.to_vec();
    let page = explain(&req).map_err(|e| e.to_string())?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(out, &page.html).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(format!(
        "{} ({} KB, {} SASS instructions)",
        out.display(),
        page.html.len() / 1024,
        page.sass.len()
    ))
}

/// Builds the page (see the module doc). Needs NVRTC and nvdisasm, no GPU.
pub fn explain(req: &ExplainRequest) -> Result<Page, ExplainError> {
    let dsl = |diags| ExplainError::Dsl {
        path: req.path.to_string(),
        diags,
    };
    // The launch form, as `tessel emit` lowers it (a body-declared output is a parameter).
    let module = dsl_core::lower::launch_form(
        dsl_core::parse::parse_str(req.source, Some(req.path))
            .map_err(dsl)?
            .module,
    );
    let mut cfg = Config::defaults(&module);
    for (k, v) in &req.sets {
        if module.tunable(k).is_none() {
            return Err(ExplainError::UnknownTunable(k.clone()));
        }
        cfg.values.insert(k.clone(), *v);
    }
    let info = check::check_config(&module, &cfg, None, &check::Limits::default()).map_err(dsl)?;
    let kernel = dsl_core::lower::lower(&module, &info).map_err(dsl)?;

    let own_arch = match kernel.path {
        KernelPath::Simt => Arch::Sm80,
        KernelPath::Hopper => Arch::Sm90a,
    };
    let arch = req.arch.unwrap_or(own_arch);
    if kernel.path == KernelPath::Hopper && arch != Arch::Sm90a {
        return Err(ExplainError::Arch {
            path: "Hopper (TMA + WGMMA)",
            needs: "sm_90a",
            asked: arch,
        });
    }

    let values: Vec<i64> = kernel
        .tunables
        .iter()
        .map(|t| cfg.values.get(&t.name).copied().unwrap_or(t.default))
        .collect();
    let cuda = codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &kernel,
        source: req.path,
        instance: Some(values.clone()),
    });
    let name_expression = kernel.name_expression(&values);
    let request = CompileRequest::new(cuda.clone(), arch)
        .name_expression(name_expression.clone())
        .option("-lineinfo");
    let compiled = nvrtc::compile(&request)?;
    let lowered = compiled
        .lowered_name(&name_expression)
        .unwrap_or(&name_expression)
        .to_string();
    let all_sass = sass::disassemble_with_line_info(&compiled.cubin)?;
    let fn_sass = sass::function_sass(&all_sass, &lowered)
        .ok_or_else(|| ExplainError::NoFunction(lowered.clone()))?;

    let cuda_dsl = linemap::dsl_tags(&cuda);
    let (sass_instrs, labels) = linemap::parse_sass(fn_sass, &linemap::program_file(fn_sass));
    let sass_instrs = linemap::attribute(sass_instrs, &cuda_dsl);
    let lines = dsl_line_facts(&cuda_dsl, &sass_instrs);
    let helpers = legend::helpers(&cuda);

    let mut env: SymEnv = cfg.values.clone().into_iter().collect();
    env.extend(info.constants.iter().map(|(k, v)| (k.clone(), *v)));
    let plan = &kernel.plan;
    let row = |what: &str, s: &Sym| (what.to_string(), s.to_string(), s.eval(&env).ok());
    let mut launch = vec![
        row("grid.x", &plan.grid[0]),
        row("grid.y", &plan.grid[1]),
        row("grid.z", &plan.grid[2]),
        row("block threads", &plan.block_threads),
        row("dynamic shared memory (bytes)", &plan.dynamic_smem_bytes),
    ];
    for (cond, text) in &plan.launch_requires {
        launch.push((text.clone(), cond.to_string(), None));
    }
    let params = &module.kernel.params;
    let pname = |i: usize| {
        params
            .get(i)
            .map(|p| p.name.name.clone())
            .unwrap_or_else(|| format!("#{i}"))
    };
    let args = plan
        .args
        .iter()
        .map(|a| match a {
            KernelArg::Pointer { param } => format!("pointer to `{}`", pname(*param)),
            KernelArg::TensorMap {
                param,
                box_rows,
                box_cols,
                swizzle,
            } => format!(
                "TMA descriptor over `{}`, box [{box_rows}, {box_cols}] = [{}, {}], swizzle {}",
                pname(*param),
                box_rows
                    .eval(&env)
                    .map(|v| v.to_string())
                    .unwrap_or("?".into()),
                box_cols
                    .eval(&env)
                    .map(|v| v.to_string())
                    .unwrap_or("?".into()),
                swizzle
                    .eval(&env)
                    .map(|v| format!("{v} B"))
                    .unwrap_or("?".into()),
            ),
            KernelArg::Dim { name } => format!("int {name}"),
            KernelArg::Scalar { param, float } => format!(
                "{} value of `{}`",
                if *float { "float" } else { "int" },
                pname(*param)
            ),
            KernelArg::Workspace { block_bytes } => format!(
                "workspace of {} bytes per block, zeroed once",
                block_bytes
                    .eval(&env)
                    .map(|v| v.to_string())
                    .unwrap_or("?".into())
            ),
        })
        .collect();

    let kernel_facts = KernelFacts {
        name: kernel.dsl_name.clone(),
        name_expression,
        path: kernel.path,
        arch,
        template_values: kernel
            .tunables
            .iter()
            .zip(&values)
            .map(|(t, v)| (t.name.clone(), *v))
            .collect(),
        constants: info
            .constants
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect(),
        threads_per_block: info.threads_per_block,
        smem_bytes: info.smem_bytes,
        smem_at_launch: info.launch_sized_smem(&module).map(|s| s.to_cpp()),
        resources: compiled.resources_for(&lowered).cloned(),
        launch,
        args,
    };
    let tune = tune::summaries(
        req.source,
        req.path,
        &req.tune_cache
            .clone()
            .unwrap_or_else(tessel_runtime::tune::store::default_dir),
    );

    let mut page = Page {
        html: String::new(),
        kernel: kernel_facts,
        cuda,
        cuda_dsl,
        sass: sass_instrs,
        labels,
        lines,
        helpers,
        tune,
    };
    page.html = render::page(req, &page);
    Ok(page)
}

fn dsl_line_facts(cuda_dsl: &[Option<u32>], sass: &[SassInstruction]) -> Vec<DslLineFacts> {
    let mut by: std::collections::BTreeMap<u32, DslLineFacts> = Default::default();
    for (i, d) in cuda_dsl.iter().enumerate() {
        if let Some(d) = d {
            let e = by.entry(*d).or_insert_with(|| DslLineFacts {
                line: *d,
                ..Default::default()
            });
            e.cuda_lines.push(i as u32 + 1);
        }
    }
    for (i, s) in sass.iter().enumerate() {
        if let Some(d) = s.dsl {
            let e = by.entry(d).or_insert_with(|| DslLineFacts {
                line: d,
                ..Default::default()
            });
            e.sass.push(i);
        }
    }
    for f in by.values_mut() {
        f.counts = classes::count(f.sass.iter().map(|&i| sass[i].mnemonic()));
    }
    by.into_values().collect()
}
