//! Warp-level tensor cores: `mma` statements under a `: group` level (one warp) → `mma.sync`.
//!
//! A kernel whose `mma`s all run under `: group` (no `: group-4`, TMA or events) takes the SIMT
//! path — cp.async tile copies, any sm_80+ GPU — and its `mma.*` statements lower here to the
//! helpers of `lowering/warp_mma.cuh`. With TMA copies or events (and no `: group-4`) the
//! kernel takes the Hopper path for those — TMA loads, mbarrier events — and its `mma`s still
//! lower here ([`hopper_warp`]): no WGMMA fence or commit, one block per SM unless `occupancy`
//! says otherwise, and a fragment of a swizzled tile (a TMA load's `.swiz<N>`) loads with the
//! helpers of `lowering/warp_swz.cuh` (ldmatrix at swizzled addresses).
//!
//! - `mc = mma.fill v;` → a register array in the accumulator layout of `mma.sync` (f32 and s32:
//!   4 values per m16n8 tile per thread, f16: 2 f16x2 registers). Its size is known at the first
//!   `mma` that accumulates into it, which completes the declaration.
//! - `ma = mma.load t;` → the A (`[M, K]`, or `[K, M]` for `mma.col.*`) or B (`[N, K]`, or
//!   `[K, N]` for `mma.*.col`) fragment: from shared memory with `ldmatrix` (`.trans` for the
//!   M/N-contiguous orders of 16-bit types) when every row the warp reads is 16-byte aligned,
//!   else gathered element by element; from global memory gathered, with zeros past the edges.
//! - `mma.row.row mc, ma, mb;` → `(M/16) × (N/8) × (K/KI)` `mma.sync.aligned.m16n8kKI`.
//! - `mma.store mc, t;` → per-thread stores in the accumulator layout, bounds-checked against
//!   the tensor.
//!
//! The checker (`check/warp_mma.rs`) guarantees the shapes (M a multiple of 16, N of 8, K of
//! the instruction's K), the operand and accumulator types, and that every shape is a
//! compile-time constant.

use super::cxx::{CExpr, COp};
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, Op};
use super::warp_frags::{Frag, Kind, Pick, Shape, pick};
use crate::check::{Binding, IdentRole};
use crate::ir::{BinaryOp, DType, ExprId, ExtStmt, Major, MemSpace, Module, Stmt, StmtId};
use crate::sym::Sym;
use crate::sym::SymEnv;

/// The helpers of `lowering/warp_swz.cuh` (ldmatrix from swizzled tiles; they build on
/// `lowering/warp_mma.cuh`): the writer includes both sections when the body calls one.
pub const SWZ_HELPERS: [&str; 2] = ["tsl_mma_load_a_swz", "tsl_mma_load_b_swz"];

/// The helpers of `lowering/warp_mma.cuh` a body may call (the writer includes the section
/// when it calls one).
pub const HELPERS: [&str; 8] = [
    "tsl_mma_fill",
    "tsl_mma_load_a",
    "tsl_mma_load_b",
    "tsl_mma_gather_a",
    "tsl_mma_gather_b",
    "tsl_warp_mma",
    "tsl_mma_store",
    "tsl_mma_load_c",
];

fn div(a: Sym, b: i64) -> Sym {
    Sym::bin(BinaryOp::Div, a, Sym::Int(b))
}

fn paren(s: &Sym) -> CExpr {
    CExpr::sym_operand(s)
}

fn sym(s: &Sym) -> CExpr {
    CExpr::sym(s)
}

fn flag(b: bool) -> CExpr {
    CExpr::Lit(if b { "true" } else { "false" })
}

/// The C++ name of an accumulator: an element `mc[0][1]` of an accumulator array is `mc_0_1`.
fn cpp_ident(name: &str) -> String {
    if name.ends_with(']') {
        name.replace("][", "_").replace('[', "_").replace(']', "")
    } else {
        name.to_string()
    }
}

