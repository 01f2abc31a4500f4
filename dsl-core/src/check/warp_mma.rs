//! Warp-level tensor cores: an `mma` under a `: group` level (one warp) lowers to
//! `mma.sync.aligned` (`lower/warp.rs`). A warp tile is a grid of instructions of one shape of
//! its operand type — f16: m8n8k4, m16n8k8, m16n8k16; bf16: m16n8k8, m16n8k16; f32/tf32:
//! m16n8k4, m16n8k8; s8/u8: m8n8k16, m16n8k16, m16n8k32 — so the language rules are: the A
//! tile's M a multiple of the type's smallest M (E1311), the B tile's N a multiple of 8 (E1400),
//! K a multiple of the type's smallest K (E1401) and the same in A and B (E1402), operands of
//! one type some `mma.sync` takes (E1403), an accumulator type it has (E1404: f32 for all
//! floats, also f16 for f16; s32 for 8-bit integers), shapes known at compile time (E1405),
//! one shape per accumulator (E1406), an `mma.store` destination of the accumulator's shape
//! (E1407), operands in shared or global memory (E1408), no `mma.commit` (E1409, WGMMA only),
//! one role per operand (E1410), no unread load (E1411). Also: `mma.fill acc, v`
//! re-initializes an accumulator, never a loaded operand.
//!
//! s8 and u8 operands may be mixed (`mma.sync` has .s8.u8 and .u8.s8). Every tile these rules
//! allow is lowered (`lower/warp_frags.rs` picks the instructions); the forms of [`warp_gate`]
//! are "not supported yet" (E1310, E1331). An accumulator may also be loaded from an f16,
//! bf16, f32 or s32 tile of its M × N shape (E1406): `mc = mma.load c; mma.row.row mc, a, b;`.

use super::frag_def;
use super::resolve::Role;
use super::view::{VState, Views};
use super::{Cx, Dim, all_stmts, at_expr, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{DType, ExtStmt, Level, Major, MemSpace, Stmt, StmtId};
use std::collections::HashMap;

/// The `mma.sync` shapes of one operand type: the smallest M and K of its shapes (every N is
/// 8) and their names.
struct Family {
    min_m: i64,
    min_k: i64,
    shapes: &'static str,
}

fn family(d: DType) -> Option<Family> {
    let f = |min_m, min_k, shapes| Family {
        min_m,
        min_k,
        shapes,
    };
    Some(match d {
        DType::F16 => f(8, 4, "m8n8k4, m16n8k8, m16n8k16"),
        DType::BF16 => f(16, 8, "m16n8k8, m16n8k16"),
        DType::F32 | DType::TF32 => f(16, 4, "m16n8k4, m16n8k8 (tf32)"),
        DType::S8 | DType::U8 => f(8, 16, "m8n8k16, m16n8k16, m16n8k32"),
        _ => return None,
    })
}

/// Whether A of type `a` and B of type `b` make one `mma.sync`: the same type, or s8 with u8.
fn same_family(a: DType, b: DType) -> bool {
    a == b || matches!((a, b), (DType::S8, DType::U8) | (DType::U8, DType::S8))
}

/// The accumulator types the instruction for `input` operands has.
fn acc_ok(input: DType, acc: DType) -> bool {
    match input {
        DType::F16 => matches!(acc, DType::F32 | DType::F16),
        DType::BF16 | DType::F32 | DType::TF32 => acc == DType::F32,
        DType::S8 | DType::U8 => acc == DType::I32,
        _ => false,
    }
}

fn acc_help(input: DType) -> &'static str {
    match input {
        DType::F16 => "f16 operands accumulate in f32 or f16: `mc = mma.fill.f32 0.0f;`",
        DType::S8 | DType::U8 => "8-bit integer operands accumulate in s32: `mc = mma.fill.s32 0;`",
        _ => "accumulate in f32: `mc = mma.fill.f32 0.0f;`",
    }
}

/// Whether the kernel's `mma`s are warp-level ones the SIMT path lowers: no `: group-4`
/// level, TMA copy or event anywhere (those make it a Hopper kernel).
pub(crate) fn hopper_constructs(cx: &Cx) -> Option<crate::span::Span> {
    tma_or_event(cx).or_else(|| group4_level(cx))
}

