//! Which helper sections a kernel needs, and the WGMMA specializations its domains reach. The
//! SIMT register-tile helpers (`lowering/simt_tiles.cuh`) and the cluster helpers come only with
//! kernels that call them.

use super::Section;
use dsl_core::lower::{CudaKernel, KernelPath};

const PRELUDE: &str = include_str!("../cuda/prelude.cuh");
const SM80_ASYNC: &str = include_str!("../cuda/sm80_async.cuh");
const SM90_HOPPER: &str = include_str!("../cuda/sm90_hopper.cuh");
const SM90_WGMMA: &str = include_str!("../cuda/sm90_wgmma.cuh");
const GLUE_COMMON: &str = include_str!("../cuda/lowering/common.cuh");
const GLUE_SIMT: &str = include_str!("../cuda/lowering/simt.cuh");
const GLUE_SIMT_TILES: &str = include_str!("../cuda/lowering/simt_tiles.cuh");

/// The helpers of `lowering/simt_tiles.cuh`: the section is included when the body calls one.
const GLUE_HOPPER: &str = include_str!("../cuda/lowering/hopper.cuh");
const SM90_CLUSTER: &str = include_str!("../cuda/sm90_cluster.cuh");
const GLUE_CLUSTER: &str = include_str!("../cuda/lowering/cluster.cuh");

/// Drops `#pragma once` (one file, nothing to guard).
fn body(text: &str) -> String {
    text.lines()
        .filter(|l| l.trim() != "#pragma once")
        .collect::<Vec<_>>()
        .join("\n")
        .trim_end()
        .to_string()
}

pub fn sections(k: &CudaKernel) -> Vec<Section> {
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
            let uses_tiles = k.body.iter().any(|l| {
                dsl_core::lower::SIMT_TILE_HELPERS
                    .iter()
                    .chain(["tsl_copy_g2s_async<"].iter())
                    .any(|h| l.code.contains(h))
            });
            if uses_tiles {
                s.push(Section {
                    name: "register tiles, vector copies, warp reductions (lowering/simt_tiles.cuh)",
                    text: body(GLUE_SIMT_TILES),
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
                text: wgmma_specializations(&k.wgmma_types, &k.wgmma_ns),
            });
            s.push(Section {
                name: "index arithmetic (lowering/common.cuh)",
                text: body(GLUE_COMMON),
            });
            s.push(Section {
                name: "events, tiles, fragments (lowering/hopper.cuh)",
                text: body(GLUE_HOPPER),
            });
            // Only kernels with `cluster C;` (they sync as a cluster) get the cluster helpers.
            if k.body.iter().any(|l| l.code.contains("tsl_cluster_sync()")) {
                s.push(Section {
                    name: "thread-block clusters (sm90_cluster.cuh, lowering/cluster.cuh)",
                    text: format!("{}\n\n{}", body(SM90_CLUSTER), body(GLUE_CLUSTER)),
                });
            }
        }
    }
    s
}

/// The primary templates, the specializations for (accumulator, input) ∈ `types` and N ∈ `ns`,
/// and the dispatch structs, cut from the generated `sm90_wgmma.cuh`.
pub fn wgmma_specializations(types: &[(String, String)], ns: &[i64]) -> String {
    let text = body(SM90_WGMMA);
    let mut out = Vec::new();
    let mut keep = true;
    let mut in_spec = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("template <> struct tsl_wgmma_") {
            // e.g. "f32_f16<128> {"
            let (ty, n) = rest.split_once('<').unwrap_or((rest, ""));
            let n: i64 = n
                .split('>')
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(-1);
            let (acc, inp) = ty.split_once('_').unwrap_or((ty, ""));
            keep = types.iter().any(|(a, i)| a == acc && i == inp) && ns.contains(&n);
            in_spec = true;
        }
        if !in_spec || keep {
            out.push(line);
        }
        if in_spec && line == "};" {
            in_spec = false;
            keep = true;
        }
    }
    // Collapse the blank runs left by dropped blocks.
    let mut s = String::new();
    let mut blank = 0;
    for l in out {
        if l.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        s.push_str(l);
        s.push('\n');
    }
    s.trim_end().to_string()
}
