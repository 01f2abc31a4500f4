//! Streams: `parallel<s>` launches on `s`, which must be a `stream` parameter of the function;
//! a stream parameter appears once; a stream (and `.async`) belongs to a launch, so only to a
//! `parallel` that no other `parallel` encloses.

use super::{Cx, codes};
use crate::diag::{Diagnostic, Diagnostics};

pub(crate) fn check_streams(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    for (i, s) in m.streams.iter().enumerate() {
        let earlier = m.streams[..i].iter().find(|o| o.name.name == s.name.name);
        let param = m.kernel.params.iter().find(|p| p.name.name == s.name.name);
        if let Some(span) = earlier.map(|o| o.name.span).or(param.map(|p| p.name.span)) {
            diags.push(
                Diagnostic::new(
                    codes::BAD_STREAM,
                    s.name.span,
                    format!("the parameter `{}` is declared twice", s.name.name),
                )
                .with_note(span, "first declared here")
                .with_help("give each parameter its own name"),
            );
        }
    }
    let mut nested = Vec::new();
    for s in super::all_stmts(m) {
        if let crate::ir::Stmt::Parallel { body, .. } = &m.stmts[s] {
            collect(m, body, &mut nested);
        }
    }
    for x in &m.parallel_ext {
        if nested.contains(&x.stmt) {
            let what = match &x.stream {
                Some(s) => format!("the stream `{}`", s.name),
                None if x.is_async => "`.async`".to_string(),
                None => "`<cooperative>`".to_string(),
            };
            diags.push(
                Diagnostic::new(
                    codes::BAD_STREAM,
                    m.stmt_span(x.stmt),
                    format!("{what} on a `parallel` inside another: it binds a whole launch"),
                )
                .with_help("bind the stream on the outermost `parallel … : block` of the launch"),
            );
        }
    }
    for x in &m.parallel_ext {
        let Some(st) = &x.stream else { continue };
        if m.streams.iter().any(|s| s.name.name == st.name) {
            continue;
        }
        let help = match m.streams.first() {
            Some(s) => format!(
                "launch on a `stream` parameter, e.g. `parallel<{}>`",
                s.name.name
            ),
            None => format!("add `stream {}` to the function's parameters", st.name),
        };
        diags.push(
            Diagnostic::new(
                codes::BAD_STREAM,
                st.span,
                format!("`{}` is not a `stream` parameter", st.name),
            )
            .with_help(help),
        );
    }
}

/// Every statement under `b`, nested blocks included.
fn collect(m: &crate::ir::Module, b: &crate::ir::Block, out: &mut Vec<crate::ir::StmtId>) {
    for &s in b {
        out.push(s);
        for inner in super::stmt_blocks(&m.stmts[s]) {
            collect(m, inner, out);
        }
    }
}