/// A "not supported yet" finding of the gate.
fn not_lowered(code: &'static str, span: crate::span::Span, what: &str) -> Diagnostic {
    Diagnostic::new(code, span, format!("not supported yet: {what}")).with_help(
        "`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet",
    )
}

/// Whether `def` (an `mma.load`) loads an accumulator some warp `mma` updates.
fn loaded_acc_def(cx: &Cx, def: StmtId) -> bool {
    let m = cx.m;
    let Stmt::MmaLoad { name, .. } = &m.stmts[def] else {
        return false;
    };
    all_stmts(m).into_iter().any(|s| {
        matches!(&m.stmts[s], Stmt::Mma { acc, .. } if acc.name == name.name)
            && cx.in_warp_mma(s)
            && frag_def(cx, s, Role::Acc) == Some(def)
    })
}

/// Whether the kernel has a warp-level `mma`.
pub(crate) fn has_warp_mma(cx: &Cx) -> bool {
    all_stmts(cx.m)
        .into_iter()
        .any(|s| matches!(cx.m.stmts[s], Stmt::Mma { .. }) && cx.in_warp_mma(s))
}

/// The (M or N, K) of an operand tile of `major` order.
fn mk(v: &VState, major: Major) -> (Dim, Dim) {
    if major == Major::Row {
        (v.shape[0], v.shape[1])
    } else {
        (v.shape[1], v.shape[0])
    }
}

