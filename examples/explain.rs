//! Writes the `tessel explain` page of a `.co` file (what `tessel explain` does):
//!
//! ```text
//! cargo run --example explain -- kernels/v4_tuned.co [--set NAME=V]… [--arch sm_90a]
//!     [--tune-cache DIR] [-o page.html]
//! ```
//! Needs NVRTC and nvdisasm (`source tools/setup-nvrtc.sh`), no GPU. The arguments are parsed
//! by hand: this is a development stand-in for the `tessel explain` subcommand, and the facade
//! crate carries no argument parser of its own.

use tessel::explain::{ExplainRequest, explain};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut file = None;
    let mut sets = Vec::new();
    let mut arch = None;
    let mut out = None;
    let mut tune_cache = None;
    let mut it = args.iter();
    let fail = |m: String| -> ! {
        eprintln!("explain: {m}");
        std::process::exit(2)
    };
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .unwrap_or_else(|| fail(format!("{a} needs a value")))
        };
        match a.as_str() {
            "--set" => {
                let kv = val();
                let (k, v) = kv
                    .split_once('=')
                    .unwrap_or_else(|| fail("--set needs NAME=VALUE".into()));
                let v: i64 = v
                    .parse()
                    .unwrap_or_else(|_| fail(format!("`{v}` is not an integer")));
                sets.push((k.to_string(), v));
            }
            "--arch" => {
                arch = Some(val().parse().unwrap_or_else(|e| fail(format!("{e}"))));
            }
            "--tune-cache" => tune_cache = Some(val().into()),
            "-o" => out = Some(val()),
            f if file.is_none() && !f.starts_with('-') => file = Some(f.to_string()),
            other => fail(format!("unexpected argument `{other}`")),
        }
    }
    let file = file.unwrap_or_else(|| fail("missing FILE.co".into()));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| fail(format!("{file}: {e}")));
    let mut req = ExplainRequest::new(&text, &file);
    req.sets = sets;
    req.arch = arch;
    req.tune_cache = tune_cache;
    let page = explain(&req).unwrap_or_else(|e| fail(e.to_string()));
    let out = out.unwrap_or_else(|| {
        let stem = std::path::Path::new(&file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "kernel".into());
        format!("{stem}.explain.html")
    });
    std::fs::write(&out, &page.html).unwrap_or_else(|e| fail(format!("{out}: {e}")));
    eprintln!(
        "explain: wrote {out} ({} KB; {} SASS instructions, {} DSL lines linked, {} helpers, {} tune results)",
        page.html.len() / 1024,
        page.sass.len(),
        page.lines.len(),
        page.helpers.len(),
        page.tune.len()
    );
}
