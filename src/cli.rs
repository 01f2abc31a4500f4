//! The `tessel` command line: `check`, `ir` and `emit` on a Croqtile `.co` file, with the same
//! parser, checks and lowering the macro uses, and diagnostics rendered with line, column and
//! a caret (codespan-reporting).

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;
use dsl_core::check::{self, Config};
use dsl_core::{Diagnostics, Span};

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
    if cmd == "check" && sets.is_empty() {
        return check_file(&file, &text);
    }
    let (m, parse_notes) = match dsl_core::parse::parse_str(&text, Some(&file)) {
        Ok(p) => (p.module, p.notes),
        Err(d) => return (render(&file, &text, &d), 1),
    };
    let mut cfg = Config::defaults(&m);
    for (k, v) in &sets {
        if m.tunable(k).is_none() {
            return (format!("error: `{k}` is not a tunable of this kernel\n"), 2);
        }
        cfg.values.insert(k.clone(), *v);
    }
    if cmd == "check" {
        // The language checks; what no lowering handles yet is listed as notes (`emit`
        // reports it as an error).
        return match check::check_language(&m, &cfg, None, &check::Limits::default()) {
            Ok((info, gate)) => {
                let mut out = format!(
                    "{file}: ok ({} threads per block, {} bytes of shared memory)\n",
                    info.threads_per_block, info.smem_bytes
                );
                for d in parse_notes.iter().chain(gate.iter()) {
                    out.push_str(&format!(
                        "note[{}]: {}:{}: {}\n",
                        d.code, file, d.span.start.line, d.message
                    ));
                }
                (out, 0)
            }
            Err(d) => (render(&file, &text, &d), 1),
        };
    }
    // `ir` dumps what the language checks accept; `emit` needs the lowering gate too.
    let checked = if cmd == "ir" {
        check::check_language(&m, &cfg, None, &check::Limits::default()).map(|(i, _)| i)
    } else {
        check::check_config(&m, &cfg, None, &check::Limits::default())
    };
    let info = match checked {
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

/// `tessel check` on a whole file: every `__co__` function is checked on its own (a file
/// with one function prints `FILE: ok (…)`, with several `FILE::name: ok (…)` per function);
/// what no lowering handles yet follows as notes.
fn check_file(file: &str, text: &str) -> (String, i32) {
    let modules = dsl_core::parse::parse_file(text, Some(file));
    let several = modules.len() > 1;
    let mut out = String::new();
    let mut code = 0;
    for (name, parsed) in modules {
        let label = if several {
            format!("{file}::{name}")
        } else {
            file.to_string()
        };
        let p = match parsed {
            Ok(p) => p,
            Err(d) => {
                out.push_str(&render(file, text, &d));
                code = 1;
                continue;
            }
        };
        let cfg = Config::defaults(&p.module);
        match check::check_language(&p.module, &cfg, None, &check::Limits::default()) {
            Ok((info, gate)) => {
                out.push_str(&format!(
                    "{label}: ok ({} threads per block, {} bytes of shared memory)\n",
                    info.threads_per_block, info.smem_bytes
                ));
                for d in p.notes.iter().chain(gate.iter()) {
                    out.push_str(&format!(
                        "note[{}]: {}:{}: {}\n",
                        d.code, file, d.span.start.line, d.message
                    ));
                }
            }
            Err(d) => {
                out.push_str(&render(file, text, &d));
                code = 1;
            }
        }
    }
    (out, code)
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

/// Byte range of a span in `text`.
fn byte_range(text: &str, s: Span) -> std::ops::Range<usize> {
    let offset = |line: u32, col: u32| -> usize {
        let mut off = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i + 1 == line as usize {
                return off
                    + l.char_indices()
                        .nth(col as usize)
                        .map(|(b, _)| b)
                        .unwrap_or(l.trim_end_matches('\n').len());
            }
            off += l.len();
        }
        text.len()
    };
    if s.is_dummy() {
        return 0..0;
    }
    let a = offset(s.start.line, s.start.col);
    // An empty span (a missing `;` at the end of a line) stays empty: a caret, not a range
    // that runs into the next line.
    let b = offset(s.end.line, s.end.col).max(a).min(text.len().max(a));
    a..b
}

/// Diagnostics with file, line, column and a caret under the DSL token.
pub fn render(file: &str, text: &str, diags: &Diagnostics) -> String {
    let f = SimpleFile::new(file, text);
    let mut out = String::new();
    let config = term::Config::default();
    for d in diags.iter() {
        let mut labels = vec![Label::primary((), byte_range(text, d.span))];
        for (s, n) in &d.notes {
            if !s.is_dummy() {
                labels.push(Label::secondary((), byte_range(text, *s)).with_message(n.clone()));
            }
        }
        let mut notes: Vec<String> = d
            .notes
            .iter()
            .filter(|(s, _)| s.is_dummy())
            .map(|(_, n)| n.clone())
            .collect();
        if let Some(h) = &d.help {
            notes.push(format!("help: {h}"));
        }
        let cd = CsDiagnostic::error()
            .with_code(d.code)
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(notes);
        let _ = term::emit_to_string(&mut out, &config, &f, &cd);
    }
    out
}
