//! The lowered body as the passes see it ([`Body`]): the nodes and the facts lowering recorded
//! about them, and the helper names the passes and the writer recognise.

use super::cxx::CExpr;
use super::kernel::{Call, Line};

/// The lowered body and the facts the passes need about it.
#[derive(Debug, Default)]
pub struct Body {
    pub lines: Vec<Line>,
    /// Async grid-tile copies that may take their branch-free form, with the conditions under
    /// which the tile grid divides the tensor.
    pub even_copies: Vec<(Call, Vec<CExpr>)>,
    /// The register stages of async transposed copies, in the order of their first issue.
    pub stages: Vec<Stage>,
    /// The async copies of tiles sized at launch ([`G2S_N`], which synchronous copies call too).
    pub async_launch_sized: Vec<Call>,
}

/// The cooperative global → shared copies (`lowering/simt.cuh`, `lowering/simt_tiles.cuh`).
pub const G2S: &str = "tsl_copy_g2s";
pub const G2S_ASYNC: &str = "tsl_copy_g2s_async";
pub const G2S_T: &str = "tsl_copy_g2s_t";
/// The cooperative shared → global store (`lowering/simt_store.cuh`).
pub const S2G: &str = "tsl_copy_s2g";
/// [`G2S`] and [`S2G`] for tiles whose extents are known only at launch, which they take as
/// arguments (`lowering/simt_launch_sized.cuh`).
pub const G2S_N: &str = "tsl_copy_g2s_n";
pub const S2G_N: &str = "tsl_copy_s2g_n";
pub const LAUNCH_SIZED: [&str; 2] = [G2S_N, S2G_N];
/// Named barriers, `__bar_sync` and `__bar_arrive` (`lowering/named_barrier.cuh`).
pub const BAR_SYNC: &str = "tsl_bar_sync";
pub const BAR_ARRIVE: &str = "tsl_bar_arrive";
pub const NAMED_BARRIERS: [&str; 2] = [BAR_SYNC, BAR_ARRIVE];

/// The register stage of the async copies into one `.transpose()`d shared tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    pub tensor: String,
    pub targs: Vec<CExpr>,
    /// The element type.
    pub ty: &'static str,
    /// The DSL line of its first issue.
    pub dsl_line: Option<u32>,
}

impl Stage {
    /// The C++ variable of the stage.
    pub fn var(&self) -> String {
        format!("tsl_stage_{}", self.tensor)
    }
    /// The call that lands the stage (its transposed shared stores).
    pub fn land(&self) -> Call {
        Call::new(G2S_T)
            .targs(self.targs.clone())
            .args([CExpr::var(self.var())])
    }
    /// Whether `c` issues a copy into this stage.
    pub fn issued_by(&self, c: &Call) -> bool {
        c.name == G2S_T && c.args.len() > 1 && c.args[0] == CExpr::var(self.var())
    }
}

/// The helpers of `lowering/simt_tiles.cuh` (codegen-cuda includes that file for a kernel
/// that calls one of them, or [`G2S_ASYNC`], which a kernel only keeps when one of these is
/// present — see `simt::select_copy_helpers`).
pub const TILE_HELPERS: [&str; 9] = [
    "tsl_copy_g2r",
    "tsl_copy_r2g",
    "tsl_copy_tile",
    "tsl_copy_tile_st",
    G2S_T,
    "tsl_warp_sum",
    "tsl_warp_max",
    "tsl_block_sum",
    "tsl_block_max",
];

/// The block-wide reductions (`lowering/block_reduce.cuh`, with the warp ones they build on).
pub const BLOCK_REDUCE: [&str; 2] = ["tsl_block_sum", "tsl_block_max"];

/// `cp.async` completion (`sm80_async.cuh`): all groups, or all but N.
pub const WAIT_ALL: &str = "tsl_cp_async_wait_all";
pub const WAIT: &str = "tsl_cp_async_wait";
