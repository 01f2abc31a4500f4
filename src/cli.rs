//! The `tessel` command line: `check`, `ir` and `emit` on a Croqtile `.co` file, with the same
//! parser, checks and lowering the macro uses, and diagnostics rendered with line, column and
//! a caret (codespan-reporting).

use dsl_core::Diagnostics;
use dsl_core::check::{self, Config};

pub const USAGE: &str = "usage:
  tessel check FILE.co                 parse and check; print diagnostics
  tessel ir    FILE.co [--set NAME=V]  print the checked IR and the config's facts
  tessel emit  FILE.co [--set NAME=V]  print the CUDA C++ (instantiated for the config)";

/// Runs a command; returns (stdout text, exit code). Errors go in the text, rendered.
pub fn run(args: &[String]) -> (String, i32) {
    let (cmd, file, sets) = match parse_args(args) {
        Ok(v) => v,
        Err(e) => return (format!("error: {e}\n{USAGE}\n"), 2),
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => return (format!("error: cannot read {file}: {e}\n"), 2),
    };
    let m = match dsl_core::parse::parse_str(&text, Some(&file)) {
        Ok(p) => p.module,
        Err(d) => return (render(&file, &text, &d), 1),
    };
    let mut cfg = Config::defaults(&m);
    for (k, v) in &sets {
        if m.tunable(k).is_none() {
            return (format!("error: `{k}` is not a tunable of this kernel\n"), 2);
        }
        cfg.values.insert(k.clone(), *v);
    }
    let info = match check::check_config(&m, &cfg, None, &check::Limits::default()) {
        Ok(i) => i,
        Err(d) => return (render(&file, &text, &d), 1),
    };
    match cmd.as_str() {
        "check" => (
            format!(
                "{file}: ok ({} threads per block, {} bytes of shared memory)\n",
                info.threads_per_block, info.smem_bytes
            ),
            0,
        ),
        "ir" => {
            let cfg_text: Vec<String> =
                cfg.values.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let consts: Vec<String> = info
                .constants
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            (
                format!(
                    "{m}// config: {}\n// constants: {}\n// threads per block: {}, shared memory: {} bytes\n",
                    cfg_text.join(" "),
                    consts.join(" "),
                    info.threads_per_block,
                    info.smem_bytes
                ),
                0,
            )
        }
        "emit" => match dsl_core::lower::lower(&m, &info) {
            Ok(k) => {
                let inst: Vec<i64> = m
                    .tunables
                    .iter()
                    .map(|t| cfg.values[&t.name.name])
                    .collect();
                (
                    codegen_cuda::emit(&codegen_cuda::Emit {
                        kernel: &k,
                        source: &file,
                        instance: Some(inst),
                    }),
                    0,
                )
            }
            Err(d) => (render(&file, &text, &d), 1),
        },
        other => (format!("error: unknown command `{other}`\n{USAGE}\n"), 2),
    }
}

fn parse_args(args: &[String]) -> Result<(String, String, Vec<(String, i64)>), String> {
    let cmd = args.first().ok_or("missing command")?.clone();
    let file = args.get(1).ok_or("missing FILE.co")?.clone();
    let mut sets = Vec::new();
    let mut i = 2;
    while i < args.len() {
        match args[i].as_str() {
            "--set" => {
                let kv = args.get(i + 1).ok_or("--set needs NAME=VALUE")?;
                let (k, v) = kv.split_once('=').ok_or("--set needs NAME=VALUE")?;
                let v: i64 = v.parse().map_err(|_| format!("`{v}` is not an integer"))?;
                sets.push((k.to_string(), v));
                i += 2;
            }
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    Ok((cmd, file, sets))
}

/// Diagnostics with file, line, column and a caret under the DSL token (bounded: see
/// `dsl_core::render`).
pub fn render(file: &str, text: &str, diags: &Diagnostics) -> String {
    dsl_core::render::render(file, text, diags)
}
