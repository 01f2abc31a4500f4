//! `cluster C;`: thread-block clusters of `C` blocks along the first `: block` variable, with the
//! operand the cluster's blocks share multicast by TMA (see the lowering's `cluster` pass). `C`
//! must evaluate, under the configuration and without problem sizes, to an integer in 1..=8 (the
//! portable cluster size limit); the kernel must take the Hopper path (TMA, mbarriers) and
//! rasterize its 2-D block level (`raster G;`), which places a cluster's blocks on adjacent rows.

use super::Cx;
use super::codes;
use super::occupancy::{IntItem, check_int_item, hopper_stmt};
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
    check_int_item(
        cx,
        c,
        &IntItem {
            keyword: "cluster",
            unit: "blocks per cluster",
            max: MAX_CLUSTER,
            code: codes::CLUSTER,
            help: "use a tunable such as `CLUSTER in [1, 2]`, or constrain it with a `require`",
            quantity: "cluster size",
        },
        diags,
    );
}