fn cpp_name(name: &str) -> CExpr {
    CExpr::var(cpp_ident(name))
}

/// The fragment the identifier `role` of statement `s` names (the checker's resolution).
fn ident(e: &Emitter, s: StmtId, role: IdentRole) -> Option<Binding> {
    e.info.idents.get(&(s, role)).copied()
}

/// Whether some statement updates, re-fills or stores the accumulator `def` declares.
fn acc_used(e: &Emitter, def: StmtId) -> bool {
    let m = e.m;
    crate::check::all_stmts(m).into_iter().any(|s| {
        matches!(
            &m.stmts[s],
            Stmt::Mma { .. } | Stmt::MmaStore { .. } | Stmt::Ext(ExtStmt::MmaRefill { .. })
        ) && ident(e, s, IdentRole::Acc) == Some(Binding::Frag(def))
    })
}

/// The accumulator's declaration (an [`Op::Array`]) and register count for `fm × fn` tiles.
fn acc_decl(name: &str, dtype: DType, tiles: Option<&(Sym, Sym)>) -> (Op, CExpr) {
    let name = cpp_ident(name);
    let per_tile = if dtype == DType::F16 { 2 } else { 4 };
    let ty = match dtype {
        DType::F16 => "tsl_u32",
        DType::I32 => "int",
        _ => "float",
    };
    let regs = match tiles {
        Some((fm, fnn)) => sym(&Sym::mul(
            Sym::mul(fm.clone(), fnn.clone()),
            Sym::Int(per_tile),
        )),
        None => CExpr::int(0),
    };
    let decl = Op::Array {
        ty: ty.into(),
        name,
        len: regs.clone(),
    };
    (decl, regs)
}

/// Completes the declaration and fills of the accumulator `b` for `tiles` (M/rows, N/8).
fn size_acc(e: &mut Emitter, b: Binding, tiles: (Sym, Sym), rows: i64) {
    let Some(Frag::Acc {
        dtype,
        tiles: slot,
        rows: slot_rows,
        decl,
        fills,
    }) = e.warp.get_mut(&b)
    else {
        return;
    };
    let (_, regs) = acc_decl("", *dtype, Some(&tiles));
    *slot = Some(tiles);
    *slot_rows = rows;
    let (decl, fills) = (*decl, fills.clone());
    if let Op::Array { len, .. } = &mut e.lines[decl].op {
        *len = regs.clone();
    }
    for fill in fills {
        if let Op::Call(c) = &mut e.lines[fill].op {
            c.targs = vec![regs.clone()];
        }
    }
}

/// The value of a fragment extent where it does not depend on tunables: literals and the
/// module's constants.
fn constant(m: &Module, s: &Sym) -> Option<i64> {
    let mut env = SymEnv::new();
    for c in &m.constants {
        if let Some(v) = Sym::from_expr(m, c.value).and_then(|v| v.eval(&env).ok()) {
            env.insert(c.name.name.clone(), v);
        }
    }
    s.eval(&env).ok()
}

