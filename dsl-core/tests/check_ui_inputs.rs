//! The trybuild inputs `tests/ui/*.rs`: each file's `gemm_kernel! { … }` body, parsed and
//! checked here without the macro, yields exactly one diagnostic, with the code the file's
//! first line names (`// expect: E0302 …`). This keeps the compile-fail inputs honest before
//! their `.stderr` files exist.

use dsl_core::diag::Diagnostics;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::BTreeSet;

fn macro_body(ts: TokenStream) -> Option<TokenStream> {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    toks.windows(3).find_map(|w| match w {
        [
            TokenTree::Ident(i),
            TokenTree::Punct(p),
            TokenTree::Group(g),
        ] if i == "gemm_kernel" && p.as_char() == '!' && g.delimiter() == Delimiter::Brace => {
            Some(g.stream())
        }
        _ => None,
    })
}

fn diagnose(body: TokenStream) -> Result<(), Diagnostics> {
    let parsed = dsl_core::parse::parse_tokens(body)?;
    dsl_core::check::check(&parsed.module).map(|_| ())
}

#[test]
fn every_ui_input_has_exactly_its_one_diagnostic() {
    let dir = format!("{}/../tests/ui", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    assert!(files.len() >= 28, "only {} ui inputs", files.len());
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let Some(code) = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect: "))
            .map(|l| l[..5].to_string())
        else {
            failures.push(format!("{name}: first line must be `// expect: EXXXX …`"));
            continue;
        };
        assert!(
            text.contains("use tessel::gemm_kernel;") && text.contains("fn main() {}"),
            "{name}"
        );
        let ts: TokenStream = text
            .parse()
            .unwrap_or_else(|e| panic!("{name}: not Rust tokens: {e}"));
        let body = macro_body(ts).unwrap_or_else(|| panic!("{name}: no gemm_kernel! {{ … }}"));
        let result = diagnose(body);
        if std::env::var_os("TESSEL_SHOW_UI").is_some()
            && let Err(d) = &result
        {
            eprintln!("== {name}\n{d}");
        }
        match result {
            Ok(()) => failures.push(format!("{name}: expected {code}, but it checks cleanly")),
            Err(d) if d.len() == 1 && d.0[0].code == code => {
                seen.insert(code);
            }
            Err(d) => failures.push(format!("{name}: expected one {code}, got:\n{d}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every check family is exercised.
    for code in [
        "E0004", "E0101", "E0102", "E0202", "E0203", "E0301", "E0302", "E0303", "E0305", "E0306",
        "E0401", "E0402", "E0403", "E0501", "E0601", "E0602", "E0605", "E0701", "E0702", "E0703",
        "E0802", "E0803", "E0901", "E0902", "E0903", "E0906", "E0910", "E0911", "E0912", "E1001",
        "E1002", "E1003", "E1005", "E1008", "E1300", "E1301", "E0041", "E1303", "E1305", "E1308",
        "E1335", "E1420", "E1422", "E1635", "E1680", "E1681", "E1682", "E1683", "E1684", "E1687",
        "E1211", "E1302", "E1695", "E1696", "E1697", "E1698", "E0108", "E0109", "E0110", "E0111",
        "E0112",
    ] {
        assert!(seen.contains(code), "no ui input covers {code}");
    }
}
