//! Pass `plan`: the kernel's signature, constants and launch plan.
//!
//! Parameters come in DSL order: a pointer for each global tensor accessed element-wise or by
//! `dma.copy`, a `CUtensorMap` for each distinct TMA box over it, then the symbolic dims as
//! `int`s. Constants become `constexpr int`s; the launch plan keeps them as host expressions.

use super::emitter::Emitter;
use super::kernel::{Call, CudaKernel, KernelArg, KernelPath, LaunchPlan, Line, Op};
use super::memory::Memory;
use crate::check::Geometry;
use crate::check::KernelInfo;
use crate::ir::Module;
use crate::sym::Sym;
use std::collections::{BTreeMap, BTreeSet};

/// Replaces constants by their definitions, so the expression only mentions tunables and dims.
pub fn expand(m: &Module, s: &Sym) -> Sym {
    let consts: BTreeMap<String, Sym> = m
        .constants
        .iter()
        .filter_map(|c| Some((c.name.name.clone(), Sym::from_expr(m, c.value)?)))
        .collect();
    subst(s, &consts, 0)
}

fn subst(s: &Sym, c: &BTreeMap<String, Sym>, depth: u32) -> Sym {
    let r = |x: &Sym| Box::new(subst(x, c, depth));
    match s {
        Sym::Name(n) if depth < 32 => match c.get(n) {
            Some(v) => subst(v, c, depth + 1),
            None => s.clone(),
        },
        Sym::Neg(a) => Sym::Neg(r(a)),
        Sym::Not(a) => Sym::Not(r(a)),
        Sym::Bin(op, a, b) => Sym::bin(*op, subst(a, c, depth), subst(b, c, depth)),
        Sym::Cdiv(a, b) => Sym::Cdiv(r(a), r(b)),
        Sym::Min(a, b) => Sym::Min(r(a), r(b)),
        Sym::Max(a, b) => Sym::Max(r(a), r(b)),
        _ => s.clone(),
    }
}

