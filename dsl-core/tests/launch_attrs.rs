//! `[[launch_bounds(T, B)]]` and `[[maxnreg(N)]]` on a SIMT kernel print as the CUDA qualifiers;
//! values no launch can meet, and contradicting pairs, are `E1011`.

use dsl_core::check::{self, Config, Limits};
use dsl_core::parse::parse_str;

/// The kernel's qualifiers, or the codes `check_config` reports, for `attrs` (and `header`)
/// around a block of 256 threads (`header` may give `const T = …;` for another count).
fn qualifiers(header: &str, attrs: &str) -> Result<String, Vec<&'static str>> {
    let threads = if header.contains("const T") {
        "T"
    } else {
        "256"
    };
    let src = format!(
        "{header}\n__co__ void k(f32 [N] x) {{\n  {attrs}\n  parallel {{b}} by [cdiv(N, {threads})] : block {{\n    parallel {{t}} by [{threads}] : thread {{\n      x.at(b # t) = 2.0f * x.at(b # t);\n    }}\n  }}\n}}\n"
    );
    let m = dsl_core::lower::launch_form(parse_str(&src, Some("t.co")).expect("parses").module);
    let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
        .map_err(|d| d.iter().map(|x| x.code).collect::<Vec<_>>())?;
    let k = dsl_core::lower::lower(&m, &info).expect("check ok ⇒ lower ok");
    Ok(k.launch_bounds.to_string())
}

#[test]
fn launch_attributes_print_as_the_cuda_qualifiers() {
    assert_eq!(qualifiers("", "").unwrap(), "__launch_bounds__(256)");
    assert_eq!(
        qualifiers("", "[[launch_bounds(_, 3)]]").unwrap(),
        "__launch_bounds__(256, (3))"
    );
    assert_eq!(
        qualifiers("", "[[launch_bounds(512)]]").unwrap(),
        "__launch_bounds__(512)"
    );
    assert_eq!(
        qualifiers("", "[[maxnreg(64)]]").unwrap(),
        "__maxnreg__(64)"
    );
    // A tunable bound is printed as the tunable.
    assert_eq!(
        qualifiers("tunable R in [32, 64] = 32;", "[[maxnreg(R)]]").unwrap(),
        "__maxnreg__(R)"
    );
}

#[test]
fn launch_attributes_no_launch_can_meet_are_refused() {
    for (header, attrs) in [
        ("", "[[launch_bounds(2048)]]"),
        ("", "[[launch_bounds(_, 40)]]"),
        ("", "[[maxnreg(8)]]"),
        // 128 registers for each of 1024 threads: more than an SM's 65536.
        ("const T = 1024;", "[[maxnreg(128)]]"),
        ("", "[[launch_bounds(_, 2)]] [[maxnreg(64)]]"),
        ("occupancy 2;", "[[launch_bounds(_, 2)]]"),
        ("occupancy 2;", "[[maxnreg(64)]]"),
    ] {
        assert_eq!(
            qualifiers(header, attrs),
            Err(vec!["E1011"]),
            "{header} {attrs}"
        );
    }
}