/// The language rules.
/// Returns the M × N of each warp accumulator (by its definition) that an `mma` sized.
pub(crate) fn check_warp_mma(
    cx: &Cx,
    views: &Views,
    diags: &mut Diagnostics,
) -> HashMap<StmtId, (i64, i64)> {
    let m = cx.m;
    // Accumulator → (M, N) of its first `mma`, and that statement.
    let mut acc_shape: HashMap<StmtId, ((i64, i64), StmtId)> = HashMap::new();
    let warp = has_warp_mma(cx);
    for s in all_stmts(m) {
        match &m.stmts[s] {
            Stmt::Mma {
                a_major,
                b_major,
                acc,
                a,
                b,
            } if cx.in_warp_mma(s) => {
                let sspan = m.stmt_span(s);
                let (Some(acc_def), Some(a_def), Some(b_def)) = (
                    frag_def(cx, s, Role::Acc),
                    frag_def(cx, s, Role::A),
                    frag_def(cx, s, Role::B),
                ) else {
                    continue;
                };
                let src = |def: Option<StmtId>| match def.map(|d| &m.stmts[d]) {
                    Some(Stmt::MmaLoad { src, .. }) => Some(*src),
                    _ => None,
                };
                let a_src = src(super::loaded_operand(m, a, a_def, "A", diags));
                let b_src = src(super::loaded_operand(m, b, b_def, "B", diags));
                let (Some(a_src), Some(b_src)) = (a_src, b_src) else {
                    continue;
                };
                let (Some(av), Some(bv)) = (views.get(a_src), views.get(b_src)) else {
                    continue;
                };
                let mut bad = false;
                for (v, x) in [(av, a_src), (bv, b_src)] {
                    if v.space == MemSpace::Local {
                        diags.push(
                            at_expr(m, codes::WARP_MMA_SPACE, x, format!("a warp-level `mma` reads its operands from shared or global memory; `{}` is local", m.expr_to_string(x)))
                                .with_help("`mma.load` from the shared tile or the global tensor"),
                        );
                        bad = true;
                    } else if v.shape.len() != 2 || v.element {
                        diags.push(
                            at_expr(m, codes::WARP_MMA_SHAPE, x, format!("a warp-level `mma` operand is a 2-D tile; `{}` is not", m.expr_to_string(x)))
                                .with_help("load an [M, K] (A) or [N, K] (B) tile, e.g. `lhs_s.subspan(WM, 16).at(w, k)`"),
                        );
                        bad = true;
                    }
                }
                if bad {
                    continue;
                }
                // Operand types.
                if !same_family(av.dtype, bv.dtype) {
                    diags.push(
                        Diagnostic::new(
                            codes::WARP_MMA_DTYPE,
                            b.span,
                            format!(
                                "mma operands differ in type: `{}` is {} but `{}` is {}",
                                a.name, av.dtype, b.name, bv.dtype
                            ),
                        )
                        .with_note(
                            m.expr_span(a_src),
                            format!("A is loaded from {} here", av.dtype),
                        )
                        .with_help(
                            "load both operands from tensors of one element type (or s8 with u8)",
                        ),
                    );
                    continue;
                }
                let Some(fam) = family(av.dtype) else {
                    diags.push(
                        Diagnostic::new(
                            codes::WARP_MMA_DTYPE,
                            a.span,
                            format!("no warp-level `mma.sync` takes {} operands", av.dtype),
                        )
                        .with_note(sspan, "in this mma")
                        .with_help("use f16, bf16, f32 (tf32), s8 or u8 operands"),
                    );
                    continue;
                };
                // Accumulator type.
                let acc_dtype = match &m.stmts[acc_def] {
                    Stmt::MmaFill { dtype, .. } => Some(*dtype),
                    _ => super::loaded_acc_dtype(cx, views, acc_def),
                };
                if let Some(ad) = acc_dtype
                    && !acc_ok(av.dtype, ad)
                {
                    diags.push(
                        Diagnostic::new(
                            codes::WARP_MMA_ACC,
                            m.stmt_span(acc_def),
                            format!(
                                "the accumulator `{}` is {ad}, but `mma.sync` with {} operands accumulates in {}",
                                acc.name,
                                av.dtype,
                                match av.dtype {
                                    DType::F16 => "f32 or f16",
                                    DType::S8 | DType::U8 => "s32",
                                    _ => "f32",
                                }
                            ),
                        )
                        .with_note(sspan, format!("{} mma here", av.dtype))
                        .with_help(acc_help(av.dtype)),
                    );
                }
                // Shapes.
                let (am, ak) = mk(av, *a_major);
                let (bn, bk) = mk(bv, *b_major);
                let mut shape = [0i64; 4];
                let mut static_ok = true;
                for (i, (d, x)) in [(am, a_src), (ak, a_src), (bn, b_src), (bk, b_src)]
                    .into_iter()
                    .enumerate()
                {
                    match d.value {
                        Some(v) => shape[i] = v,
                        None => {
                            if static_ok {
                                diags.push(
                                    at_expr(m, codes::WARP_MMA_STATIC, x, format!("a warp-level `mma` fragment has a compile-time shape; `{}` has a dimension `{}` known only at launch", m.expr_to_string(x), cx.describe_dim(&d)))
                                        .with_help("size the tile with tunables and constants, e.g. `.subspan(WM, 16).at(w, k)`"),
                                );
                            }
                            static_ok = false;
                        }
                    }
                }
                if !static_ok {
                    continue;
                }
                let [mv, akv, nv, bkv] = shape;
                let Family {
                    min_m,
                    min_k,
                    shapes,
                } = fam;
                let dt = av.dtype;
                if mv <= 0 || mv % min_m != 0 {
                    diags.push(
                        at_expr(m, codes::WARP_MMA_SHAPE, a_src, format!("no `mma.sync` shape of {dt} ({shapes}) tiles an A tile of M = {mv}: M must be a multiple of {min_m}"))
                            .with_note(sspan, "in this mma")
                            .with_help(format!("give each warp a multiple of {min_m} rows of A")),
                    );
                }
                if nv <= 0 || nv % 8 != 0 {
                    diags.push(
                        at_expr(m, codes::WARP_MMA_N, b_src, format!("a warp-level `mma` takes B tiles of a multiple of 8 columns (every `mma.sync` has N = 8); `{}` has N = {nv}", b.name))
                            .with_note(sspan, "in this mma")
                            .with_help("give each warp 8, 16, 24, … columns of B"),
                    );
                }
                // One finding for K: A's, else B's (a mismatch is reported below).
                if let Some((kv, x, who)) = [(akv, a_src, &a.name), (bkv, b_src, &b.name)]
                    .into_iter()
                    .find(|(kv, ..)| *kv <= 0 || kv % min_k != 0)
                {
                    diags.push(
                        at_expr(m, codes::WARP_MMA_K, x, format!("no `mma.sync` shape of {dt} ({shapes}) tiles K = {kv} of `{who}`: K must be a multiple of {min_k}"))
                            .with_note(sspan, "in this mma")
                            .with_help(format!("load K slices of a multiple of {min_k}")),
                    );
                } else if akv != bkv {
                    diags.push(
                        Diagnostic::new(
                            codes::WARP_MMA_K_MISMATCH,
                            sspan,
                            format!(
                                "the A tile `{}` has K = {akv} but the B tile `{}` has K = {bkv}",
                                a.name, b.name
                            ),
                        )
                        .with_help("load both operands over the same K slice"),
                    );
                }
                // An accumulator loaded from a tensor: its tile is the mma's M × N.
                if let Stmt::MmaLoad { src: c_src, .. } = &m.stmts[acc_def]
                    && let Some(cv) = views.get(*c_src)
                    && !acc_shape.contains_key(&acc_def)
                {
                    let vals: Vec<Option<i64>> = cv.shape.iter().map(|d| d.value).collect();
                    if cv.element || vals[..] != [Some(mv), Some(nv)] {
                        let shown: Vec<String> =
                            cv.shape.iter().map(|d| cx.describe_dim(d)).collect();
                        diags.push(
                            at_expr(
                                m,
                                codes::WARP_MMA_ACC_SHAPE,
                                *c_src,
                                format!(
                                    "the accumulator `{}` is loaded as a [{}] tile, but this mma updates it as {mv} × {nv}",
                                    acc.name,
                                    shown.join(", ")
                                ),
                            )
                            .with_note(sspan, "in this mma")
                            .with_help(format!("load an [{mv}, {nv}] tile into the accumulator")),
                        );
                    }
                }
                match acc_shape.get(&acc_def) {
                    Some(((m0, n0), first)) if (*m0, *n0) != (mv, nv) => diags.push(
                        Diagnostic::new(
                            codes::WARP_MMA_ACC_SHAPE,
                            sspan,
                            format!("this mma updates `{}` as a {mv} × {nv} tile, but it is {m0} × {n0}", acc.name),
                        )
                        .with_note(m.stmt_span(*first), "shaped by this mma")
                        .with_help("accumulate tiles of one shape into one accumulator"),
                    ),
                    Some(_) => {}
                    None => {
                        acc_shape.insert(acc_def, ((mv, nv), s));
                    }
                }
            }
            Stmt::MmaCommit if warp => diags.push(
                Diagnostic::new(
                    codes::WARP_MMA_COMMIT,
                    m.stmt_span(s),
                    "`mma.commit` waits for WGMMAs; a warp-level `mma` completes in order",
                )
                .with_help("remove it"),
            ),
            Stmt::Ext(ExtStmt::MmaRefill { acc, .. }) => {
                if let Some(def) = frag_def(cx, s, Role::Acc)
                    && matches!(m.stmts[def], Stmt::MmaLoad { .. })
                {
                    diags.push(
                        Diagnostic::new(
                            codes::MMA_OPERAND,
                            acc.span,
                            format!("`{}` is a loaded operand; `mma.fill` re-initializes an accumulator", acc.name),
                        )
                        .with_note(m.stmt_span(def), "loaded here")
                        .with_help("fill the accumulator made by `mc = mma.fill 0.0f;`"),
                    );
                }
            }
            _ => {}
        }
    }
    if warp {
        operand_roles(cx, diags);
    }
    // Stores of warp accumulators: the destination tile has the accumulator's shape.
    for s in all_stmts(m) {
        let Stmt::MmaStore {
            acc,
            view: None,
            dst,
            mods,
        } = &m.stmts[s]
        else {
            continue;
        };
        let Some(def) = frag_def(cx, s, Role::Acc) else {
            continue;
        };
        let (Some(((mv, nv), _)), Some(dv)) = (acc_shape.get(&def), views.get(*dst)) else {
            continue;
        };
        if dv.space == MemSpace::Local {
            diags.push(
                at_expr(
                    m,
                    codes::WARP_MMA_SPACE,
                    *dst,
                    "a warp accumulator is stored to shared or global memory",
                )
                .with_help("store into a shared tile or a global tensor"),
            );
            continue;
        }
        let mut vals: Vec<Option<i64>> = dv.shape.iter().map(|d| d.value).collect();
        // `mma.store.transp` writes the transpose: an N × M tile (`mma_store` says so when it
        // does not fit).
        if mods.transpose {
            vals.reverse();
            if vals[..] != [Some(*mv), Some(*nv)] {
                continue;
            }
        }
        if vals[..] != [Some(*mv), Some(*nv)] {
            let shown: Vec<String> = dv.shape.iter().map(|d| cx.describe_dim(d)).collect();
            diags.push(
                at_expr(
                    m,
                    codes::WARP_MMA_STORE_SHAPE,
                    *dst,
                    format!(
                        "`mma.store` of the {mv} × {nv} accumulator `{}` into a [{}] tile",
                        acc.name,
                        shown.join(", ")
                    ),
                )
                .with_help(format!(
                    "store into a [{mv}, {nv}] tile, e.g. `.subspan({mv}, {nv}).at(i, j)`"
                )),
            );
        }
    }
    acc_shape.into_iter().map(|(d, (mn, _))| (d, mn)).collect()
}

