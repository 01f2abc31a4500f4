//! The launch geometry in symbolic form (`KernelInfo::sym_geometry`), over the checker's
//! `parallel` chains: grid dimensions, threads per block, and the formula that recovers each
//! parallel variable from `blockIdx` / `threadIdx` — over tunables, constants and problem
//! sizes, what the lowering prints (the numeric geometry under one configuration, which the
//! checks use, is `geometry.rs`'s).
//!
//! The `: block` level's variables map to `blockIdx.x`, `.y`, `.z` in order. The other levels
//! (group-4 ⊃ group ⊃ thread) share one flat `threadIdx.x`: a level's linear index is
//! `threadIdx.x / inner % extent`, where `inner` is the thread count of one unit of the level
//! (128 / 32 for a group-4 / group, whose inner levels may leave lanes idle (`IdleLanes`); the
//! size of the next inner level, or 1, for a thread level), and multi-variable levels split
//! their linear index row-major.

use super::Binding;
use crate::ir::{Level, Module, Stmt, StmtId};
use crate::span::Span;
use crate::sym::Sym;

/// Why a kernel has no symbolic geometry (the lowering reports it).
#[derive(Clone, Debug, PartialEq)]
pub struct GeometryError {
    pub span: Span,
    pub msg: String,
}

impl GeometryError {
    fn new(span: Span, msg: impl Into<String>) -> Self {
        GeometryError {
            span,
            msg: msg.into(),
        }
    }
}

/// How one parallel variable is computed.
#[derive(Clone, Debug, PartialEq)]
pub struct ParVar {
    pub name: String,
    /// The checker's binding of the variable.
    pub binding: Binding,
    pub level: Level,
    pub extent: Sym,
    /// How its value is computed.
    pub index: Index,
}

