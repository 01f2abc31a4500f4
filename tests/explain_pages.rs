//! `tessel::explain` without a browser: every kernel in `kernels/` gets a page whose links are
//! consistent (each SASS instruction's DSL line exists and carries CUDA lines tagged with it;
//! most instructions reach a DSL line), and bad requests are typed errors.
//!
//! The page tests need NVRTC + nvdisasm (they fail under `CI=true` / `TESSEL_REQUIRE_NVRTC=1`
//! when missing, else skip loudly); the error tests need neither.

mod common;

use tessel::explain::{ExplainError, ExplainRequest, explain};
use tessel::runtime::nvrtc::Arch;

fn no_tune() -> std::path::PathBuf {
    std::env::temp_dir().join("tessel-explain-no-tune-cache")
}

#[test]
fn every_kernel_gets_a_consistent_page() {
    if !common::nvrtc_and_nvdisasm_available("every_kernel_gets_a_consistent_page") {
        return;
    }
    let mut names: Vec<String> = std::fs::read_dir(common::root().join("kernels"))
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            if p.extension()? != "co" {
                return None;
            }
            Some(p.file_stem()?.to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    for name in names {
        let path = format!("kernels/{name}.co");
        let text = common::read(&path);
        let mut req = ExplainRequest::new(&text, &path);
        req.tune_cache = Some(no_tune());
        let p = explain(&req).unwrap_or_else(|e| panic!("{path}: {e}"));
        let n_src = text.lines().count() as u32;
        assert!(!p.sass.is_empty(), "{path}: no SASS");
        for s in &p.sass {
            if let Some(d) = s.dsl {
                assert!(
                    d >= 1 && d <= n_src,
                    "{path}: SASS {:04x} on DSL line {d}",
                    s.offset
                );
                let f = p.line(d).unwrap();
                assert!(f.sass.iter().any(|&i| p.sass[i].offset == s.offset));
            }
            for &c in &s.chain {
                assert!(
                    (c as usize) <= p.cuda.lines().count(),
                    "{path}: SASS {:04x} names .cu line {c}",
                    s.offset
                );
            }
        }
        for f in &p.lines {
            for &c in &f.cuda_lines {
                assert_eq!(p.cuda_dsl[c as usize - 1], Some(f.line), "{path}");
            }
            let total: usize = f.counts.iter().map(|(_, n)| n).sum();
            assert_eq!(total, f.sass.len(), "{path}: line {} counts", f.line);
        }
        let mapped = p.sass.iter().filter(|s| s.dsl.is_some()).count();
        assert!(
            mapped * 10 >= p.sass.len() * 7,
            "{path}: only {mapped} of {} SASS instructions reach a DSL line",
            p.sass.len()
        );
        let r = p.kernel.resources.as_ref().expect("ptxas report");
        assert!(r.registers > 0, "{path}");
        assert!(p.html.len() < 2 << 20, "{path}: {} bytes", p.html.len());
        assert_eq!(
            p.html.matches("<div").count(),
            p.html.matches("</div>").count(),
            "{path}: unbalanced <div>"
        );
        // Every DSL, CUDA and SASS line is on the page.
        assert!(p.html.contains(&format!("id=\"d{n_src}\"")), "{path}");
        assert!(
            p.html
                .contains(&format!("id=\"c{}\"", p.cuda.lines().count())),
            "{path}"
        );
        assert!(!p.helpers.is_empty(), "{path}: no helpers in the legend");
    }
}

#[test]
fn shared_memory_sized_at_launch_is_named_on_the_page() {
    if !common::nvrtc_and_nvdisasm_available("shared_memory_sized_at_launch_is_named_on_the_page") {
        return;
    }
    let path = "dsl-core/tests/lowered/launch_sized_batch.co";
    let text = common::read(path);
    let mut req = ExplainRequest::new(&text, path);
    req.tune_cache = Some(no_tune());
    let p = explain(&req).unwrap();
    assert_eq!(p.kernel.smem_bytes, 0);
    assert_eq!(p.kernel.smem_at_launch.as_deref(), Some("B * 4 * K * 4"));
    assert!(
        p.html
            .contains("<code>B * 4 * K * 4</code> B sized at launch"),
        "{}",
        p.html
    );
}

#[test]
fn a_set_value_changes_the_instance() {
    if !common::nvrtc_and_nvdisasm_available("a_set_value_changes_the_instance") {
        return;
    }
    let text = common::read("kernels/v4_tuned.co");
    let mut req = ExplainRequest::new(&text, "kernels/v4_tuned.co");
    req.tune_cache = Some(no_tune());
    req.sets = vec![("WARP_N".into(), 128), ("STAGES".into(), 4)];
    let p = explain(&req).unwrap();
    let tv: std::collections::BTreeMap<_, _> = p.kernel.template_values.iter().cloned().collect();
    assert_eq!(tv["WARP_N"], 128);
    assert_eq!(tv["STAGES"], 4);
    assert!(p.kernel.name_expression.starts_with("tsl_matmul<128, 4,"));
    assert!(
        p.sass
            .iter()
            .any(|s| s.opcode.starts_with("HGMMA.64x128x16"))
    );
    assert!(p.html.contains("tsl_matmul&lt;128, 4,"));
}

#[test]
fn bad_requests_are_typed_errors() {
    let v4 = common::read("kernels/v4_tuned.co");
    let mut req = ExplainRequest::new(&v4, "kernels/v4_tuned.co");
    req.sets = vec![("NOT_A_TUNABLE".into(), 1)];
    assert!(matches!(explain(&req), Err(ExplainError::UnknownTunable(n)) if n == "NOT_A_TUNABLE"));

    let mut req = ExplainRequest::new(&v4, "kernels/v4_tuned.co");
    req.arch = Some(Arch::Sm80);
    assert!(matches!(
        explain(&req),
        Err(ExplainError::Arch {
            asked: Arch::Sm80,
            ..
        })
    ));

    let mut req = ExplainRequest::new(&v4, "kernels/v4_tuned.co");
    req.sets = vec![("STAGES".into(), 7)];
    let e = explain(&req).unwrap_err();
    assert!(matches!(e, ExplainError::Dsl { .. }), "{e}");

    let broken = v4.replacen("parallel", "paralel", 1);
    let e = explain(&ExplainRequest::new(&broken, "broken.co")).unwrap_err();
    match e {
        ExplainError::Dsl { path, diags } => {
            assert_eq!(path, "broken.co");
            assert!(!diags.is_empty());
        }
        other => panic!("{other}"),
    }
}