/// Each operand of a warp kernel (each `mma.load`, by the checker's resolution of the names
/// that use it, so one name declared in two scopes is two operands) plays one role: the A or the
/// B operand, in one major order, of every `mma` that reads it (E1410); and each `mma.load`
/// feeds some `mma` (E1411).
fn operand_roles(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut roles: HashMap<StmtId, (bool, Major, StmtId)> = HashMap::new();
    let mut accs: Vec<StmtId> = Vec::new();
    for s in all_stmts(m) {
        match &m.stmts[s] {
            Stmt::Mma {
                a_major,
                b_major,
                a,
                b,
                ..
            } => {
                accs.extend(frag_def(cx, s, Role::Acc));
                for (id, role, is_a, major) in
                    [(a, Role::A, true, *a_major), (b, Role::B, false, *b_major)]
                {
                    let Some(def) = frag_def(cx, s, role) else {
                        continue;
                    };
                    match roles.get(&def) {
                        Some(&(was_a, was_major, first)) if (was_a, was_major) != (is_a, major) => {
                            let role = |a: bool, mj: Major| {
                                format!("the {} operand ({mj:?}-major)", if a { "A" } else { "B" })
                            };
                            diags.push(
                                Diagnostic::new(
                                    codes::WARP_MMA_ROLE,
                                    id.span,
                                    format!(
                                        "`{}` is {} here but {} in an earlier mma; its fragment layout differs",
                                        id.name,
                                        role(is_a, major),
                                        role(was_a, was_major)
                                    ),
                                )
                                .with_note(m.stmt_span(first), "first used here")
                                .with_help("load a fragment of its own for each role"),
                            );
                        }
                        Some(_) => {}
                        None => {
                            roles.insert(def, (is_a, major, s));
                        }
                    }
                }
            }
            Stmt::MmaStore { .. } => accs.extend(frag_def(cx, s, Role::Acc)),
            _ => {}
        }
    }
    for s in all_stmts(m) {
        if let Stmt::MmaLoad { name, .. } = &m.stmts[s]
            && !roles.contains_key(&s)
            && !accs.contains(&s)
        {
            diags.push(
                Diagnostic::new(
                    codes::WARP_MMA_UNUSED,
                    name.span,
                    format!("`{}` is loaded but no `mma` reads it", name.name),
                )
                .with_help(format!(
                    "use it in `mma.row.row acc, {}, b;` or remove the load",
                    name.name
                )),
            );
        }
    }
}