pub fn mma_stmt(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    match &m.stmts[s] {
        // An element of an accumulator array that no statement uses is not declared.
        Stmt::MmaFill { name, .. } if name.name.ends_with(']') && !acc_used(e, s) => {}
        Stmt::MmaFill { name, dtype, value } => {
            let (v, t) = e.cx().value(*value)?;
            let v = super::cexpr::convert(v.clone(), t, DType::F32);
            let (decl, _) = acc_decl(&name.name, *dtype, None);
            let decl_at = e.lines.len();
            let note = format!("warp accumulator, {dtype}, in the mma.sync fragment layout");
            e.emit(decl, Some(&note), line);
            let fill_at = e.lines.len();
            e.call(
                Call::new("tsl_mma_fill")
                    .targs([CExpr::int(0)])
                    .args([cpp_name(&name.name), v]),
                None,
                line,
            );
            e.warp.declare(
                Binding::Frag(s),
                Frag::Acc {
                    dtype: *dtype,
                    tiles: None,
                    rows: 16,
                    decl: decl_at,
                    fills: vec![fill_at],
                },
            );
        }
        Stmt::Ext(ExtStmt::MmaRefill { acc, value }) => {
            let (v, t) = e.cx().value(*value)?;
            let v = super::cexpr::convert(v.clone(), t, DType::F32);
            let b = ident(e, s, IdentRole::Acc);
            let Some(Frag::Acc {
                dtype,
                tiles,
                fills,
                ..
            }) = b.and_then(|b| e.warp.get(&b)).cloned()
            else {
                return Err(LowerError::new(
                    acc.span,
                    format!("`{}` is not a warp accumulator (`mma.fill`)", acc.name),
                ));
            };
            // Sized now, or by the first `mma` (which completes this fill as it does the
            // declaration's).
            let regs = tiles
                .as_ref()
                .map_or(CExpr::int(0), |t| acc_decl(&acc.name, dtype, Some(t)).1);
            let at = e.lines.len();
            e.call(
                Call::new("tsl_mma_fill")
                    .targs([regs])
                    .args([cpp_name(&acc.name), v]),
                Some("re-initialized"),
                line,
            );
            if tiles.is_none()
                && let Some(Frag::Acc { fills: f, .. }) = b.and_then(|b| e.warp.get_mut(&b))
            {
                *f = fills.into_iter().chain([at]).collect();
            }
        }
        Stmt::MmaLoad { name, src, .. } => load(e, s, &name.name, *src, line)?,
        Stmt::Mma { acc, a, b, .. } => {
            let frag = |role| ident(e, s, role).and_then(|b| e.warp.get(&b));
            let operand = |n: &crate::ir::Ident, role| match frag(role) {
                Some(Frag::Operand {
                    dtype,
                    tiles,
                    shape,
                    cpp,
                }) => Ok((*dtype, tiles.clone(), *shape, cpp.clone())),
                _ => Err(LowerError::new(
                    n.span,
                    format!("`{}` is not a loaded warp `mma` operand", n.name),
                )),
            };
            let (a_type, (fm, fk), shape, a_cpp) = operand(a, IdentRole::A)?;
            let (b_type, (fnn, _), _, b_cpp) = operand(b, IdentRole::B)?;
            let kind = Kind::of_pair(a_type, b_type).ok_or_else(|| {
                LowerError::new(
                    a.span,
                    format!("no `mma.sync` takes {a_type} × {b_type} operands"),
                )
            })?;
            let acc_b = ident(e, s, IdentRole::Acc);
            let Some((acc_b, Frag::Acc { tiles, .. })) =
                acc_b.and_then(|b| Some((b, e.warp.get(&b)?)))
            else {
                return Err(LowerError::new(
                    acc.span,
                    format!("`{}` is not a warp accumulator (`mma.fill`)", acc.name),
                ));
            };
            if tiles.is_none() {
                // The first `mma` into the accumulator sizes it.
                size_acc(e, acc_b, (fm.clone(), fnn.clone()), shape.rows());
            }
            let mut targs = vec![CExpr::Lit(kind.cpp()), sym(&fm), sym(&fnn), sym(&fk)];
            if shape != Shape::Full {
                targs.push(CExpr::Lit(shape.cpp()));
            }
            let call =
                Call::new("tsl_warp_mma")
                    .targs(targs)
                    .args([cpp_name(&acc.name), a_cpp, b_cpp]);
            let padded = if kind == Kind::F16 && shape == Shape::M8 {
                " (rows 8-15 zero)"
            } else {
                ""
            };
            let note = format!(
                "{} += {}·{}ᵀ: {} × {} × {} mma.sync.{}{padded}",
                acc.name,
                a.name,
                b.name,
                fm.to_cpp(),
                fnn.to_cpp(),
                fk.to_cpp(),
                kind.inst(shape)
            );
            e.call(call, Some(&note), line);
        }
        Stmt::MmaStore { acc, dst, mods, .. } => {
            let mut v = operand_view(e, *dst)?;
            // `mma.store.transp`: element (i, j) of the accumulator to (j, i) of the tile.
            v.transposed |= mods.transpose;
            let acc_b = ident(e, s, IdentRole::Acc);
            let (fm, fnn, rows) = match acc_b.and_then(|b| e.warp.get(&b)).cloned() {
                Some(Frag::Acc {
                    tiles: Some((fm, fnn)),
                    rows,
                    ..
                }) => (fm, fnn, rows),
                // Stored before an `mma` updates it: the destination has its shape (E1407).
                Some(Frag::Acc { tiles: None, .. }) if v.tile.len() == 2 => {
                    let rows = match constant(m, &v.tile[0]) {
                        Some(m) if m % 16 != 0 => 8,
                        _ => 16,
                    };
                    let t = (div(v.tile[0].clone(), rows), div(v.tile[1].clone(), 8));
                    if let Some(b) = acc_b {
                        size_acc(e, b, t.clone(), rows);
                    }
                    (t.0, t.1, rows)
                }
                _ => {
                    return Err(LowerError::new(
                        acc.span,
                        format!("`{}` is not a warp accumulator (`mma.fill`)", acc.name),
                    ));
                }
            };
            let (ptr, r0, c0, nrows, cols, ld) = placement(e, &v)?;
            if v.tensor.space == MemSpace::Global {
                let p = v.tensor.param.unwrap_or(0);
                e.written_params.insert(p);
            }
            let mut targs = vec![sym(&fm), sym(&fnn)];
            if rows != 16 || v.transposed {
                targs.push(CExpr::int(rows));
            }
            if v.transposed {
                targs.push(flag(true));
            }
            let call = Call::new("tsl_mma_store").targs(targs).args([
                cpp_name(&acc.name),
                ptr,
                r0,
                c0,
                nrows,
                cols,
                ld,
            ]);
            let note = if v.transposed {
                "transposed: element (i, j) to row j, column i of the tile, bounds-checked"
            } else {
                "the accumulator layout, bounds-checked per element pair"
            };
            e.call(call, Some(note), line);
        }
        Stmt::MmaCommit => {
            return Err(LowerError::new(
                m.stmt_span(s),
                "`mma.commit` belongs to WGMMA; a warp-level `mma` completes in order",
            ));
        }
        _ => unreachable!("mma_stmt is called on mma statements"),
    }
    Ok(())
}