pub fn finish(
    m: &Module,
    info: &KernelInfo,
    geo: &Geometry,
    mem: &Memory,
    mut e: Emitter,
) -> CudaKernel {
    if e.uses_sync_tma {
        let decl = [
            Line {
                note: Some("completes the synchronous TMA loads".into()),
                ..Line::new(
                    0,
                    Op::Decl {
                        ty: "__shared__ alignas(8) unsigned long long".into(),
                        name: "tsl_tma_bar".into(),
                        init: None,
                    },
                )
            },
            Line::new(
                0,
                Op::Guarded {
                    cond: "threadIdx.x == 0".into(),
                    calls: vec![
                        Call::new("tsl_mbar_init").args(["&tsl_tma_bar", "1"]),
                        Call::new("tsl_mbar_init_fence"),
                    ],
                },
            ),
            Line::new(0, Op::Barrier),
            Line::new(
                0,
                Op::Decl {
                    ty: "unsigned".into(),
                    name: "tsl_tma_phase".into(),
                    init: Some("0".into()),
                },
            ),
        ];
        e.lines.splice(0..0, decl);
    }
    element_params(info, &mut e);
    let dims = m.symbolic_dims();
    let mut params = Vec::new();
    let mut args = Vec::new();
    for (i, p) in m.kernel.params.iter().enumerate() {
        let ty = super::cexpr::scalar_type(p.dtype);
        // A scalar parameter is passed by value (see `KernelArg::Scalar`).
        if p.shape.is_empty() {
            let float = p.dtype.is_float();
            let cty = if float { "float" } else { "int" };
            params.push(format!("const {cty} {}", p.name.name));
            args.push(KernelArg::Scalar { param: i, float });
            continue;
        }
        if e.pointer_params.contains(&i) {
            let c = if e.written_params.contains(&i) {
                ""
            } else {
                "const "
            };
            params.push(format!("{c}{ty}* __restrict__ {}", p.name.name));
            args.push(KernelArg::Pointer { param: i });
        }
        for t in e.tma_maps.iter().filter(|t| t.param == i) {
            params.push(format!(
                "const __grid_constant__ tsl_tensor_map {}",
                t.cpp_name
            ));
            args.push(KernelArg::TensorMap {
                param: i,
                box_rows: expand(m, &t.box_rows),
                box_cols: expand(m, &t.box_cols),
                swizzle: expand(m, &t.swizzle),
            });
        }
    }
    for d in &dims {
        params.push(format!("const int {d}"));
        args.push(KernelArg::Dim { name: d.clone() });
    }
    let mut constants: Vec<(String, String)> = m
        .constants
        .iter()
        .map(|c| {
            (
                c.name.name.clone(),
                Sym::from_expr(m, c.value)
                    .map(|s| s.to_cpp())
                    .unwrap_or_else(|| m.expr_to_string(c.value)),
            )
        })
        .collect();
    constants.push(("tsl_threads".into(), geo.threads.to_cpp()));
    for s in &mem.slots {
        constants.push((s.offset_name.clone(), s.offset_cpp.clone()));
    }
    let threads = expand(m, &geo.threads);
    let blocks_per_sm = blocks_per_sm(m, &threads, &e);
    let launch_bounds = match e.path {
        KernelPath::Hopper => {
            let blocks = format!("({})", blocks_per_sm.to_cpp());
            if !e.roles.is_empty() {
                constants.push(("tsl_blocks_per_sm".into(), blocks.clone()));
                constants.push(("tsl_regs_producer".into(), "40".into()));
                let wg = geo
                    .thread_vars
                    .iter()
                    .find(|v| v.level == crate::ir::Level::Group4)
                    .map(|v| v.extent.clone())
                    .unwrap_or(Sym::Int(2));
                let consumers = Sym::bin(crate::ir::BinaryOp::Sub, wg, Sym::Int(1));
                // The producer's freed registers fund the consumers (setmaxnreg): per block
                // 65536 / blocks registers, 128 threads at 40, the rest shared by the consumers.
                constants.push((
                    "tsl_regs_consumer".into(),
                    format!(
                        "tsl_min(240, (65536 / tsl_blocks_per_sm - 128 * tsl_regs_producer) / (128 * {}) / 8 * 8)",
                        super::cexpr::cpp_paren(&consumers)
                    ),
                ));
            }
            let dims = match &geo.cluster {
                Some(c) => format!("__cluster_dims__({}, 1, 1) ", expand(m, c).to_cpp()),
                None => String::new(),
            };
            format!("{dims}__launch_bounds__({}, {blocks})", threads.to_cpp())
        }
        // `occupancy N;`: at least N blocks per SM, so ptxas caps registers at 65536 / (T × N).
        KernelPath::Simt => match m.occupancy {
            Some(o) => {
                let blocks = Sym::from_expr(m, o)
                    .map(|s| expand(m, &s).to_cpp())
                    .unwrap_or_else(|| m.expr_to_string(o));
                format!("__launch_bounds__({}, ({blocks}))", threads.to_cpp())
            }
            None => format!("__launch_bounds__({})", threads.to_cpp()),
        },
    };
    let mut grid: Vec<Sym> = geo.grid.iter().map(|g| expand(m, g)).collect();
    if let (Some(tiles), Some(on)) = (&geo.persistent_tiles, &geo.persistent_on) {
        // min(tiles, SMs × blocks per SM); with the switch off, one block per tile.
        let tiles = expand(m, tiles);
        let slots = Sym::mul(Sym::name("TSL_SM_COUNT"), blocks_per_sm.clone());
        let off = Sym::mul(
            Sym::bin(crate::ir::BinaryOp::Eq, expand(m, on), Sym::Int(0)),
            tiles.clone(),
        );
        grid[0] = Sym::Min(Box::new(tiles), Box::new(Sym::add(slots, off)));
        if let Some(c) = &geo.cluster {
            // Whole clusters (the tile count is a multiple of the cluster size already).
            grid[0] = Sym::mul(
                Sym::bin(crate::ir::BinaryOp::Div, grid[0].clone(), c.clone()),
                c.clone(),
            );
        }
    }
    grid.resize(3, Sym::Int(1));
    let launch_requires = m
        .requires
        .iter()
        .filter_map(|r| {
            let s = Sym::from_expr(m, r.cond)?;
            let mut names = Vec::new();
            s.names(&mut names);
            names
                .iter()
                .any(|n| dims.contains(n))
                .then(|| (expand(m, &s), m.expr_to_string(r.cond)))
        })
        .collect();
    let plan = LaunchPlan {
        grid: [grid[0].clone(), grid[1].clone(), grid[2].clone()],
        block_threads: threads,
        dynamic_smem_bytes: expand(m, &mem.total),
        args,
        launch_requires,
    };
    let mut ns: Vec<i64> = Vec::new();
    for n in &e.wgmma_ns {
        // Every value the accumulator width can take over the tunable domains.
        for cfg in super::domain::configs(m) {
            if let Ok(v) = expand(m, n).eval(&cfg)
                && !ns.contains(&v)
            {
                ns.push(v);
            }
        }
    }
    ns.sort();
    CudaKernel {
        dsl_name: m.kernel.name.name.clone(),
        name: format!("tsl_{}", m.kernel.name.name),
        path: e.path,
        tunables: crate::tunable::Tunable::of_module(m),
        constants,
        params,
        launch_bounds,
        body: e.lines,
        plan,
        written_params: e.written_params.iter().copied().collect(),
        wgmma_types: e.wgmma_types,
        wgmma_ns: ns,
    }
}

