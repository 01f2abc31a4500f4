//! `tessel compile FILE.co [--set NAME=V] [--arch sm_90a] [-o FILE.cubin]`: NVRTC → cubin,
//! then what ptxas reported (registers, shared memory, spills) and the kernel's SASS counted by
//! instruction class. Needs NVRTC and nvdisasm (`tessel setup-nvrtc`), no GPU.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use tessel_runtime::nvrtc::{self, Arch, CompileRequest};
use tessel_runtime::sass;

use super::exit;
use super::source::{Failure, KernelArgs, Loaded, output_dir};

/// Arguments of `compile`.
#[derive(Debug, Clone, Args)]
pub struct CompileArgs {
    #[command(flatten)]
    pub kernel: KernelArgs,
    /// Target architecture: sm_80, sm_86, sm_89 or sm_90a.
    #[arg(long, value_name = "ARCH", default_value = "sm_90a", value_parser = parse_arch)]
    pub arch: Arch,
    /// Where to write the cubin (default: `$CARGO_TARGET_DIR/tessel/`, `target/tessel/` or
    /// the temporary folder, as `<file stem>.<arch>.cubin`).
    #[arg(short, long, value_name = "FILE.cubin")]
    pub output: Option<PathBuf>,
}

fn parse_arch(s: &str) -> Result<Arch, String> {
    s.parse::<Arch>().map_err(|e| e.to_string())
}

/// Instruction classes of the summary, in print order: (class, mnemonics). A mnemonic in none
/// of them is counted under "other".
pub const CLASSES: &[(&str, &[&str])] = &[
    (
        "tensor core",
        &["HGMMA", "HMMA", "IMMA", "QGMMA", "IGMMA", "WARPGROUP"],
    ),
    (
        "fp arithmetic",
        &[
            "FFMA", "FADD", "FMUL", "FMNMX", "HFMA2", "HADD2", "HMUL2", "F2F", "F2FP", "MUFU",
        ],
    ),
    (
        "TMA",
        &["UTMALDG", "UTMASTG", "UTMAPF", "UTMACMDFLUSH", "UBLKCP"],
    ),
    ("async copy", &["LDGSTS", "LDGDEPBAR", "DEPBAR"]),
    ("global memory", &["LDG", "STG", "RED", "ATOMG", "LD", "ST"]),
    ("shared memory", &["LDS", "STS", "LDSM", "STSM", "ATOMS"]),
    ("local memory", &["LDL", "STL"]),
    (
        "synchronization",
        &[
            "BAR",
            "SYNCS",
            "MEMBAR",
            "WARPSYNC",
            "ARRIVES",
            "ERRBAR",
            "CCTL",
            "FENCE",
            "UCGABAR_ARV",
            "UCGABAR_WAIT",
            "CGAERRBAR",
        ],
    ),
    (
        "integer/address",
        &[
            "IMAD", "IADD3", "LEA", "LOP3", "SHF", "ISETP", "VIADD", "IMNMX", "VIMNMX", "IABS",
            "SEL", "PRMT", "F2I", "I2F", "UIADD3", "UIMAD", "ULEA", "ULOP3", "USHF", "PLOP3",
            "P2R",
        ],
    ),
    (
        "moves",
        &["MOV", "UMOV", "CS2R", "S2R", "S2UR", "R2UR", "LDC", "ULDC"],
    ),
    (
        "control",
        &[
            "BRA",
            "BSSY",
            "BSYNC",
            "EXIT",
            "CALL",
            "RET",
            "YIELD",
            "NOP",
            "ELECT",
            "USETMAXREG",
        ],
    ),
];

/// Counts of each mnemonic, grouped by [`CLASSES`] (then "other"); classes without an
/// instruction are left out.
pub fn sass_summary(sass_text: &str) -> Vec<(&'static str, BTreeMap<String, usize>)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for i in sass::instructions(sass_text) {
        *counts.entry(i.mnemonic().to_string()).or_default() += 1;
    }
    let mut out: Vec<(&'static str, BTreeMap<String, usize>)> = Vec::new();
    for (class, members) in CLASSES {
        let found: BTreeMap<String, usize> = counts
            .iter()
            .filter(|(m, _)| members.contains(&m.as_str()))
            .map(|(m, c)| (m.clone(), *c))
            .collect();
        counts.retain(|m, _| !found.contains_key(m));
        if !found.is_empty() {
            out.push((class, found));
        }
    }
    if !counts.is_empty() {
        out.push(("other", counts));
    }
    out
}