/// The `mma` that reads the operand `def` loads: whether it is the A operand, and the
/// operand's major.
fn operand_role(e: &Emitter, def: StmtId) -> Option<(bool, Major)> {
    let m = e.m;
    let this = Some(Binding::Frag(def));
    crate::check::all_stmts(m)
        .into_iter()
        .find_map(|s| match &m.stmts[s] {
            Stmt::Mma { a_major, .. } if ident(e, s, IdentRole::A) == this => {
                Some((true, *a_major))
            }
            Stmt::Mma { b_major, .. } if ident(e, s, IdentRole::B) == this => {
                Some((false, *b_major))
            }
            _ => None,
        })
}

/// The view of an `mma.load` source or `mma.store` destination (the checker's, composed
/// `.chunkat` indices such as `m # g0` included).
fn operand_view(e: &Emitter, x: ExprId) -> Result<super::cexpr::View, LowerError> {
    e.cx().view(x)
}

/// Where a view's tile lies: the tensor's pointer (the array entry), the tile's first row and
/// column, the tensor's rows and columns, and its row pitch — C++ text.
fn placement(
    e: &mut Emitter,
    v: &super::cexpr::View,
) -> Result<(CExpr, CExpr, CExpr, CExpr, CExpr, CExpr), LowerError> {
    let t = &v.tensor;
    if t.shape.len() != 2 || v.origin.len() != 2 {
        return Err(LowerError::new(
            e.m.kernel.name.span,
            format!("internal: the warp `mma` tile of `{}` is not 2-D", t.name),
        ));
    }
    if t.space == MemSpace::Global {
        e.pointer_params.insert(t.param.unwrap_or(0));
    }
    Ok((
        v.entry_ptr(),
        v.origin[0].clone(),
        v.origin[1].clone(),
        sym(&t.shape[0]),
        sym(&t.shape[1]),
        sym(&t.ld()),
    ))
}

