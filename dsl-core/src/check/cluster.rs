//! `cluster C;`: thread-block clusters of `C` blocks along the first `: block` variable, with the
//! operand the cluster's blocks share multicast by TMA (see the lowering's `cluster` pass). `C`
//! must evaluate, under the configuration and without problem sizes, to an integer in 1..=8 (the
//! portable cluster size limit); the kernel must take the Hopper path (TMA, mbarriers) and
//! rasterize its 2-D block level (`raster G;`), which places a cluster's blocks on adjacent rows.

use super::Cx;
use super::codes;
use super::eval::{EvalError, eval};
use super::header::report_eval;
use super::occupancy::{hopper_stmt, values};
use crate::diag::{Diagnostic, Diagnostics};

/// The portable limit on blocks per cluster (larger needs a non-portable opt-in).
pub const MAX_CLUSTER: i64 = 8;

pub(crate) fn check_cluster(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let Some(c) = m.cluster else { return };
    let span = m.expr_span(c);
    if hopper_stmt(m).is_none() {
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_PATH,
                span,
                "`cluster` applies to Hopper kernels: its blocks share operands through TMA multicast and mbarriers, and this kernel has no `tma.copy` or events",
            )
            .with_help("remove the `cluster` item, or load the tiles with `tma.copy.async<event>`"),
        );
        return;
    }
    if m.raster.is_none() {
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_PATH,
                span,
                "`cluster` places a cluster's blocks on adjacent rows of a rasterized grid; this kernel has no `raster`",
            )
            .with_help("add `raster G;` (G rows of tiles per group) to the header"),
        );
        return;
    }
    if !cx.resolved(c) {
        return; // an unknown name: `resolve` reported it
    }
    let dims = m.symbolic_dims();
    match eval(m, c, &cx.static_env) {
        Ok(v) if (1..=MAX_CLUSTER).contains(&v) => {}
        Ok(v) => diags.push(
            Diagnostic::new(
                codes::CLUSTER,
                span,
                format!(
                    "`cluster {}` asks for {v} blocks per cluster{}; it must be in 1..={MAX_CLUSTER}",
                    m.expr_to_string(c),
                    values(cx, c)
                ),
            )
            .with_help("use a tunable such as `CLUSTER in [1, 2]`, or constrain it with a `require`"),
        ),
        Err(EvalError::NoValue { name, expr }) if dims.contains(&name) => diags.push(
            Diagnostic::new(
                codes::CLUSTER,
                m.expr_span(expr),
                format!(
                    "`cluster` is fixed when the kernel is compiled, but `{name}` is a problem dimension known only at launch"
                ),
            )
            .with_help("write the cluster size over tunables and constants only"),
        ),
        Err(err) => report_eval(m, &err, "the `cluster` size", &cx.static_env, diags),
    }
}
