//! Events: declared, shared, indexed, and triggered when waited on.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::codes as c;
use dsl_core::ir::MemSpace;

#[test]
fn wait_without_trigger_deadlocks() {
    let m = simple(|b| {
        vec![
            b.events(MemSpace::Shared, &[("ready", None)]),
            b.wait("ready"),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::DEADLOCK);
    assert_eq!(e.span, m.expr_span(find(&m, "ready")[0]));
    assert!(e.message.contains("nothing triggers `ready`"), "{e}");
    assert!(mentions(e, "trigger ready;"), "{e}");
}

#[test]
fn tma_completion_counts_as_trigger() {
    let info = check_ok(&v3());
    let full = info.events.iter().find(|e| e.name == "full").unwrap();
    assert_eq!(full.triggers.len(), 3);
    let empty = info.events.iter().find(|e| e.name == "empty").unwrap();
    assert_eq!((empty.waits.len(), empty.triggers.len()), (1, 2));
}

#[test]
fn non_shared_event() {
    let m = simple(|b| {
        vec![
            b.events(MemSpace::Local, &[("ev", None)]),
            b.trigger("ev"),
            b.wait("ev"),
        ]
    });
    let d = check_err(&m);
    let e: Vec<_> = d.iter().filter(|x| x.code == c::EVENT_SPACE).collect();
    assert_eq!(e.len(), 2, "{d}");
    assert!(e[0].message.contains("`ev` is a local event"), "{d}");
    assert_eq!(d.len(), 2, "{d}");
}

#[test]
fn event_array_needs_an_index() {
    let m = simple(|b| {
        vec![
            b.events(MemSpace::Shared, &[("full", Some("2"))]),
            b.trigger("full"),
            b.wait("full[0]"),
        ]
    });
    let d = check_err(&m);
    assert!(
        only(&d, c::EVENT_INDEX)
            .message
            .contains("`full` is an array of events")
    );
}

#[test]
fn plain_event_cannot_be_indexed() {
    let m = simple(|b| {
        vec![
            b.events(MemSpace::Shared, &[("ev", None)]),
            b.trigger("ev[0]"),
            b.wait("ev"),
        ]
    });
    let d = check_err(&m);
    assert!(only(&d, c::EVENT_INDEX).message.contains("single event"));
}

#[test]
fn undeclared_event_in_tma_copy() {
    let m = warpspec(v3_header, "2");
    let mut m = m;
    // Rename the event the producer's copies complete on: `full` → `fulll`.
    let target: Vec<_> = find(&m, "full").into_iter().collect();
    if let dsl_core::ir::Expr::Name(n) = &mut m.exprs[target[1]] {
        *n = "fulll".into();
    }
    let d = check_err(&m);
    let e = only(&d, c::UNKNOWN_NAME);
    assert!(e.message.contains("unknown event `fulll`"), "{e}");
    assert_eq!(e.help.as_deref(), Some("did you mean `full`?"));
}