fn load(
    e: &mut Emitter,
    s: StmtId,
    name: &str,
    src: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let span = m.stmt_span(s);
    if crate::check::all_stmts(m).into_iter().any(|u| {
        matches!(&m.stmts[u], Stmt::Mma { .. })
            && ident(e, u, IdentRole::Acc) == Some(Binding::Frag(s))
    }) {
        return load_acc(e, s, name, src, line);
    }
    let (is_a, major) = operand_role(e, s).ok_or_else(|| {
        LowerError::new(span, format!("`{name}` is loaded but no `mma` reads it"))
    })?;
    let v = operand_view(e, src)?;
    let kind = Kind::of(v.tensor.dtype).ok_or_else(|| {
        LowerError::new(
            m.expr_span(src),
            format!("no `mma.sync` takes {} operands", v.tensor.dtype),
        )
    })?;
    if v.tile.len() != 2 || v.transposed || v.element {
        return Err(LowerError::new(
            m.expr_span(src),
            "a warp `mma` operand is a 2-D tile",
        ));
    }
    // Row major: A is [M, K], B is [N, K] (K contiguous); column major the transpose.
    let trans = major == Major::Col;
    let (mn, k) = if trans {
        (v.tile[1].clone(), v.tile[0].clone())
    } else {
        (v.tile[0].clone(), v.tile[1].clone())
    };
    // The instructions: picked from compile-time extents. An extent that depends on tunables
    // takes the full shape's (M a multiple of 16, K of the full K), which the emitted kernel
    // asserts.
    let (mv, kv) = (constant(m, &mn), constant(m, &k));
    let picked = kv.map(|kv| pick(kind, if is_a { mv } else { None }, kv));
    let Pick {
        shape,
        ki,
        fk: _,
        kt,
    } = picked.unwrap_or(Pick {
        shape: Shape::Full,
        ki: kind.k(),
        fk: 0,
        kt: None,
    });
    let rows_per = if is_a { shape.rows() } else { 8 };
    let fk = match (picked, kt) {
        (Some(p), Some(_)) => Sym::Int(p.fk),
        _ => div(k.clone(), ki),
    };
    let tiles = (div(mn.clone(), rows_per), fk);
    // Registers per instruction: A has rows/8 halves, each K quarter of 4E elements one.
    let quarters = if shape == Shape::Full { 2 } else { 1 };
    let per = if is_a {
        (rows_per / 8) * quarters
    } else {
        quarters
    };
    let regs = Sym::mul(Sym::mul(tiles.0.clone(), tiles.1.clone()), Sym::Int(per));
    let what = if is_a { "A" } else { "B" };
    // The symbolic extents.
    let mut conds = Vec::new();
    if is_a && mv.is_none() {
        conds.push(paren(&mn).rem(CExpr::int(16)).eq(CExpr::int(0)));
    }
    if kv.is_none() {
        conds.push(paren(&k).rem(CExpr::int(ki)).eq(CExpr::int(0)));
    }
    if let Some(cond) = CExpr::join(COp::And, conds) {
        let whole = Op::StaticAssert {
            cond,
            message: format!(
                "the warp tile `{name}` takes whole {} instructions",
                kind.inst(shape)
            ),
        };
        e.emit(whole, None, line);
    }
    let block = if is_a && shape == Shape::M8 {
        "m8"
    } else if is_a {
        "m16"
    } else {
        "n8"
    };
    let padded = match kt {
        Some(kv) => format!(", K zero-padded from {kv} to {}", (kv + ki - 1) / ki * ki),
        None => String::new(),
    };
    let what = format!(
        "{what} fragment, {} × {} {}, {} {block} tile(s) of the {} mma.sync{padded}",
        mn.to_cpp(),
        k.to_cpp(),
        v.tensor.dtype,
        paren(&tiles.0),
        kind.inst(shape)
    );
    // Its registers: an array of its own, or a slot of its double buffer (sized here).
    let dest = match e.warp.buffers.get(&Binding::Frag(s)).cloned() {
        Some(buf) => {
            if let Op::Array2D { len, .. } = &mut e.lines[buf.decl].op {
                *len = CExpr::sym(&regs);
            }
            if e.lines[buf.decl].note.is_none() {
                e.lines[buf.decl].note = Some(format!("{what}, two k-steps"));
            }
            CExpr::var(&buf.name).index(buf.slot)
        }
        None => {
            let arr = Op::Array {
                ty: "tsl_u32".into(),
                name: name.to_string(),
                len: sym(&regs),
            };
            e.emit(arr, Some(&what), line);
            CExpr::var(name)
        }
    };
    let (fa, fb) = (sym(&tiles.0), sym(&tiles.1));
    let trans_cpp = flag(trans);
    // The shape and tile K, where not the defaults (full shape, no padding).
    let mut extra = Vec::new();
    if shape != Shape::Full || kt.is_some() {
        extra.push(CExpr::Lit(shape.cpp()));
    }
    if let Some(kv) = kt {
        extra.push(CExpr::int(kv));
    }
    // A tile a swizzled TMA load wrote (or that states `.swiz<N>`): ldmatrix at swizzled
    // addresses. The checker admits only tiles of full instructions here (E1670).
    let swizzle = e
        .swizzle
        .get(&s)
        .filter(|z| **z != Sym::Int(0))
        .cloned()
        .filter(|_| v.tensor.space == MemSpace::Shared && hopper_warp(e));
    if let Some(sw) = swizzle {
        if !extra.is_empty() {
            return Err(LowerError::new(
                span,
                "a swizzled warp operand tile takes whole full-shape instructions",
            ));
        }
        let helper = if is_a {
            "tsl_mma_load_a_swz"
        } else {
            "tsl_mma_load_b_swz"
        };
        let targs = vec![
            CExpr::Lit(kind.cpp()),
            fa,
            fb,
            trans_cpp,
            sym(&v.tensor.ld()),
            sym(&sw),
        ];
        let call = Call::new(helper)
            .targs(targs)
            .args([dest.clone(), v.tile_ptr()]);
        let note = format!(
            "ldmatrix at addresses swizzled as the TMA wrote them ({} bytes)",
            sw.to_cpp()
        );
        e.call(call, Some(&note), line);
    } else if v.tensor.space == MemSpace::Shared {
        // ldmatrix reads 16-byte rows: every row the warp addresses must start 16-byte aligned.
        let elems = 16 / v.tensor.dtype.size_bytes().max(1) as i64;
        let ldsm = v.aligned_cpp(elems);
        let helper = if is_a {
            "tsl_mma_load_a"
        } else {
            "tsl_mma_load_b"
        };
        let mut targs = vec![
            CExpr::Lit(kind.cpp()),
            fa,
            fb,
            trans_cpp,
            sym(&v.tensor.ld()),
            ldsm,
        ];
        targs.extend(extra);
        let call = Call::new(helper)
            .targs(targs)
            .args([dest.clone(), v.tile_ptr()]);
        let note = if kt.is_some() {
            "gathered: the tile is narrower than its instructions"
        } else {
            "ldmatrix where rows are 16-byte aligned"
        };
        e.call(call, Some(note), line);
    } else {
        let (ptr, r0, c0, rows, cols, ld) = placement(e, &v)?;
        let helper = if is_a {
            "tsl_mma_gather_a"
        } else {
            "tsl_mma_gather_b"
        };
        let mut targs = vec![CExpr::Lit(kind.cpp()), fa, fb, trans_cpp];
        targs.extend(extra);
        let call = Call::new(helper)
            .targs(targs)
            .args([dest.clone(), ptr, r0, c0, rows, cols, ld]);
        e.call(
            call,
            Some("per-thread loads in the fragment layout, zeros past the edges"),
            line,
        );
    }
    e.warp.declare(
        Binding::Frag(s),
        Frag::Operand {
            dtype: v.tensor.dtype,
            tiles: (tiles.0, tiles.1),
            shape,
            cpp: dest,
        },
    );
    Ok(())
}

