//! What `[[launch_bounds(T, B)]]` and `[[maxnreg(N)]]` must also be for the lowering to print
//! them as `__launch_bounds__(T, B)` and `__maxnreg__(N)` (`lower/plan.rs`), beyond the forms
//! `attrs.rs` checks: `T` at most 1024 threads, `B` at most 32 blocks per SM, `N` in 16..=255
//! with `N` registers for each of the block's threads within an SM's 65536; and not both (CUDA
//! takes one of the qualifiers per kernel), nor either minimum beside `occupancy`, the
//! header's spelling of it (`E1011`). On the Hopper path they stay hints (`E1313`).

use super::Cx;
use super::codes;
use super::occupancy::MAX_BLOCKS_PER_SM;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Attribute, Expr};

fn bad(a: &Attribute, msg: String, help: &str) -> Diagnostic {
    Diagnostic::new(codes::LAUNCH_ATTRIBUTE, a.span, msg).with_help(help.to_string())
}

pub(crate) fn check_launch_attrs(cx: &Cx, threads: u32, diags: &mut Diagnostics) {
    let m = cx.m;
    let threads = i64::from(threads);
    let find = |n: &str| m.attributes.iter().find(|a| a.name.name == n);
    let int = |i: usize, a: &Attribute| {
        a.args
            .get(i)
            .filter(|&&e| !matches!(m.exprs[e], Expr::Wildcard))
            .and_then(|&e| cx.static_value(e))
    };
    let (lb, regs) = (find("launch_bounds"), find("maxnreg"));
    if let Some(a) = lb {
        if let Some(v) = int(0, a).filter(|&v| v > 1024) {
            diags.push(bad(a, format!("`[[launch_bounds({v}, …)]]` allows {v} threads per block; a block has at most 1024"), "give at most 1024, or `_` for the block's own thread count"));
        }
        if let Some(v) = int(1, a).filter(|&v| v > MAX_BLOCKS_PER_SM) {
            diags.push(bad(
                a,
                format!(
                    "`[[launch_bounds(…, {v})]]` asks for {v} blocks per SM; an SM holds at most 32"
                ),
                "give at most 32 blocks per SM",
            ));
        }
        if a.args.len() == 2 && m.occupancy.is_some() {
            diags.push(bad(a, "`[[launch_bounds(_, B)]]` and the header's `occupancy` both give the fewest blocks per SM".into(), "keep one of them"));
        }
    }
    if let Some(a) = regs {
        match int(0, a) {
            Some(n) if n > 0 && !(16..=255).contains(&n) => diags.push(bad(a, format!("`[[maxnreg({n})]]`: a thread has 16 to 255 registers"), "give an integer in 16..=255")),
            Some(n) if n * threads > 65536 => diags.push(bad(a, format!("`[[maxnreg({n})]]` gives each of the block's {threads} threads {n} registers: {} in all, more than an SM's 65536 (the launch would fail)", n * threads), "allow fewer registers a thread, or run fewer threads a block")),
            _ => {}
        }
        if lb.is_some() || m.occupancy.is_some() {
            diags.push(bad(a, "`[[maxnreg]]` with `[[launch_bounds]]` or `occupancy`: CUDA takes `__maxnreg__` or `__launch_bounds__` on a kernel, not both".into(), "bound the registers one way: `[[maxnreg(N)]]`, or a minimum of blocks per SM"));
        }
    }
}