/// The `: group-4` level of the kernel, if any.
fn group4_level(cx: &Cx) -> Option<crate::span::Span> {
    let m = cx.m;
    all_stmts(m).into_iter().find_map(|s| match &m.stmts[s] {
        Stmt::Parallel { levels, .. } => levels
            .iter()
            .find(|l| l.level == Level::Group4)
            .map(|_| m.stmt_span(s)),
        _ => None,
    })
}

/// The kernel's first WGMMA: an `mma` whose innermost collective level is `: group-4`.
pub(crate) fn first_wgmma(cx: &Cx) -> Option<StmtId> {
    all_stmts(cx.m)
        .into_iter()
        .find(|&s| matches!(cx.m.stmts[s], Stmt::Mma { .. }) && cx.in_group4(s))
}

/// A TMA copy or event of the kernel: what feeds warp-level `mma`s on the Hopper path.
pub(crate) fn tma_or_event(cx: &Cx) -> Option<crate::span::Span> {
    let m = cx.m;
    all_stmts(m).into_iter().find_map(|s| match &m.stmts[s] {
        Stmt::TmaCopy { .. } | Stmt::EventDecl { .. } => Some(m.stmt_span(s)),
        _ => None,
    })
}

/// The K of the full `mma.sync` shape of operand type `d` (f16/bf16 m16n8k16, tf32 m16n8k8,
/// 8-bit m16n8k32).
fn full_k(d: DType) -> i64 {
    match d {
        DType::F32 | DType::TF32 => 8,
        DType::S8 | DType::U8 => 32,
        _ => 16,
    }
}

