//! Pass `plan`: the kernel's signature, constants and launch plan.
//!
//! Parameters come in DSL order: a pointer for each global tensor accessed element-wise or by
//! `dma.copy`, a `CUtensorMap` for each distinct TMA box over it, then the symbolic dims as
//! `int`s. Constants become `constexpr int`s; the launch plan keeps them as host expressions.

use super::cxx::{CExpr, CType};
use super::emitter::Emitter;
use super::kernel::{
    Call, ConstValue, CudaKernel, KernelArg, KernelPath, LaunchBounds, LaunchPlan, Line, Op,
    OutputFill, ParamDecl,
};
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
                    cond: CExpr::builtin("threadIdx", "x").eq(CExpr::int(0)),
                    calls: vec![
                        Call::new("tsl_mbar_init")
                            .args([CExpr::var("tsl_tma_bar").addr(), CExpr::int(1)]),
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
                    init: Some(CExpr::int(0)),
                },
            ),
        ];
        e.lines.splice(0..0, decl);
    }
    element_params(info, &mut e);
    let fills = host_fills(m, info, &mut e);
    let dims = m.symbolic_dims();
    let mut params = Vec::new();
    let mut args = Vec::new();
    for (i, p) in m.kernel.params.iter().enumerate() {
        let ty = super::cexpr::scalar_type(p.dtype);
        // A scalar parameter is passed by value (see `KernelArg::Scalar`).
        if p.shape.is_empty() {
            let float = p.dtype.is_float();
            let cty = if float { "float" } else { "int" };
            params.push(param(CType::Named(cty).konst(), &p.name.name));
            args.push(KernelArg::Scalar { param: i, float });
            continue;
        }
        if e.pointer_params.contains(&i) {
            let elem = if e.written_params.contains(&i) {
                CType::Named(ty)
            } else {
                CType::Named(ty).konst()
            };
            params.push(param(elem.ptr(" __restrict__"), &p.name.name));
            args.push(KernelArg::Pointer { param: i });
        }
        for t in e.tma_maps.iter().filter(|t| t.param == i) {
            params.push(param(
                "const __grid_constant__ tsl_tensor_map".into(),
                &t.cpp_name,
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
        params.push(param("const int".into(), d));
        args.push(KernelArg::Dim { name: d.clone() });
    }
    if m.streamk.is_some() && geo.persistent_tiles.is_some() {
        // `streamk;`: the partial sums' workspace, zeroed once (see `lower/streamk.rs`).
        params.push(param(
            "unsigned char* __restrict__".into(),
            super::streamk::WORKSPACE,
        ));
        args.push(KernelArg::Workspace {
            block_bytes: Sym::mul(
                expand(m, &geo.threads),
                Sym::Int(super::streamk::BYTES_PER_THREAD),
            ),
        });
    }
    let mut constants: Vec<(String, ConstValue)> = m
        .constants
        .iter()
        .map(|c| {
            // The checker evaluated every constant as integer arithmetic.
            let v =
                Sym::from_expr(m, c.value).unwrap_or_else(|| Sym::name(m.expr_to_string(c.value)));
            (c.name.name.clone(), ConstValue::Int(v))
        })
        .collect();
    constants.push(("tsl_threads".into(), ConstValue::Int(geo.threads.clone())));
    for s in &mem.slots {
        constants.push((s.offset_name.clone(), s.offset.clone()));
    }
    let threads = expand(m, &geo.threads);
    let blocks_per_sm = blocks_per_sm(m, &threads, &e);
    let launch_bounds = match e.path {
        KernelPath::Hopper => {
            if !e.roles.is_empty() {
                use crate::ir::BinaryOp::Sub;
                constants.push((
                    "tsl_blocks_per_sm".into(),
                    ConstValue::Grouped(blocks_per_sm.clone()),
                ));
                let wg = geo
                    .thread_vars
                    .iter()
                    .find(|v| v.level == crate::ir::Level::Group4)
                    .map(|v| v.extent.clone())
                    .unwrap_or(Sym::Int(2));
                let consumers = Sym::bin(Sub, wg, Sym::Int(1));
                for (name, v) in register_split(consumers) {
                    constants.push((name.into(), ConstValue::Int(v)));
                }
            }
            LaunchBounds {
                threads: threads.clone(),
                min_blocks: Some(blocks_per_sm.clone()),
                cluster: geo.cluster.as_ref().map(|c| expand(m, c)),
                max_regs: None,
            }
        }
        // `occupancy N;` or `[[launch_bounds(T, N)]]`: at least N blocks per SM, so ptxas caps
        // registers at 65536 / (T × N); `[[maxnreg(R)]]`: at most R registers a thread. (The
        // checker evaluated them as integer arithmetic, `_` standing for the block's threads.)
        KernelPath::Simt => {
            let attr = |name: &str, i: usize| {
                let a = m.attributes.iter().find(|a| a.name.name == name)?;
                let e = *a.args.get(i)?;
                if matches!(m.exprs[e], crate::ir::Expr::Wildcard) {
                    return None;
                }
                Sym::from_expr(m, e).map(|s| expand(m, &s))
            };
            LaunchBounds {
                threads: attr("launch_bounds", 0).unwrap_or_else(|| threads.clone()),
                min_blocks: attr("launch_bounds", 1).or_else(|| {
                    m.occupancy
                        .and_then(|o| Sym::from_expr(m, o))
                        .map(|s| expand(m, &s))
                }),
                cluster: None,
                max_regs: attr("maxnreg", 0),
            }
        }
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
            names.iter().any(|n| dims.contains(n)).then(|| {
                (
                    expand(m, &s),
                    format!("require {}", m.expr_to_string(r.cond)),
                )
            })
        })
        .chain(
            info.launch_asserts
                .iter()
                .map(|(s, text)| (expand(m, s), text.clone())),
        )
        .collect();
    let plan = LaunchPlan {
        grid: [grid[0].clone(), grid[1].clone(), grid[2].clone()],
        block_threads: threads,
        dynamic_smem_bytes: expand(m, &mem.total),
        args,
        launch_requires,
        fills,
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
        device_fns: super::device_call::called(m),
    }
}

/// The outputs the runtime fills before each launch (`check::host_fill`): passed as pointers
/// and written (the fill writes them).
fn host_fills(m: &Module, info: &KernelInfo, e: &mut Emitter) -> Vec<OutputFill> {
    m.decl_ext
        .iter()
        .filter_map(|x| {
            let (param, value) = crate::check::host_fill(m, Some(&info.bindings), x)?;
            // The checker accepted the value (`check/support.rs`).
            let value = crate::check::fill_value(m, value, &info.constants)?;
            e.pointer_params.insert(param);
            e.written_params.insert(param);
            let elems = m.kernel.params[param]
                .shape
                .iter()
                .map(|&d| Sym::from_expr(m, d).unwrap_or_else(|| Sym::name(m.expr_to_string(d))))
                .fold(Sym::Int(1), Sym::mul);
            Some(OutputFill {
                param,
                value,
                elems: expand(m, &elems),
            })
        })
        .collect()
}

fn param(ty: CType, name: &str) -> ParamDecl {
    ParamDecl {
        ty,
        name: name.to_string(),
    }
}

/// Pass `constants`: keeps the constants the body uses (see [`used_constants`]).
pub fn drop_unused_constants(k: &mut CudaKernel) {
    k.constants = used_constants(std::mem::take(&mut k.constants), &k.body);
}

/// The constants the body uses, directly or through a later constant (the list is in
/// dependency order); a `const` the DSL only needs in a `require` or a launch expression would
/// be an unused `constexpr` (dead code, and an NVRTC warning) in the kernel.
fn used_constants(
    constants: Vec<(String, ConstValue)>,
    body: &[Line],
) -> Vec<(String, ConstValue)> {
    let mut used = BTreeSet::new();
    for l in body {
        l.op.names(&mut used);
    }
    let mut kept: Vec<(String, ConstValue)> = Vec::new();
    for (name, value) in constants.into_iter().rev() {
        if used.contains(&name) {
            value.names(&mut used);
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

/// The `setmaxnreg` split of a warp-specialized block with `consumers` consumer warpgroups:
/// `tsl_regs_entry`, the registers each thread starts with — what `__launch_bounds__` leaves it,
/// 65536 over the block's threads times its blocks per SM, in steps of 8, at most 248 — and
/// `tsl_regs_producer`, 40 (the entry count if that is lower: a block of 1024 threads at two
/// per SM starts with 32), and `tsl_regs_consumer`. `setmaxnreg.inc` waits until the registers
/// the producer hands back fund the consumers' increase, so the consumers share the producer's
/// `entry − producer`: 128 × C × (consumer − entry) ≤ 128 × (entry − producer). Sized from 65536
/// / blocks instead, an entry count rounded down to 8 (384 threads at 2 blocks: 80, not 85)
/// leaves the increase unfunded and the block hangs. (Unfolded, so the emitted formulas read as
/// this comment.)
fn register_split(consumers: Sym) -> [(&'static str, Sym); 3] {
    use crate::ir::BinaryOp::{Add, Div, Mul, Sub};
    let raw = |op, a, b| Sym::Bin(op, Box::new(a), Box::new(b));
    let round8 = |x| raw(Mul, raw(Div, x, Sym::Int(8)), Sym::Int(8));
    let entry = Sym::Min(
        Box::new(Sym::Int(248)),
        Box::new(round8(raw(
            Div,
            Sym::Int(65536),
            raw(
                Mul,
                Sym::name("tsl_blocks_per_sm"),
                Sym::name("tsl_threads"),
            ),
        ))),
    );
    let producer = Sym::Min(
        Box::new(Sym::Int(40)),
        Box::new(Sym::name("tsl_regs_entry")),
    );
    let share = raw(
        Div,
        raw(
            Sub,
            Sym::name("tsl_regs_entry"),
            Sym::name("tsl_regs_producer"),
        ),
        consumers,
    );
    let consumer = Sym::Min(
        Box::new(Sym::Int(240)),
        Box::new(round8(raw(Add, Sym::name("tsl_regs_entry"), share))),
    );
    [
        ("tsl_regs_entry", entry),
        ("tsl_regs_producer", producer),
        ("tsl_regs_consumer", consumer),
    ]
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

    /// Every warp-specialized block the lowering can make — 2 to 8 warpgroups, 1 or 2 blocks
    /// per SM — gets a consumer register count the producer's hand-back funds and no lower than
    /// the entry count (`setmaxnreg.inc` never shrinks), and a producer count `setmaxnreg.dec`
    /// can take (24 up to the entry count).
    #[test]
    fn setmaxnreg_increase_is_always_funded() {
        for wgs in 2..=8i64 {
            for blocks in 1..=2i64 {
                let threads = 128 * wgs;
                if threads * blocks > 2048 {
                    continue; // more threads than an SM holds
                }
                let consumers = wgs - 1;
                let mut env = crate::sym::SymEnv::new();
                env.insert("tsl_threads".into(), threads);
                env.insert("tsl_blocks_per_sm".into(), blocks);
                let [(_, entry), (_, producer), (_, consumer)] =
                    register_split(Sym::Int(consumers));
                let entry = entry.eval(&env).unwrap();
                env.insert("tsl_regs_entry".into(), entry);
                let producer = producer.eval(&env).unwrap();
                env.insert("tsl_regs_producer".into(), producer);
                let consumer = consumer.eval(&env).unwrap();
                let what = format!(
                    "{wgs} warpgroups, {blocks} blocks: entry {entry}, consumer {consumer}"
                );
                assert!(entry * threads * blocks <= 65536, "{what}");
                assert!(consumer >= entry.min(240), "{what}");
                assert!(
                    (24..=entry).contains(&producer),
                    "{what}: producer {producer}"
                );
                assert!(
                    consumers * (consumer - entry) <= entry - producer,
                    "{what}: the increase is not funded"
                );
                assert_eq!(consumer % 8, 0, "{what}");
            }
        }
    }

    /// `int name[len];`
    fn line(name: &str, len: CExpr) -> Line {
        let op = Op::Array {
            ty: "int".into(),
            name: name.into(),
            len,
        };
        Line::new(0, op)
    }

    #[test]
    fn constants_the_body_does_not_reach_are_dropped() {
        use crate::ir::BinaryOp::{Div, Mul};
        let c = |n: &str, v: Sym| (n.to_string(), ConstValue::Int(v));
        let name = Sym::name;
        let constants = vec![
            c("WMITER", Sym::bin(Div, name("WM"), name("TM"))),
            c("WSUBM", Sym::bin(Div, name("WM"), name("WMITER"))),
            c(
                "THREADS",
                Sym::mul(Sym::bin(Div, name("BM"), name("WM")), Sym::Int(32)),
            ),
            c("tsl_threads", Sym::bin(Mul, name("WSUBM"), Sym::Int(4))),
        ];
        let kept = used_constants(
            constants,
            &[line("acc", CExpr::var("tsl_threads").add(CExpr::int(1)))],
        );
        let names: Vec<&str> = kept.iter().map(|(n, _)| n.as_str()).collect();
        // THREADS only served a `require`; WMITER is reached through WSUBM and tsl_threads.
        assert_eq!(names, ["WMITER", "WSUBM", "tsl_threads"]);
        // A name that merely contains a constant's name does not keep it.
        assert!(
            used_constants(
                vec![c("PAD", Sym::Int(4))],
                &[line("PADDED", CExpr::int(1))]
            )
            .is_empty()
        );
        // A shared buffer's offset keeps the buffer before it and the names of its size.
        let offsets = vec![
            c("TK", Sym::Int(32)),
            c("tsl_smem_a", Sym::Int(0)),
            (
                "tsl_smem_b".to_string(),
                ConstValue::AlignUp {
                    after: "tsl_smem_a".into(),
                    bytes: Sym::mul(name("TK"), Sym::Int(2)),
                    align: 128,
                },
            ),
        ];
        let kept = used_constants(offsets, &[line("b", CExpr::var("tsl_smem_b"))]);
        let names: Vec<&str> = kept.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["TK", "tsl_smem_a", "tsl_smem_b"]);
        assert_eq!(
            kept[2].1.to_string(),
            "tsl_align_up(tsl_smem_a + (TK * 2), 128)"
        );
    }
}