/// Pass `constants`: keeps the constants the body uses (see [`used_constants`]).
pub fn drop_unused_constants(k: &mut CudaKernel) {
    k.constants = used_constants(std::mem::take(&mut k.constants), &k.body);
}

/// The constants the body uses, directly or through a later constant (the list is in
/// dependency order); a `const` the DSL only needs in a `require` or a launch expression would
/// be an unused `constexpr` (dead code, and an NVRTC warning) in the kernel.
fn used_constants(constants: Vec<(String, String)>, body: &[Line]) -> Vec<(String, String)> {
    let mut used = BTreeSet::new();
    for l in body {
        l.op.names(&mut used);
    }
    let mut kept: Vec<(String, String)> = Vec::new();
    for (name, value) in constants.into_iter().rev() {
        if used.contains(&name) {
            super::kernel::identifiers(&value, &mut used);
            kept.push((name, value));
        }
    }
    kept.reverse();
    kept
}

/// Parameters read element-wise (`lhs.at(i, j)`, `lhs.chunkat(b, _).at(i, j)` in an
/// expression: the checker's element views of a parameter) are passed as pointers.
fn element_params(info: &KernelInfo, e: &mut Emitter) {
    for v in info.sym_views.values().filter_map(|v| v.as_ref().ok()) {
        if let (true, Some(crate::check::Binding::Param(i))) =
            (v.element, info.bindings.get(&v.root))
        {
            e.pointer_params.insert(*i);
        }
    }
}

/// Blocks per SM the Hopper register split is sized for: two when a block has at most 256
/// threads (one producer + one consumer warpgroup: 128 registers each at entry) and the
/// accumulator fragment fits in 64 registers (ptxas allocates every WGMMA operand under the
/// entry limit: a 32-bit (f32 or s32) fragment of N = 216 alone needs 108), else one.
fn blocks_per_sm(m: &Module, threads: &Sym, e: &Emitter) -> Sym {
    use crate::ir::BinaryOp;
    // Warp-level `mma.sync` fed by TMA: its accumulators are the warps' registers, as on the
    // SIMT path — `occupancy N;` or one block.
    if super::warp::hopper_warp(e) {
        return m
            .occupancy
            .and_then(|o| Sym::from_expr(m, o))
            .map(|s| expand(m, &s))
            .unwrap_or(Sym::Int(1));
    }
    let small_block = Sym::bin(BinaryOp::Le, threads.clone(), Sym::Int(256));
    let wide_acc = e.wgmma_types.iter().any(|(acc, _)| acc != "f16");
    let fits = e.wgmma_ns.iter().fold(Sym::Int(1), |ok, n| {
        let regs = Sym::bin(
            BinaryOp::Div,
            expand(m, n),
            Sym::Int(if wide_acc { 2 } else { 4 }),
        );
        Sym::mul(ok, Sym::bin(BinaryOp::Le, regs, Sym::Int(64)))
    });
    Sym::add(Sym::Int(1), Sym::mul(small_block, fits))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `int name[len];`
    fn line(name: &str, len: &str) -> Line {
        let op = Op::Array {
            ty: "int".into(),
            name: name.into(),
            len: len.into(),
        };
        Line::new(0, op)
    }

    #[test]
    fn constants_the_body_does_not_reach_are_dropped() {
        let c = |n: &str, v: &str| (n.to_string(), v.to_string());
        let constants = vec![
            c("WMITER", "WM / TM"),
            c("WSUBM", "WM / WMITER"),
            c("THREADS", "BM / WM * 32"),
            c("tsl_threads", "WSUBM * 4"),
        ];
        let kept = used_constants(constants, &[line("acc", "tsl_threads + 1")]);
        let names: Vec<&str> = kept.iter().map(|(n, _)| n.as_str()).collect();
        // THREADS only served a `require`; WMITER is reached through WSUBM and tsl_threads.
        assert_eq!(names, ["WMITER", "WSUBM", "tsl_threads"]);
        // A name that merely contains a constant's name does not keep it.
        assert!(used_constants(vec![c("PAD", "4")], &[line("PADDED", "1")]).is_empty());
    }
}
