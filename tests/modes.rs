//! The two ways to write a kernel agree: the macro form (`examples/*.rs`, the ladder's text with
//! `a # b` spaced) and the file form (`gemm_kernel!(file = "kernels/*.co")`, the text verbatim)
//! expand to the same IR dump, which is also the parser's golden
//! (`dsl-core/tests/golden/<name>.ir`), and to the same CUDA up to the source description and
//! the `// dsl:LINE` comments (the two texts sit at different lines).

mod common;

use tessel::KernelDef;

// Macro mode: the examples, compiled as modules (their `fn main` is unused here).
#[allow(dead_code)]
#[path = "../examples/v0_naive.rs"]
mod v0;
#[allow(dead_code)]
#[path = "../examples/v1_shared.rs"]
mod v1;
#[allow(dead_code)]
#[path = "../examples/v2_tma_wgmma.rs"]
mod v2;
#[allow(dead_code)]
#[path = "../examples/v3_warpspec.rs"]
mod v3;
#[allow(dead_code)]
#[path = "../examples/v4_tuned.rs"]
mod v4;

// File mode. (Written out: inside `macro_rules!` a `$path:literal` reaches the proc macro
// wrapped in an invisible group, which `file = …` detection does not look through.)
mod v0f {
    tessel::gemm_kernel!(file = "kernels/v0_naive.co");
}
mod v1f {
    tessel::gemm_kernel!(file = "kernels/v1_shared.co");
}
mod v2f {
    tessel::gemm_kernel!(file = "kernels/v2_tma_wgmma.co");
}
mod v3f {
    tessel::gemm_kernel!(file = "kernels/v3_warpspec.co");
}
mod v4f {
    tessel::gemm_kernel!(file = "kernels/v4_tuned.co");
}

