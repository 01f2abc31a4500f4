//! The front end's resource bounds on generated 10 MB inputs: for each generator, the time and
//! peak memory of the whole pipeline the CLI runs (parse → check → lower → emit, diagnostics
//! rendered), each in a child process of its own so that peak memory is per input.
//!
//! ```sh
//! cargo run --release --example frontend_limits              # every generator, 10 MB each
//! cargo run --release --example frontend_limits -- --mb 2    # smaller inputs
//! cargo run --release --example frontend_limits -- deep_parens   # one generator
//! ```
//!
//! The bound the front end promises (RELIABILITY.md): any 10 MB input in at most 5 s and 1 GB
//! in release. The table's last column says whether each input stayed within it.

use std::process::Command;
use std::time::Instant;

/// The size bound, seconds and bytes.
const MAX_SECONDS: f64 = 5.0;
const MAX_BYTES: u64 = 1 << 30;

/// A SIMT kernel around `body` (statements inside the thread level), after `header`.
fn kernel(header: &str, body: &str) -> String {
    format!(
        "{header}
tunable TILE in [16, 32] = 16;
__co__ void matmul(global f32 [M, K] lhs, global f32 [N, K] rhs, global f32 [M, N] output) {{
  parallel {{bm, bn}} by [cdiv(M, TILE), cdiv(N, TILE)] : block,
           {{tm, tn}} by [TILE, TILE] : thread {{
    f32 acc = 0.0f;
{body}
    output.at(bm # tm, bn # tn) = acc;
  }}
}}
"
    )
}

/// Repeats `f(i)` until the text reaches `bytes`.
fn fill(bytes: usize, mut f: impl FnMut(usize) -> String) -> String {
    let mut s = String::with_capacity(bytes + 256);
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(&f(i));
        i += 1;
    }
    s
}

type Generator = fn(usize) -> String;

/// Every generator: name, what it stresses, and the text of `bytes` bytes it makes.
const GENERATORS: &[(&str, &str, Generator)] = &[
    (
        "long_names",
        "40,000-char names, each misspelt (suggestion search)",
        |bytes| {
            let name = "n".repeat(40_000);
            let header = format!("const {name} = 1;");
            let body = fill(bytes, |i| format!("    acc += {name}{};\n", i % 10));
            kernel(&header, &body)
        },
    ),
    (
        "many_check_errors",
        "hundreds of thousands of unknown names (check errors, rendering)",
        |bytes| kernel("", &fill(bytes, |i| format!("    acc += zz{i};\n"))),
    ),
    (
        "many_parse_errors",
        "hundreds of thousands of malformed statements (parse recovery)",
        |bytes| kernel("", &fill(bytes, |i| format!("    bogus{i} @ ;\n"))),
    ),
    (
        "one_line_errors",
        "the many-errors file on a single line",
        |bytes| kernel("", &fill(bytes, |i| format!("acc += zz{i}; "))),
    ),
    ("deep_parens", "5 million nested parentheses", |bytes| {
        let n = bytes / 2;
        kernel(
            "",
            &format!("    acc = {}1{};", "(".repeat(n), ")".repeat(n)),
        )
    }),
    ("deep_blocks", "nested `if` blocks", |bytes| {
        let n = bytes / 12;
        kernel("", &format!("{}{}", "if (1) { ".repeat(n), "} ".repeat(n)))
    }),
    ("long_chain", "one operator chain `1 + 1 + …`", |bytes| {
        kernel("", &format!("    acc = 1{};", " + 1".repeat(bytes / 4)))
    }),
    (
        "huge_body",
        "a valid kernel whose body is 10 MB of statements (over the token limit)",
        |bytes| {
            let body = fill(bytes, |_| {
                "    foreach {k} in [K]\n      acc += lhs.at(bm # tm, k) * rhs.at(bn # tn, k);\n"
                    .to_string()
            });
            kernel("", &body)
        },
    ),
    (
        "many_tunables",
        "a header of tunables and constants",
        |bytes| {
            let header = fill(bytes, |i| {
                format!("tunable T{i} in [1, 2] = 1;\nconst C{i} = T{i} * 2 + 1;\n")
            });
            kernel(&header, "")
        },
    ),
    (
        "valid_body_at_token_limit",
        "a valid kernel just under the token limit (check, lower, emit all run)",
        |bytes| {
            let body = fill(bytes.min(AT_LIMIT), |_| {
                "    foreach {k} in [K]\n      acc += lhs.at(bm # tm, k) * rhs.at(bn # tn, k);\n"
                    .to_string()
            });
            kernel("", &body)
        },
    ),
    (
        "errors_at_token_limit",
        "unknown names just under the token limit (every check runs)",
        |bytes| {
            kernel(
                "",
                &fill(bytes.min(AT_LIMIT), |i| format!("    acc += zz{i};\n")),
            )
        },
    ),
    (
        "tunables_at_token_limit",
        "tunables and constants just under the token limit",
        |bytes| {
            let header = fill(bytes.min(AT_LIMIT * 3 / 4), |i| {
                format!("tunable T{i} in [1, 2] = 1;\nconst C{i} = T{i} * 2 + 1;\n")
            });
            kernel(&header, "")
        },
    ),
];

