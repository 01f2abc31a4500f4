//! Indices the kernel computes in C++: 32-bit `int` arithmetic that would wrap (`E0704`),
//! comparisons of `u32` values, which C++ makes in unsigned arithmetic and which bound nothing,
//! and on-chip indices nothing bounds (the warning `W1216`: shared and local buffers have no
//! bounds test) — but not those that modular arithmetic, a clamping ternary or an `apply`
//! over a fragment bounds.

use dsl_core::check::{self, Config, Limits};
use dsl_core::parse::parse_str;

/// The errors, or the warnings of a kernel that checks.
fn check(src: &str) -> Result<Vec<(&'static str, String)>, Vec<(&'static str, String)>> {
    let m = parse_str(src, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module;
    match check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90) {
        Ok(info) => Ok(info
            .warnings
            .iter()
            .map(|x| (x.code, x.message.clone()))
            .collect()),
        Err(d) => Err(d.iter().map(|x| (x.code, x.message.clone())).collect()),
    }
}

/// A block of 64 threads that stages x in shared memory and reads it back at `index` (after
/// `before`); `params` follow the tensors.
fn kernel(params: &str, before: &str, index: &str) -> String {
    format!(
        "__co__ void k(s32 [N] x, s32 [N] y{params}) {{\n  parallel {{p}} by [cdiv(N, 64)] : block, {{t}} by [64] : thread {{\n    shared s32 [64] s;\n    s.at(t) = x.at(p # t);\n    sync.shared;\n{before}\n    y.at(p # t) = s.at({index});\n  }}\n}}\n"
    )
}

#[test]
fn index_arithmetic_past_32_bits_is_an_error() {
    let e = check(&kernel("", "", "(t * 1000000007) % 64")).unwrap_err();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "E0704");
    assert!(e[0].1.contains("can reach 63000000441"), "{e:?}");
    // Within 32 bits: fine.
    assert_eq!(check(&kernel("", "", "(t * 1000003) % 64")), Ok(vec![]));
}

#[test]
fn a_u32_comparison_bounds_nothing() {
    // `h - 1 >= 0` always holds for a u32 `h`: the read of `s.at(h - 1)` stays out of range.
    let e = check(&kernel("", "    u32 h = t;\n    if (h - 1 >= 0)", "h - 1")).unwrap_err();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "E0702");
    // The same with an `int`: the guard bounds it.
    assert_eq!(
        check(&kernel("", "    int h = t;\n    if (h - 1 >= 0)", "h - 1")),
        Ok(vec![])
    );
}

#[test]
fn an_unbounded_on_chip_index_is_a_warning() {
    for (params, before, index) in [
        (", int shift", "", "t + shift"),
        ("", "", "x.at(p # t)"),
        ("", "    int i = x.at(p # t) % 64;", "i"),
    ] {
        let w = check(&kernel(params, before, index)).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(w.len(), 1, "{index}: {w:?}");
        assert_eq!(w[0].0, "W1216", "{index}: {w:?}");
    }
    // A u8 element indexes 256 elements safely; an s8 one may be negative.
    let bins = |t: &str| {
        format!(
            "__co__ void k({t} [N] x, s32 [256] y) {{\n  parallel {{p}} by [cdiv(N, 256)] : block, {{t}} by [256] : thread {{\n    shared s32 [256] h;\n    h.at(t) = 0;\n    sync.shared;\n    if (p * 256 + t < N)\n      __atomic_add(h.at(x.at(p # t)), 1);\n    sync.shared;\n    __atomic_add(y.at(t), h.at(t));\n  }}\n}}\n"
        )
    };
    assert_eq!(check(&bins("u8")), Ok(vec![]));
    let w = check(&bins("s8")).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        w.iter().map(|x| x.0).collect::<Vec<_>>(),
        ["W1216"],
        "{w:?}"
    );
    // Bounded by its arithmetic, by a clamping ternary, or by a guard: no warning.
    for (params, before, index) in [
        ("", "    int i = (x.at(p # t) % 64 + 64) % 64;", "i"),
        ("", "    int lo = t > 0 ? t - 1 : 0;", "lo"),
        (
            ", int shift",
            "    int i = t + shift;\n    if (i >= 0 && i < 64)",
            "i",
        ),
    ] {
        assert_eq!(
            check(&kernel(params, before, index)),
            Ok(vec![]),
            "{before} {index}"
        );
    }
}

#[test]
fn a_floating_point_value_where_cpp_takes_an_integer_is_an_error() {
    for (index, at) in [
        ("t * 0.5f", "0.5f"),
        ("(__to<s32>(x.at(p # t)) % 64 + 64) % 64", ""),
        ("(t ^ 1) % 64", ""),
    ] {
        let r = check(&kernel("", "", index));
        if at.is_empty() {
            assert!(r.is_ok(), "{index}: {r:?}");
            continue;
        }
        let e = r.unwrap_err();
        assert_eq!(e.len(), 1, "{index}: {e:?}");
        assert_eq!(e[0].0, "E0112", "{index}: {e:?}");
        assert!(
            e[0].1
                .starts_with(&format!("`{at}` is a floating-point value")),
            "{e:?}"
        );
    }
    // Operands of the bitwise operators; a floating-point `%` lowers (`fmodf`).
    let k = |value: &str| {
        format!(
            "__co__ void k(f32 [N] x, s32 [N] y, f32 [N] z) {{\n  parallel {{p}} by [cdiv(N, 64)] : block, {{t}} by [64] : thread {{\n    {value};\n  }}\n}}\n"
        )
    };
    for value in [
        "y.at(p # t) = x.at(p # t) ^ 1",
        "y.at(p # t) = t << 2.0f",
        "y.at(p # t) = t & 1.5f",
    ] {
        let e = check(&k(value)).unwrap_err();
        assert!(
            e.iter().all(|(c, _)| *c == "E0112") && !e.is_empty(),
            "{value}: {e:?}"
        );
    }
    assert!(check(&k("z.at(p # t) = x.at(p # t) % 2.0f")).is_ok());
}