/// (seed name, macro-mode kernel, file-mode kernel).
fn pairs() -> [(&'static str, &'static KernelDef, &'static KernelDef); 5] {
    [
        ("v0_naive", &v0::matmul::KERNEL, &v0f::matmul::KERNEL),
        ("v1_shared", &v1::matmul::KERNEL, &v1f::matmul::KERNEL),
        ("v2_tma_wgmma", &v2::matmul::KERNEL, &v2f::matmul::KERNEL),
        ("v3_warpspec", &v3::matmul::KERNEL, &v3f::matmul::KERNEL),
        ("v4_tuned", &v4::matmul::KERNEL, &v4f::matmul::KERNEL),
    ]
}

/// The CUDA text without what legitimately differs between the modes.
fn comparable_cuda(cu: &str) -> String {
    cu.lines()
        .map(|l| match l.find("  // dsl:") {
            Some(i) => &l[..i],
            None => l,
        })
        .filter(|l| !l.contains("a gemm_kernel! invocation") && !l.contains("kernels/"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn ir_constants_are_the_kernel_defs() {
    assert_eq!(v0::matmul::IR, v0::matmul::KERNEL.ir);
    assert_eq!(v4f::matmul::IR, v4f::matmul::KERNEL.ir);
    assert_eq!(v2::matmul::CUDA, v2::matmul::KERNEL.cuda);
}

#[test]
fn macro_mode_and_file_mode_dump_the_same_ir() {
    assert_eq!(v0::matmul::IR, v0f::matmul::IR);
    assert_eq!(v1::matmul::IR, v1f::matmul::IR);
    assert_eq!(v2::matmul::IR, v2f::matmul::IR);
    assert_eq!(v3::matmul::IR, v3f::matmul::IR);
    assert_eq!(v4::matmul::IR, v4f::matmul::IR);
}

#[test]
fn both_modes_match_the_parser_goldens() {
    let mut failures = Vec::new();
    for (name, mac, file) in pairs() {
        let golden = common::read(&format!("dsl-core/tests/golden/{name}.ir"));
        for (mode, def) in [("macro", mac), ("file", file)] {
            if def.ir != golden {
                failures.push(format!(
                    "{name} ({mode} mode) differs from dsl-core/tests/golden/{name}.ir:\n{}",
                    common::first_differences(&golden, def.ir, 12)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn both_modes_emit_the_same_cuda_up_to_line_comments() {
    for (name, mac, file) in pairs() {
        assert!(!mac.cuda.is_empty() && !file.cuda.is_empty(), "{name}");
        assert!(mac.cuda.contains("a gemm_kernel! invocation"), "{name}");
        assert!(
            file.cuda.contains(&format!("kernels/{name}.co")),
            "{name}: file-mode CUDA does not name its source"
        );
        let (a, b) = (comparable_cuda(mac.cuda), comparable_cuda(file.cuda));
        assert!(
            a == b,
            "{name}: macro and file mode emit different CUDA:\n{}",
            common::first_differences(&a, &b, 12)
        );
    }
}

#[test]
fn kernel_defs_describe_the_same_kernel() {
    for (name, mac, file) in pairs() {
        assert_eq!(mac.name, "matmul");
        assert_eq!(file.name, "matmul");
        assert_eq!(mac.file, None, "{name}");
        assert_eq!(file.file, Some(format!("kernels/{name}.co").as_str()));
        assert_eq!(file.dsl, common::read(&format!("kernels/{name}.co")));
        let t = |d: &KernelDef| {
            d.tunables
                .iter()
                .map(|t| (t.name, t.domain.to_vec(), t.default))
                .collect::<Vec<_>>()
        };
        assert_eq!(t(mac), t(file), "{name}: tunables differ");
        let p = |d: &KernelDef| {
            d.params
                .iter()
                .map(|p| (p.name, p.dtype, p.space, p.shape.to_vec()))
                .collect::<Vec<_>>()
        };
        assert_eq!(p(mac), p(file), "{name}: parameters differ");
        // The carried DSL text re-derives the same IR in both modes.
        for def in [mac, file] {
            let m = def
                .module()
                .unwrap_or_else(|d| panic!("{name}: KERNEL.dsl does not re-parse:\n{d}"));
            assert_eq!(m.to_string(), def.ir, "{name}: re-parsed IR differs");
            def.lowered()
                .unwrap_or_else(|d| panic!("{name}: KERNEL does not lower:\n{d}"));
        }
    }
}

#[test]
fn default_configs_check() {
    for (name, mac, _) in pairs() {
        let cfg = mac.default_config();
        let info = mac
            .check(&cfg, None)
            .unwrap_or_else(|d| panic!("{name}: defaults do not check:\n{d}"));
        assert!(info.threads_per_block > 0, "{name}");
    }
}

#[test]
fn both_modes_share_a_tune_cache_key() {
    use tessel::DType;
    use tessel::dsl_core::def::Variant;
    use tessel::runtime::tune::Target;
    for (name, mac, file) in pairs() {
        let variants = [
            Variant::default(),
            Variant {
                input: Some(DType::BF16),
                acc: Some(DType::F32),
            },
        ];
        for v in variants
            .iter()
            .take(if name.starts_with("v0") || name.starts_with("v1") {
                1
            } else {
                2
            })
        {
            let a = Target::dsl(mac, *v).unwrap().source_hash();
            let b = Target::dsl(file, *v).unwrap().source_hash();
            assert_eq!(
                a, b,
                "{name} {v:?}: the modes' CUDA differs in code, not just comments"
            );
        }
    }
    // And the hash still sees code: another kernel, another dtype → another key.
    let h = |d, v| Target::dsl(d, v).unwrap().source_hash();
    assert_ne!(
        h(&v3::matmul::KERNEL, Variant::default()),
        h(&v4::matmul::KERNEL, Variant::default())
    );
    assert_ne!(
        h(&v4::matmul::KERNEL, Variant::default()),
        h(
            &v4::matmul::KERNEL,
            Variant {
                input: Some(DType::BF16),
                acc: Some(DType::F32)
            }
        )
    );
}
