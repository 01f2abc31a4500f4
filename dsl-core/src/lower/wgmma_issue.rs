//! Small WGMMA-issuing pieces shared by the Hopper lowerings (`hopper.rs`, `mn_major.rs`,
//! `sparse.rs`), kept apart so that those files need not import each other.

use super::cxx::CExpr;
use super::emitter::Emitter;
use super::kernel::{Call, Op};
use crate::ir::StmtId;

/// The C++ name of an operand descriptor: the fragment's name, or for a shared tile passed
/// straight to `mma` (the parser's `direct$a<n>`) `tsl_desc_a<n>`.
pub(super) fn desc_cpp(name: &str) -> String {
    match name.strip_prefix("direct$") {
        Some(rest) => format!("tsl_desc_{rest}"),
        None => name.to_string(),
    }
}

/// Issues the K-steps `k_steps` of a register-A WGMMA reading the A registers `regs`: pinned
/// and fenced before, and — unless the `mma` is `.async` — committed and waited for after (the
/// registers must not change while the WGMMA reads them).
pub(super) fn register_a_issue(
    e: &mut Emitter,
    s: StmtId,
    regs: &str,
    k_steps: Call,
    what: &str,
    line: Option<u32>,
) {
    e.call(
        Call::new("tsl_pin").args([CExpr::var(regs)]),
        Some("the A registers are written before the fence"),
        line,
    );
    e.call(
        Call::new("tsl_wgmma_fence"),
        Some("order the accumulator and A registers before this WGMMA"),
        line,
    );
    e.call(k_steps, Some(what), line);
    if e.m.mma_async(s).is_some() {
        commit_async(e, line);
    } else {
        wgmma_commit_wait(e, line, "the WGMMA has read its A registers");
    }
}

pub fn wgmma_commit_wait(e: &mut Emitter, line: Option<u32>, why: &str) {
    e.wgmma_pending = false;
    e.wgmma_uncommitted = false;
    e.emit(commit_wait(), Some(why), line);
}

/// `tsl_wgmma_commit(); tsl_wgmma_wait<0>();`: the WGMMAs issued so far are complete.
pub(super) fn commit_wait() -> Op {
    Op::Calls(vec![
        Call::new("tsl_wgmma_commit"),
        Call::new("tsl_wgmma_wait").targs([CExpr::int(0)]),
    ])
}

/// Commits the WGMMAs an `.async` `mma` issued as their own group, completed by the `wait` on
/// its future (or a later wait).
pub(super) fn commit_async(e: &mut Emitter, line: Option<u32>) {
    e.call(
        Call::new("tsl_wgmma_commit"),
        Some("`.async`: in flight until a wait covers its group"),
        line,
    );
    e.wgmma_uncommitted = false;
    e.wgmma_pending = true;
}