/// Bytes of generated text that stay just under the parser's token limit (1 Mi tokens).
const AT_LIMIT: usize = 1_900_000;

/// Peak resident memory of this process (Linux `VmHWM`), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The CLI's pipeline on `text`: the stage it stopped at, diagnostics, output bytes.
fn pipeline(text: &str) -> (&'static str, usize, usize) {
    use dsl_core::check::{self, Config, Limits};
    let file = "generated.co";
    let m = match dsl_core::parse::parse_str(text, Some(file)) {
        Ok(p) => p.module,
        Err(d) => {
            return (
                "parse",
                d.len(),
                dsl_core::render::render(file, text, &d).len(),
            );
        }
    };
    let info = match check::check_config(&m, &Config::defaults(&m), None, &Limits::default()) {
        Ok(i) => i,
        Err(d) => {
            return (
                "check",
                d.len(),
                dsl_core::render::render(file, text, &d).len(),
            );
        }
    };
    match dsl_core::lower::lower(&m, &info) {
        Ok(k) => {
            let cu = codegen_cuda::emit(&codegen_cuda::Emit {
                kernel: &k,
                source: file,
                instance: None,
            });
            ("emit", 0, cu.len())
        }
        Err(d) => (
            "lower",
            d.len(),
            dsl_core::render::render(file, text, &d).len(),
        ),
    }
}

/// Child mode: generate, run, print one tab-separated line.
fn child(name: &str, bytes: usize) {
    let (_, _, gen_fn) = GENERATORS
        .iter()
        .find(|(n, _, _)| *n == name)
        .unwrap_or_else(|| panic!("no generator `{name}`"));
    let text = gen_fn(bytes);
    let t = Instant::now();
    let (stage, diags, out) = pipeline(&text);
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{}\t{stage}\t{diags}\t{out}\t{secs:.3}\t{}",
        text.len(),
        peak_rss().unwrap_or(0)
    );
}

/// Generated inputs through the whole front end, each in a child process: time and peak memory.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Generated 10 MB inputs through parse, check, lower and emit: time and peak memory per input",
    after_help = "Exit codes: 0 every input within 5 s and 1 GB, 1 an input over a bound, 2 usage error."
)]
struct Cli {
    /// Input size in MB
    #[arg(long, default_value_t = 10.0)]
    mb: f64,
    /// Run one generated input (internal: how the parent measures each input alone)
    #[arg(long, num_args = 2, value_names = ["NAME", "BYTES"], hide = true)]
    child: Option<Vec<String>>,
    /// Only these generators (default: all)
    names: Vec<String>,
}

fn main() {
    let cli = <Cli as clap::Parser>::parse();
    if let Some(c) = &cli.child {
        let bytes: usize = c[1].parse().expect("bytes");
        return child(&c[0], bytes);
    }
    let (mb, only) = (cli.mb, cli.names.clone());
    let bytes = (mb * 1_000_000.0) as usize;
    let exe = std::env::current_exe().expect("current exe");
    println!(
        "| input | what | bytes | stopped at | diagnostics | output bytes | time (s) | peak memory (MB) | within 5 s / 1 GB |"
    );
    println!("|---|---|---:|---|---:|---:|---:|---:|---|");
    let mut all_ok = true;
    for (name, what, _) in GENERATORS {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let out = Command::new(&exe)
            .args(["--child", name, &bytes.to_string()])
            .output()
            .expect("run child");
        let line = String::from_utf8_lossy(&out.stdout);
        let f: Vec<&str> = line.trim().split('\t').collect();
        if !out.status.success() || f.len() != 6 {
            all_ok = false;
            println!(
                "| {name} | {what} | | FAILED: {} | | | | | no |",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            continue;
        }
        let secs: f64 = f[4].parse().unwrap_or(f64::MAX);
        let peak: u64 = f[5].parse().unwrap_or(u64::MAX);
        let ok = secs <= MAX_SECONDS && peak <= MAX_BYTES;
        all_ok &= ok;
        println!(
            "| {name} | {what} | {} | {} | {} | {} | {secs:.2} | {:.0} | {} |",
            f[0],
            f[1],
            f[2],
            f[3],
            peak as f64 / 1e6,
            if ok { "yes" } else { "NO" }
        );
    }
    if !all_ok {
        std::process::exit(1);
    }
}