/// How a parallel variable's value is computed from the block or thread index.
#[derive(Clone, Debug, PartialEq)]
pub enum Index {
    /// `blockIdx.{axis}`.
    Block(&'static str),
    /// From a thread index `tid`: `tid / inner` (the linear index among this level's
    /// instances), `% level` (the level's size) for a level nested in another, then `/ stride`
    /// and `% extent` for the variable's place among the level's variables.
    Thread {
        inner: Sym,
        level: Option<Sym>,
        stride: Sym,
        extent: Option<Sym>,
    },
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Geometry {
    pub grid: Vec<Sym>,
    pub threads: Sym,
    /// Block-level variables.
    pub block_vars: Vec<ParVar>,
    /// Thread-level variables (group-4, group, thread), outermost first.
    pub thread_vars: Vec<ParVar>,
    /// The statement that introduces each variable.
    pub introduced_by: Vec<(String, StmtId)>,
    /// Whether a `group-4` level exists (the WGMMA path).
    pub has_group4: bool,
    /// Grouped rasterization (`raster G;`): the group size; the grid is then 1-D.
    pub raster: Option<Sym>,
    /// `persistent;`: the number of tiles of the block level (the grid is then
    /// `min(tiles, TSL_SM_COUNT × blocks per SM)` and each block loops over tiles).
    pub persistent_tiles: Option<Sym>,
    /// The `persistent` switch (non-zero = on).
    pub persistent_on: Option<Sym>,
    /// `cluster C;`: blocks per cluster (along the first block variable); with a `: cluster`
    /// level, all its blocks (`CM × CN`).
    pub cluster: Option<Sym>,
    /// A `: cluster` level: blocks per cluster along the first and second block variables.
    pub cluster_shape: Option<(Sym, Sym)>,
    /// Lanes a `group` / `group-4` level leaves idle: its inner levels hold fewer threads than
    /// its warp or warpgroup, whose first `size` threads run them.
    pub idle_lanes: Vec<IdleLanes>,
}

/// A `group` (`group-4`) level whose inner levels hold `size` threads, fewer than its `unit`
/// (32 or 128): each of its warps (warpgroups) runs the inner levels on its first `size`
/// threads, from the `parallel` statement `stmt` that holds the outermost inner level.
#[derive(Clone, Debug, PartialEq)]
pub struct IdleLanes {
    pub stmt: StmtId,
    pub unit: Sym,
    pub size: Sym,
}

impl Geometry {
    pub fn var(&self, name: &str) -> Option<&ParVar> {
        self.block_vars
            .iter()
            .chain(&self.thread_vars)
            .find(|v| v.name == name)
    }
    /// The variable the checker's `b` binds.
    pub fn var_of(&self, b: Binding) -> Option<&ParVar> {
        self.block_vars
            .iter()
            .chain(&self.thread_vars)
            .find(|v| v.binding == b)
    }
}

/// The geometry of the checker's `parallel` chains (`KernelInfo::parallel_chains`): the
/// `: block` level they start at, and the thread levels of each.
pub(crate) fn sym_geometry(
    m: &Module,
    parallel_chains: &[Vec<(StmtId, usize)>],
) -> Result<Geometry, GeometryError> {
    let level = |(s, li): (StmtId, usize)| match &m.stmts[s] {
        Stmt::Parallel { levels, .. } => levels.get(li),
        _ => None,
    };
    let mut g = Geometry::default();
    let block = parallel_chains
        .first()
        .and_then(|c| c.first())
        .copied()
        .filter(|&r| level(r).is_some_and(|l| l.level == Level::Block));
    if let Some((s, li, l)) = block.and_then(|b| Some((b.0, b.1, level(b)?))) {
        for (k, (v, &e)) in l.vars.iter().zip(&l.extents).enumerate() {
            let extent = sym(m, e)?;
            g.grid.push(extent.clone());
            let axis = *["x", "y", "z"].get(k).ok_or_else(|| {
                GeometryError::new(l.level_span, "a `: block` level has at most 3 variables")
            })?;
            g.block_vars.push(ParVar {
                name: v.name.clone(),
                binding: Binding::ParallelVar {
                    stmt: s,
                    level: li,
                    index: k,
                },
                level: Level::Block,
                extent,
                index: Index::Block(axis),
            });
            g.introduced_by.push((v.name.clone(), s));
        }
        if l.vars.is_empty() {
            for &e in &l.extents {
                g.grid.push(sym(m, e)?);
            }
        }
    }
    // Each chain's thread levels (group-4 ⊃ group ⊃ thread), outermost first.
    let thread_chains: Vec<Vec<(StmtId, usize)>> = parallel_chains
        .iter()
        .map(|c| {
            c.iter()
                .copied()
                .filter(|&r| level(r).is_some_and(|l| l.level != Level::Block))
                .collect()
        })
        .collect();
    g.has_group4 = thread_chains
        .iter()
        .flatten()
        .any(|&r| level(r).is_some_and(|l| l.level == Level::Group4));
    if g.grid.is_empty() {
        g.grid.push(Sym::Int(1));
    }
    if let Some(r) = m.raster {
        if g.block_vars.len() != 2 {
            return Err(GeometryError::new(
                m.expr_span(r),
                "`raster` groups a 2-D `: block` level; this kernel's has a different rank",
            ));
        }
        g.raster = Some(sym(m, r)?);
        let total = Sym::mul(g.grid[0].clone(), g.grid[1].clone());
        g.grid = vec![total];
    }
    if let Some(c) = &m.cluster_level {
        // `: cluster` level: clusters of CM × CN blocks, the grid 1-D (rasterized in groups of
        // `raster G;` rows, or 1) and padded to whole clusters in both directions; a block's
        // rank r in its cluster gives its place: `r % CM` rows down, `r / CM` columns across.
        if g.block_vars.len() != 2 {
            return Err(GeometryError::new(
                c.span,
                "a `: cluster` level tiles a 2-D `: block` level",
            ));
        }
        let first = c
            .extents
            .first()
            .ok_or_else(|| GeometryError::new(c.span, "a `: cluster` level gives its extents"))?;
        let cm = sym(m, *first)?;
        let cn = match c.extents.get(1) {
            Some(&e) => sym(m, e)?,
            None => Sym::Int(1),
        };
        if g.raster.is_none() {
            g.raster = Some(Sym::Int(1));
        }
        let rows = Sym::mul(
            Sym::cdiv(g.block_vars[0].extent.clone(), cm.clone()),
            cm.clone(),
        );
        let cols = Sym::mul(
            Sym::cdiv(g.block_vars[1].extent.clone(), cn.clone()),
            cn.clone(),
        );
        g.grid = vec![Sym::mul(rows, cols)];
        g.cluster = Some(Sym::mul(cm.clone(), cn.clone()));
        g.cluster_shape = Some((cm, cn));
    }
    if let Some(c) = m.cluster {
        if g.raster.is_none() {
            return Err(GeometryError::new(
                m.expr_span(c),
                "`cluster` places the blocks of a `raster`ed 2-D `: block` level; add `raster G;`",
            ));
        }
        let c = sym(m, c)?;
        // Rows of tiles padded to whole clusters: a cluster's blocks all exist (a block past
        // the last row loads zeros for its own operand, multicasts its share of the other,
        // and its TMA store is clipped).
        let rows = Sym::mul(
            Sym::cdiv(g.block_vars[0].extent.clone(), c.clone()),
            c.clone(),
        );
        g.grid = vec![Sym::mul(rows, g.block_vars[1].extent.clone())];
        g.cluster = Some(c);
    }
    if let Some(p) = m.persistent {
        let on = sym(m, p)?;
        let tiles = match &g.cluster {
            Some(_) => g.grid[0].clone(),
            None => g
                .block_vars
                .iter()
                .map(|v| v.extent.clone())
                .fold(Sym::Int(1), Sym::mul),
        };
        // The grid (min(tiles, SMs × blocks per SM), or one block per tile with the switch
        // off) is set by the plan pass, which knows the blocks per SM the registers allow.
        g.grid = vec![tiles.clone()];
        g.persistent_tiles = Some(tiles);
        g.persistent_on = Some(on);
    }
    // Per chain, sizes from the innermost level outwards; a level shared by several chains
    // (an enclosing `parallel`) takes its formula from the first.
    let mut done: Vec<(StmtId, usize)> = Vec::new();
    for (ci, chain) in thread_chains.iter().enumerate() {
        let n = chain.len();
        let mut inner = vec![Sym::Int(1); n];
        let mut size = Sym::Int(1);
        let mut exts: Vec<Vec<Sym>> = vec![Vec::new(); n];
        for i in (0..n).rev() {
            let Some(l) = level(chain[i]) else { continue };
            let width = Sym::Int(l.level.threads().unwrap_or(1) as i64);
            // A warp (warpgroup) level spans its whole warp (warpgroup) whatever its inner
            // levels hold (at most that many threads: the checker's rule); fewer leave lanes
            // idle.
            let unit = if i + 1 < n && l.level == Level::Thread {
                size.clone()
            } else if i + 1 < n {
                if size != width
                    && !g
                        .idle_lanes
                        .iter()
                        .any(|x| x.stmt == chain[i + 1].0 && x.unit == width)
                {
                    g.idle_lanes.push(IdleLanes {
                        stmt: chain[i + 1].0,
                        unit: width.clone(),
                        size: size.clone(),
                    });
                }
                width
            } else {
                width
            };
            inner[i] = unit.clone();
            exts[i] = l
                .extents
                .iter()
                .map(|&e| sym(m, e))
                .collect::<Result<_, _>>()?;
            let ext = exts[i].iter().cloned().fold(Sym::Int(1), Sym::mul);
            size = Sym::mul(ext, unit);
        }
        // The checker holds every chain to one thread count.
        if ci == 0 && n > 0 {
            g.threads = size;
        }
        for i in 0..n {
            let (s, li) = chain[i];
            let Some(l) = level(chain[i]) else { continue };
            if done.contains(&(s, li)) {
                continue;
            }
            done.push((s, li));
            let exts = &exts[i];
            let total = exts.iter().cloned().fold(Sym::Int(1), Sym::mul);
            for (j, v) in l.vars.iter().enumerate() {
                g.thread_vars.push(ParVar {
                    name: v.name.clone(),
                    binding: Binding::ParallelVar {
                        stmt: s,
                        level: li,
                        index: j,
                    },
                    level: l.level,
                    extent: exts[j].clone(),
                    index: Index::Thread {
                        inner: inner[i].clone(),
                        level: (i > 0).then(|| total.clone()),
                        stride: exts[j + 1..].iter().cloned().fold(Sym::Int(1), Sym::mul),
                        extent: (j > 0).then(|| exts[j].clone()),
                    },
                });
                g.introduced_by.push((v.name.clone(), s));
            }
        }
    }
    Ok(g)
}

/// `g` with the guards of the levels that leave lanes idle under `values` (tunables and
/// constants) only: a size that is the whole warp there needs none.
pub(crate) fn idle_under(
    mut g: Geometry,
    values: &std::collections::HashMap<String, i64>,
) -> Geometry {
    let env: crate::sym::SymEnv = values.iter().map(|(n, &v)| (n.clone(), v)).collect();
    g.idle_lanes
        .retain(|x| match (x.size.eval(&env), x.unit.eval(&env)) {
            (Ok(size), Ok(unit)) => size < unit,
            _ => true,
        });
    g
}

fn sym(m: &Module, e: crate::ir::ExprId) -> Result<Sym, GeometryError> {
    Sym::from_expr(m, e).ok_or_else(|| {
        GeometryError::new(
            m.expr_span(e),
            "a parallel extent must be integer arithmetic over tunables, constants and dims",
        )
    })
}