/// The warp-level forms no lowering handles yet, each "not supported yet" with its own code:
/// warp `mma` in a kernel with WGMMAs, or with a `: group-4` level but no TMA copy or event
/// (E1310), an `mma.store` of a view of the
/// accumulator (E1331); on the TMA path (warp `mma` in a kernel with TMA copies or events): a
/// swizzled operand tile that is not whole full-shape instructions (E1670), an accumulator
/// loaded from or stored to a swizzled tile (E1672), element-wise work on accumulators, `frag`
/// tiles and re-fills (E1673), `persistent`, clusters, `pingpong`, `.multicast`, `promote` and
/// scaled `mma`s (E1674); on the cp.async path a swizzled operand tile (E1671: only a TMA
/// load writes one).
pub(crate) fn warp_gate(
    cx: &Cx,
    views: &Views,
    swizzle: &HashMap<StmtId, u32>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    if !has_warp_mma(cx) {
        return;
    }
    // Warp-level `mma`s share a kernel with a `: group-4` level only on the TMA path, where
    // the level splits the block into warpgroups (a producer and consumers); never with WGMMAs.
    let blocked = match (first_wgmma(cx), group4_level(cx)) {
        (Some(w), _) => Some((
            "a warp-level `mma` (under `: group`) in a kernel with WGMMAs",
            m.stmt_span(w),
            "this `mma` runs under `: group-4`: a WGMMA",
        )),
        (None, Some(at)) if tma_or_event(cx).is_none() => Some((
            "a warp-level `mma` in a kernel with a `: group-4` level and no TMA copy or event",
            at,
            "this level takes the kernel to the Hopper path, whose warp-level `mma`s are fed by TMA",
        )),
        _ => None,
    };
    if let Some((what, at, note)) = blocked {
        for s in all_stmts(m) {
            if matches!(m.stmts[s], Stmt::Mma { .. }) && cx.in_warp_mma(s) {
                diags.push(
                    not_lowered(codes::NOT_LOWERED_WARP_MMA, m.stmt_span(s), what)
                        .with_note(at, note),
                );
            }
        }
        return;
    }
    let tma_path = hopper_constructs(cx).is_some();
    let swizzled = |s: StmtId| swizzle.get(&s).copied().unwrap_or(0) != 0;
    for s in all_stmts(m) {
        let Stmt::Mma {
            a_major, b_major, ..
        } = &m.stmts[s]
        else {
            continue;
        };
        if !cx.in_warp_mma(s) {
            continue;
        }
        for (role, major) in [(Role::A, *a_major), (Role::B, *b_major)] {
            let Some(def) = frag_def(cx, s, role) else {
                continue;
            };
            let Stmt::MmaLoad { src, .. } = &m.stmts[def] else {
                continue;
            };
            if !swizzled(def) {
                continue;
            }
            let span = m.expr_span(*src);
            if !tma_path {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_WARP_SWIZZLE_CP_ASYNC,
                    span,
                    "a swizzled warp `mma` operand tile in a kernel without TMA loads (its `dma.copy`s write plain rows)",
                ));
                continue;
            }
            let Some(v) = views.get(*src) else {
                continue;
            };
            let (mn, k) = mk(v, major);
            let kf = full_k(v.dtype);
            let whole = |d: &Dim, q: i64| cx.dim_value(d).is_some_and(|x| x % q == 0);
            let trans_ok = major == Major::Row || v.dtype.size_bytes() == 2;
            if !whole(&k, kf) || (role == Role::A && !whole(&mn, 16)) || !trans_ok {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_WARP_SWIZZLE_SHAPE,
                    span,
                    &format!(
                        "a swizzled warp `mma` operand tile that is not whole m16n8k{kf} instructions (A's M a multiple of 16, K of {kf}; the other major order for 16-bit types only)"
                    ),
                ));
            }
        }
    }
    if tma_path {
        // The Hopper path's block-level schedules assume warp-specialized WGMMA kernels.
        let schedules = [
            m.persistent.map(|e| (m.expr_span(e), "`persistent`")),
            m.cluster.map(|e| (m.expr_span(e), "`cluster`")),
            m.cluster_level
                .as_ref()
                .map(|c| (c.span, "a `: cluster` level")),
            m.pingpong.map(|sp| (sp, "`pingpong`")),
            m.multicast.first().map(|(_, sp)| (*sp, "`.multicast`")),
            m.promote.map(|e| (m.expr_span(e), "`promote`")),
            m.mma_scales
                .first()
                .map(|x| (m.stmt_span(x.stmt), "`mma….scale`")),
        ];
        for (span, what) in schedules.into_iter().flatten() {
            diags.push(not_lowered(
                codes::NOT_LOWERED_WARP_TMA_SCHEDULE,
                span,
                &format!("{what} in a warp-level `mma` kernel with TMA copies or events"),
            ));
        }
        // Element-wise work on accumulators, `frag` tiles and re-fills are lowered in the
        // layout of the kernel's path: the Hopper path's is WGMMA's, not `mma.sync`'s.
        let mut elementwise: Vec<StmtId> = super::frag_elem::sites(cx)
            .iter()
            .map(|x| x.stmt())
            .collect();
        elementwise.extend(super::frag_elem::tiles(cx).iter().map(|t| t.decl));
        elementwise.extend(all_stmts(m).into_iter().filter(|&s| {
            matches!(
                m.stmts[s],
                Stmt::Ext(ExtStmt::MmaRefill { .. } | ExtStmt::FragOp { .. })
            )
        }));
        elementwise.sort();
        elementwise.dedup();
        for s in elementwise {
            diags.push(not_lowered(
                codes::NOT_LOWERED_WARP_TMA_ELEMENTWISE,
                m.stmt_span(s),
                "element-wise work on a warp accumulator, a `frag` tile or a re-fill in a kernel with TMA copies or events (their layout there is WGMMA's)",
            ));
        }
        // The shared tensors a swizzled TMA copy reads or writes.
        let mut swizzled_roots = Vec::new();
        for s in all_stmts(m) {
            if let Stmt::TmaCopy { src, dst, .. } = &m.stmts[s]
                && swizzled(s)
            {
                let dst = match dst {
                    crate::ir::CopyDst::Expr(d) => Some(*d),
                    crate::ir::CopyDst::Fresh(_) => None,
                };
                for e in [Some(*src), dst].into_iter().flatten() {
                    if let Some(v) = views.get(e).filter(|v| v.space == MemSpace::Shared) {
                        swizzled_roots.push(v.root);
                    }
                }
            }
        }
        for s in all_stmts(m) {
            let (span, root) = match &m.stmts[s] {
                Stmt::MmaLoad { src, .. } if loaded_acc_def(cx, s) => {
                    (m.expr_span(*src), views.get(*src).map(|v| v.root))
                }
                Stmt::MmaStore { dst, .. } if cx.in_warp_mma(s) => {
                    (m.expr_span(*dst), views.get(*dst).map(|v| v.root))
                }
                _ => continue,
            };
            if swizzled(s) || root.is_some_and(|r| swizzled_roots.contains(&r)) {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_WARP_SWIZZLE_ACC,
                    span,
                    "a warp accumulator loaded from or stored to a swizzled shared tile",
                ));
            }
        }
    }
    for s in all_stmts(m) {
        if let Stmt::MmaStore { view: Some(x), .. } = &m.stmts[s] {
            diags.push(not_lowered(
                codes::NOT_LOWERED_WARP_STORE_VIEW,
                m.expr_span(*x),
                "`mma.store` of a view of a warp accumulator",
            ));
        }
    }
}
