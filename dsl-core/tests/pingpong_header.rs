//! The `pingpong;` header item: parsed with its span, printed back, rejected with an argument,
//! and checked against the kernel it schedules (a kernel without warpgroups has no consumers to
//! take turns: E1631).

use dsl_core::check;
use dsl_core::parse::parse_str;

const KERNEL: &str = r#"
persistent;
pingpong;
__co__ void fill(global f32 [N] y) {
  parallel b by cdiv(N, 128) : block, t by 128 : thread {
    y.at(b # t) = 1.0f;
  }
}
"#;

#[test]
fn pingpong_is_a_header_item_with_a_span() {
    let m = parse_str(KERNEL, None).expect("parses").module;
    let span = m.pingpong.expect("`pingpong;` recorded");
    // Line 3 of the text (after the leading newline and `persistent;`), columns 1–8.
    assert_eq!((span.start.line, span.end.line), (3, 3), "{span:?}");
    assert_eq!(
        span.end.col - span.start.col,
        "pingpong".len() as u32,
        "{span:?}"
    );
    assert!(m.to_string().contains("pingpong\n"), "{m}");
    let without = parse_str(&KERNEL.replace("pingpong;\n", ""), None)
        .expect("parses")
        .module;
    assert!(without.pingpong.is_none());
}

#[test]
fn pingpong_takes_no_argument() {
    let d = parse_str(&KERNEL.replace("pingpong;", "pingpong 2;"), None)
        .expect_err("`pingpong 2;` is an error");
    assert!(d.to_string().contains("pingpong"), "{d}");
}

#[test]
fn a_kernel_without_warpgroups_has_no_consumers_to_take_turns() {
    let m = parse_str(KERNEL, None).expect("parses").module;
    let d = check::check(&m).expect_err("E1631");
    let codes: Vec<&str> = d.0.iter().map(|x| x.code).collect();
    assert_eq!(codes, ["E1631"], "{d}");
}

/// A third branch on a consumer warpgroup would run cooperatively beside the tiles that
/// warpgroup takes alone: E1631 at its condition.
#[test]
fn a_branch_on_a_consumer_warpgroup_beside_the_consumers_is_rejected() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../kernels/v4_pingpong.co"
    ))
    .expect("kernels/v4_pingpong.co");
    let ok = parse_str(&text, None).expect("parses").module;
    assert!(check::check(&ok).is_ok());
    let extra = text.replace(
        "      // ── Consumers (wg ≥ 1)",
        "      inthreads.async (wg == 1 && t == 0) { trigger done; }\n      // ── Consumers (wg ≥ 1)",
    );
    let extra = extra.replace(
        "shared event full[STAGES], empty[STAGES];",
        "shared event full[STAGES], empty[STAGES], done;",
    );
    let m = parse_str(&extra, None).expect("parses").module;
    let d = check::check(&m).expect_err("E1631");
    assert!(
        d.0.iter()
            .any(|x| x.code == "E1631" && x.message.contains("this branch")),
        "{d}"
    );
}