/// `mc = mma.load c;` of an accumulator: the [M, N] tile read in the accumulator layout (f32
/// values for a floating-point tensor, s32 for an s32 one).
fn load_acc(
    e: &mut Emitter,
    s: StmtId,
    name: &str,
    src: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let v = operand_view(e, src)?;
    if v.tile.len() != 2 || v.transposed || v.element {
        return Err(LowerError::new(
            m.expr_span(src),
            "a warp accumulator is loaded from a 2-D tile",
        ));
    }
    let dtype = if v.tensor.dtype == DType::I32 {
        DType::I32
    } else {
        DType::F32
    };
    let rows = match constant(m, &v.tile[0]) {
        Some(mv) if mv % 16 != 0 => 8,
        _ => 16,
    };
    let tiles = (div(v.tile[0].clone(), rows), div(v.tile[1].clone(), 8));
    let (decl, _) = acc_decl(name, dtype, Some(&tiles));
    let decl_at = e.lines.len();
    let note = format!(
        "warp accumulator, {dtype}, in the mma.sync fragment layout, loaded from `{}`",
        v.tensor.name
    );
    e.emit(decl, Some(&note), line);
    let (ptr, r0, c0, nrows, cols, ld) = placement(e, &v)?;
    let mut targs = vec![sym(&tiles.0), sym(&tiles.1)];
    if rows != 16 {
        targs.push(CExpr::int(rows));
    }
    e.call(
        Call::new("tsl_mma_load_c").targs(targs).args([
            CExpr::var(name),
            ptr,
            r0,
            c0,
            nrows,
            cols,
            ld,
        ]),
        Some("the accumulator layout, zeros past the edges"),
        line,
    );
    e.warp.declare(
        Binding::Frag(s),
        Frag::Acc {
            dtype,
            tiles: Some(tiles),
            rows,
            decl: decl_at,
            fills: Vec::new(),
        },
    );
    Ok(())
}

/// After the body: every accumulator was sized by an `mma` (the checker's E1114 guarantees it).
pub fn finish(e: &mut Emitter) {
    let mut open: Vec<String> = e
        .warp
        .iter()
        .filter(|(_, f)| matches!(f, Frag::Acc { tiles: None, .. }))
        .filter_map(|(b, _)| match b {
            Binding::Frag(d) => match &e.m.stmts[*d] {
                Stmt::MmaFill { name, .. } | Stmt::MmaLoad { name, .. } => Some(name.name.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    open.sort();
    for n in open {
        e.errors.push(LowerError::new(
            e.m.kernel.name.span,
            format!("internal: the warp accumulator `{n}` is never used by an `mma`"),
        ));
    }
}

/// Whether this is a Hopper-path kernel (TMA copies or events) with warp-level `mma`s: its
/// `mma`s run under `: group` levels, none under a `: group-4` one of its own (the checker's
/// rule, [`crate::check::KernelInfo::warp_mma_on_hopper`]).
pub fn hopper_warp(e: &Emitter) -> bool {
    e.path == super::kernel::KernelPath::Hopper && e.info.warp_mma_on_hopper
}
