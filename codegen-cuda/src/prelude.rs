//! Which helper sections a kernel needs, and the WGMMA specializations its domains reach. The
//! SIMT register-tile helpers (`lowering/simt_tiles.cuh`) and the cluster helpers come only with
//! kernels that call them.

use super::Section;
use dsl_core::lower::{CudaKernel, KernelPath};
use std::collections::BTreeSet;

const PRELUDE: &str = include_str!("../cuda/prelude.cuh");
const SM80_ASYNC: &str = include_str!("../cuda/sm80_async.cuh");
const SM90_HOPPER: &str = include_str!("../cuda/sm90_hopper.cuh");
const GLUE_COMMON: &str = include_str!("../cuda/lowering/common.cuh");
const GLUE_SIMT: &str = include_str!("../cuda/lowering/simt.cuh");
const GLUE_SIMT_TILES: &str = include_str!("../cuda/lowering/simt_tiles.cuh");
/// `reduce … : block`: the warps' values met in shared memory.
const GLUE_BLOCK_REDUCE: &str = include_str!("../cuda/lowering/block_reduce.cuh");
const GLUE_SIMT_STORE: &str = include_str!("../cuda/lowering/simt_store.cuh");
const GLUE_SIMT_LAUNCH_SIZED: &str = include_str!("../cuda/lowering/simt_launch_sized.cuh");
const GLUE_NAMED_BARRIER: &str = include_str!("../cuda/lowering/named_barrier.cuh");
const GLUE_WARP_MMA: &str = include_str!("../cuda/lowering/warp_mma.cuh");
/// `mma.load` of swizzled (TMA-written) tiles into warp fragments.
const GLUE_WARP_SWZ: &str = include_str!("../cuda/lowering/warp_swz.cuh");
/// Element numbering of accumulators: with kernels that update accumulators element-wise.
const GLUE_FRAG_ELEM: &str = include_str!("../cuda/lowering/frag_elem.cuh");
/// `frag` tiles: row fragments, copies, fills, row reductions.
const GLUE_FRAG_ROWS: &str = include_str!("../cuda/lowering/frag_rows.cuh");

/// The helpers of `lowering/simt_tiles.cuh`: the section is included when the body calls one.
const GLUE_HOPPER: &str = include_str!("../cuda/lowering/hopper.cuh");
/// K-steps, s32 accumulators, 32-bit stores: with kernels that split an `mma` along K or use
/// 8-bit operands.
const GLUE_HOPPER_WIDE: &str = include_str!("../cuda/lowering/hopper_wide.cuh");
/// `mma.store` element by element: to global, `.transp`, `.mask`.
const GLUE_HOPPER_STORE: &str = include_str!("../cuda/lowering/hopper_store.cuh");
/// `mma….scale`: block-scaled products added into the accumulator.
const GLUE_HOPPER_SCALE: &str = include_str!("../cuda/lowering/hopper_scale.cuh");
/// `mma.scale`: an `mma` of several K-steps into the partial it scales.
const GLUE_HOPPER_SCALE_ACC: &str = include_str!("../cuda/lowering/hopper_scale_acc.cuh");
/// `wait f` on an `mma….async` future.
const GLUE_HOPPER_ASYNC: &str = include_str!("../cuda/lowering/hopper_async.cuh");
/// `pingpong;`: the consumers' main-loop turns and parity bits.
const GLUE_PINGPONG: &str = include_str!("../cuda/lowering/pingpong.cuh");
/// `streamk;`: the stream-K walk and the fix-up of shared tiles.
const GLUE_STREAMK: &str = include_str!("../cuda/lowering/streamk.cuh");
const GLUE_HOPPER_DMA: &str = include_str!("../cuda/lowering/hopper_dma.cuh");
const GLUE_HOPPER_COPY: &str = include_str!("../cuda/lowering/hopper_copy.cuh");
const SM90_CLUSTER: &str = include_str!("../cuda/sm90_cluster.cuh");
const GLUE_CLUSTER: &str = include_str!("../cuda/lowering/cluster.cuh");
const GLUE_CLUSTER_LEVEL: &str = include_str!("../cuda/lowering/cluster_level.cuh");

/// Drops `#pragma once` (one file, nothing to guard).
fn body(text: &str) -> String {
    text.lines()
        .filter(|l| l.trim() != "#pragma once")
        .collect::<Vec<_>>()
        .join("\n")
        .trim_end()
        .to_string()
}