/// Runs `compile`.
pub fn run(args: &CompileArgs) -> Result<String, Failure> {
    let k = Loaded::load(&args.kernel)?;
    let kernel = dsl_core::lower::lower(&k.module, &k.info).map_err(|d| k.diagnostics(&d))?;
    if kernel.path == dsl_core::lower::KernelPath::Hopper && args.arch != Arch::Sm90a {
        return Err(Failure::new(
            exit::USAGE,
            format!(
                "`{}` lowers to the Hopper path (TMA, WGMMA), which only sm_90a has; not {}",
                k.module.kernel.name.name, args.arch
            ),
        ));
    }
    let runtime =
        |what: &str, e: &dyn std::fmt::Display| Failure::new(exit::RUNTIME, format!("{what}: {e}"));
    let cuda = codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &kernel,
        source: &k.file,
        instance: None,
    });
    let expr = kernel.name_expression(&k.template_values());
    let req = CompileRequest::new(cuda, args.arch).name_expression(&expr);
    let module = nvrtc::compile(&req).map_err(|e| runtime("NVRTC", &e))?;
    let lowered = module.lowered_name(&expr).ok_or_else(|| {
        Failure::new(
            exit::RUNTIME,
            format!("NVRTC returned no lowered name for `{expr}`"),
        )
    })?;
    let path = match &args.output {
        Some(p) => p.clone(),
        None => {
            let stem = std::path::Path::new(&k.file)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "kernel".into());
            output_dir().join(format!("{stem}.{}.cubin", args.arch))
        }
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| runtime(&format!("cannot create {}", dir.display()), &e))?;
    }
    std::fs::write(&path, &module.cubin)
        .map_err(|e| runtime(&format!("cannot write {}", path.display()), &e))?;
    let all_sass = sass::disassemble(&module.cubin).map_err(|e| runtime("nvdisasm", &e))?;
    let fn_sass = sass::function_sass(&all_sass, lowered).unwrap_or(&all_sass);

    let mut out = String::new();
    let name = &k.module.kernel.name.name;
    let _ = writeln!(
        out,
        "kernel        {name} ({}), {}",
        k.file,
        k.config_text()
    );
    let (major, minor) = module.nvrtc_version;
    let _ = writeln!(out, "arch          {} (NVRTC {major}.{minor})", args.arch);
    let _ = writeln!(
        out,
        "cubin         {} ({} bytes)",
        path.display(),
        module.cubin.len()
    );
    let _ = writeln!(out, "function      {expr} = {lowered}");
    let _ = writeln!(out, "block         {} threads", k.info.threads_per_block);
    match module.resources_for(&expr) {
        Some(r) => {
            let _ = writeln!(out, "registers     {} per thread", r.registers);
            let _ = writeln!(
                out,
                "shared memory {} bytes ({} static, {} dynamic)",
                r.smem_bytes as u64 + k.info.smem_bytes,
                r.smem_bytes,
                k.info.smem_bytes
            );
            let _ = writeln!(
                out,
                "spills        {} bytes stored, {} bytes loaded, {} bytes of stack frame",
                r.spill_stores, r.spill_loads, r.stack_frame
            );
        }
        None => {
            let _ = writeln!(out, "registers     (no ptxas report for `{lowered}`)");
        }
    }
    for w in module.perf_warnings() {
        let _ = writeln!(out, "ptxas         {w}");
    }
    let total = sass::instructions(fn_sass).count();
    let _ = writeln!(out, "sass          {total} instructions");
    for (class, counts) in sass_summary(fn_sass) {
        let n: usize = counts.values().sum();
        let items: Vec<String> = counts.iter().map(|(m, c)| format!("{m} {c}")).collect();
        let _ = writeln!(out, "  {class:<16}{n:>6}  {}", items.join(", "));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_groups_mnemonics_by_class() {
        let text = "\
        /*0000*/                   LDGSTS.E.BYPASS.128 [R1], desc[UR4][R2.64] ;
        /*0010*/                   FFMA R7, R0, UR6, R7 ;
        /*0020*/                   FFMA R8, R0, UR6, R8 ;
        /*0030*/              @!P0 BRA `(.L_x_0) ;
        /*0040*/                   HGMMA.64x128x16.F32 R24, gdesc[UR4], R24 ;
        /*0050*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0060*/                   LDS.128 R4, [R3] ;
";
        let s = sass_summary(text);
        let classes: Vec<&str> = s.iter().map(|(c, _)| *c).collect();
        assert_eq!(
            classes,
            [
                "tensor core",
                "fp arithmetic",
                "async copy",
                "shared memory",
                "synchronization",
                "control"
            ]
        );
        assert_eq!(s[1].1["FFMA"], 2);
        assert_eq!(s[5].1["BRA"], 1);
        let other = sass_summary("        /*0000*/                   FOO R1 ;\n");
        assert_eq!(other[0].0, "other");
        assert_eq!(s[0].1["HGMMA"], 1);
    }
}
