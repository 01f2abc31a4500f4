//! Warning `W1217`: a shared tile read while an `.async` copy into the whole of it may still be
//! in flight (no `dma.wait` or `wait` between the copy and the read, on a forward path).

use dsl_core::check::{self, Config, Limits};
use dsl_core::parse::parse_str;

fn warnings(src: &str) -> Vec<&'static str> {
    let m = parse_str(src, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module;
    check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"))
        .warnings
        .iter()
        .map(|w| w.code)
        .collect()
}

fn kernel(copy: &str, wait: &str, read: &str) -> String {
    format!(
        "__co__ void k(f32 [M, 128] x, f32 [M, 128] y) {{\n  parallel {{p}} by [cdiv(M, 8)] : block, {{t}} by [128] : thread {{\n    shared f32 [8, 128] s;\n    {copy}\n{wait}\n    foreach {{i}} in [8] {{\n      y.at(p * 8 + i, t) = 2.0f * {read}.at(i, t);\n    }}\n  }}\n}}\n"
    )
}

#[test]
fn a_read_before_the_wait_is_a_warning() {
    let into_s = "dma.copy.async x.subspan(8, 128).at(p, 0) => s;";
    let future = "f = dma.copy.async x.subspan(8, 128).at(p, 0) => shared;";
    assert_eq!(warnings(&kernel(into_s, "", "s")), ["W1217"]);
    assert_eq!(warnings(&kernel(future, "", "f.data")), ["W1217"]);
    assert!(warnings(&kernel(into_s, "    dma.wait 0;", "s")).is_empty());
    assert!(warnings(&kernel(future, "    wait f;", "f.data")).is_empty());
    // A wait inside a branch before the reads counts.
    assert!(
        warnings(&kernel(
            into_s,
            "    if (t < 1000) {\n      dma.wait 0;\n    }",
            "s"
        ))
        .is_empty()
    );
}