/// The helper sections of `k`, whose body calls `calls`.
pub fn sections(k: &CudaKernel, calls: &BTreeSet<String>) -> Vec<Section> {
    let mut s = vec![Section {
        name: "types and scalar math (prelude.cuh)",
        text: body(PRELUDE),
    }];
    match k.path {
        KernelPath::Simt => {
            s.push(Section {
                name: "cp.async (sm80_async.cuh)",
                text: body(SM80_ASYNC),
            });
            s.push(Section {
                name: "index arithmetic (lowering/common.cuh)",
                text: body(GLUE_COMMON),
            });
            s.push(Section {
                name: "SIMT tiles (lowering/simt.cuh)",
                text: body(GLUE_SIMT),
            });
            let uses_tiles = dsl_core::lower::SIMT_TILE_HELPERS
                .iter()
                .chain([&dsl_core::lower::SIMT_G2S_ASYNC])
                .any(|h| calls.contains(*h));
            if uses_tiles {
                s.push(Section {
                    name: "register tiles, vector copies, warp reductions (lowering/simt_tiles.cuh)",
                    text: body(GLUE_SIMT_TILES),
                });
            }
            // The sections a kernel takes when it calls one of their helpers.
            let called: [(&[&str], &'static str, &str); 4] = [
                (
                    &dsl_core::lower::SIMT_BLOCK_REDUCE,
                    "block-wide reductions (lowering/block_reduce.cuh)",
                    GLUE_BLOCK_REDUCE,
                ),
                (
                    &[dsl_core::lower::SIMT_S2G],
                    "shared → global tile store (lowering/simt_store.cuh)",
                    GLUE_SIMT_STORE,
                ),
                (
                    &dsl_core::lower::SIMT_LAUNCH_SIZED,
                    "tiles sized at launch (lowering/simt_launch_sized.cuh)",
                    GLUE_SIMT_LAUNCH_SIZED,
                ),
                (
                    &dsl_core::lower::NAMED_BARRIERS,
                    "named barriers (lowering/named_barrier.cuh)",
                    GLUE_NAMED_BARRIER,
                ),
            ];
            for (helpers, name, text) in called {
                if helpers.iter().any(|h| calls.contains(*h)) {
                    s.push(Section {
                        name,
                        text: body(text),
                    });
                }
            }
            // Only kernels with warp-level `mma` get the mma.sync / ldmatrix helpers.
            if dsl_core::lower::WARP_MMA_HELPERS
                .iter()
                .any(|h| calls.contains(*h))
            {
                s.push(Section {
                    name: "warp-level tensor cores: mma.sync, ldmatrix (lowering/warp_mma.cuh)",
                    text: body(GLUE_WARP_MMA),
                });
            }
        }
        KernelPath::Hopper => {
            s.push(Section {
                name: "mbarrier, TMA, WGMMA (sm90_hopper.cuh)",
                text: body(SM90_HOPPER),
            });
            s.push(Section {
                name: "WGMMA instructions used by this kernel (sm90_wgmma.cuh)",
                text: crate::wgmma::specializations(&k.wgmma_types, &k.wgmma_ns),
            });
            if crate::wgmma_sp::needed(&k.wgmma_types) {
                s.push(Section {
                    name: "structured-sparse WGMMA used by this kernel (wgmma_sp.rs)",
                    text: crate::wgmma_sp::section(&k.wgmma_types, &k.wgmma_ns),
                });
            }
            if crate::wgmma_rs::needed(&k.wgmma_types) {
                s.push(Section {
                    name: "register-A WGMMA used by this kernel (wgmma_rs.rs)",
                    text: crate::wgmma_rs::section(&k.wgmma_types, &k.wgmma_ns),
                });
            }
            // A plain `dma.copy` global → shared in a Hopper kernel (a 1-D tile of a row of
            // scalars, say) is the SIMT path's cooperative copy.
            if calls.contains("tsl_copy_g2s") {
                s.push(Section {
                    name: "cp.async (sm80_async.cuh)",
                    text: body(SM80_ASYNC),
                });
                s.push(Section {
                    name: "`dma.copy` global → shared in a Hopper kernel (lowering/hopper_copy.cuh)",
                    text: body(GLUE_HOPPER_COPY),
                });
            }
            if crate::wgmma_tb::needed(&k.wgmma_types) {
                s.push(Section {
                    name: "WGMMA with an MN-major B used by this kernel (wgmma_tb.rs)",
                    text: crate::wgmma_tb::section(&k.wgmma_types, &k.wgmma_ns),
                });
            }
            s.push(Section {
                name: "index arithmetic (lowering/common.cuh)",
                text: body(GLUE_COMMON),
            });
            s.push(Section {
                name: "events, tiles, fragments (lowering/hopper.cuh)",
                text: body(GLUE_HOPPER),
            });
            let eight_bit = k
                .wgmma_types
                .iter()
                .any(|(acc, input)| acc == "s32" || input.starts_with("f8") || input == "s8");
            let sparse = crate::wgmma_sp::needed(&k.wgmma_types);
            if eight_bit || sparse || calls.contains("tsl_wgmma_k_steps") {
                s.push(Section {
                    name: "K-steps, 8-bit WGMMA accumulators (lowering/hopper_wide.cuh)",
                    text: body(GLUE_HOPPER_WIDE),
                });
            }
            let s2g = calls.contains(dsl_core::lower::SIMT_S2G);
            // A global element read (`scale.at(i, k)`) is a guarded load inside an expression;
            // a global element store (`output.at(i, j) = v`) a guarded store.
            let mut named = BTreeSet::new();
            for l in &k.body {
                l.op.names(&mut named);
            }
            if calls.contains("tsl_acc_store_pitched")
                || s2g
                || named.contains("tsl_ld_or_zero")
                || calls.contains("tsl_st_guarded")
            {
                s.push(Section {
                    name: "`mma.store` to global, transposed or masked (lowering/hopper_store.cuh)",
                    text: body(GLUE_HOPPER_STORE),
                });
            }
            if calls.contains(dsl_core::lower::SWIZZLED_G2S) {
                s.push(Section {
                    name: "`dma.copy.swiz` into WGMMA operand buffers (lowering/hopper_dma.cuh)",
                    text: body(GLUE_HOPPER_DMA),
                });
            }
            if calls.contains("tsl_wgmma_wait_for") {
                s.push(Section {
                    name: "`wait` on an `mma….async` future (lowering/hopper_async.cuh)",
                    text: body(GLUE_HOPPER_ASYNC),
                });
            }
            if calls.contains("tsl_acc_scale_add") {
                s.push(Section {
                    name: "block-scaled `mma….scale` (lowering/hopper_scale.cuh)",
                    text: body(GLUE_HOPPER_SCALE),
                });
            }
            if calls.contains("tsl_pingpong_wait_turn") {
                s.push(Section {
                    name: "ping-pong consumers (lowering/pingpong.cuh)",
                    text: body(GLUE_PINGPONG),
                });
            }
            if calls.contains("tsl_sk_publish") {
                s.push(Section {
                    name: "stream-K walk and fix-up (lowering/streamk.cuh)",
                    text: body(GLUE_STREAMK),
                });
            }
            if calls.contains("tsl_wgmma_k_steps_d") {
                s.push(Section {
                    name: "K-steps into an `mma.scale` partial (lowering/hopper_scale_acc.cuh)",
                    text: body(GLUE_HOPPER_SCALE_ACC),
                });
            }
            if s2g {
                s.push(Section {
                    name: "shared → global tile store (lowering/simt_store.cuh)",
                    text: body(GLUE_SIMT_STORE),
                });
            }
            // Only kernels with `cluster C;` (they sync as a cluster) get the cluster helpers.
            if calls.contains("tsl_cluster_sync") {
                s.push(Section {
                    name: "thread-block clusters (sm90_cluster.cuh, lowering/cluster.cuh)",
                    text: format!("{}\n\n{}", body(SM90_CLUSTER), body(GLUE_CLUSTER)),
                });
            }
            // A `: cluster` level (its blocks are placed by rank in a 2-D cluster).
            if calls.contains("tsl_raster_cluster_2d") {
                s.push(Section {
                    name: "`: cluster` levels (lowering/cluster_level.cuh)",
                    text: body(GLUE_CLUSTER_LEVEL),
                });
            }
            // Warp-level `mma` fed by TMA (`: group` levels, no `: group-4`).
            let swz = dsl_core::lower::WARP_SWZ_HELPERS
                .iter()
                .any(|h| calls.contains(*h));
            if swz
                || dsl_core::lower::WARP_MMA_HELPERS
                    .iter()
                    .any(|h| calls.contains(*h))
            {
                s.push(Section {
                    name: "warp-level tensor cores: mma.sync, ldmatrix (lowering/warp_mma.cuh)",
                    text: body(GLUE_WARP_MMA),
                });
            }
            if swz {
                s.push(Section {
                    name: "ldmatrix from swizzled tiles (lowering/warp_swz.cuh)",
                    text: body(GLUE_WARP_SWZ),
                });
            }
        }
    }
    // Element-wise work on accumulators (`lower/frag_elem.rs`): its loops name these helpers.
    let mut named = BTreeSet::new();
    for l in &k.body {
        l.op.names(&mut named);
    }
    let rows = dsl_core::lower::FRAG_ROWS_HELPERS
        .iter()
        .any(|h| named.contains(*h));
    if rows
        || dsl_core::lower::FRAG_ELEM_HELPERS
            .iter()
            .any(|h| named.contains(*h))
    {
        s.push(Section {
            name: "element-wise work on accumulators (lowering/frag_elem.cuh)",
            text: body(GLUE_FRAG_ELEM),
        });
    }
    if rows {
        s.push(Section {
            name: "`frag` tiles: row fragments, copies, row reductions (lowering/frag_rows.cuh)",
            text: body(GLUE_FRAG_ROWS),
        });
    }
    s
}
