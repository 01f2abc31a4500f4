//! `cluster C;`: thread-block clusters of C blocks along the first `: block` variable, with the
//! shared operand multicast by TMA.
//!
//! The blocks of a cluster compute vertically adjacent tiles (`block_m = cluster row · C +
//! rank`, the same `block_n`), so a TMA load whose source tile does not depend on `block_m`
//! (v4's `rhs`) is the same for all of them: each block loads 1/C of its rows and multicasts
//! them to every block of the cluster (`.multicast::cluster`), and L2 serves that operand once
//! per cluster instead of once per block. Each block's `full` barrier still expects the whole
//! tile's bytes; they arrive from C copies.
//!
//! A block's multicast writes into its peers' shared memory, so the stage it refills must be
//! free in all of them: the events its producer waits on before multicasting (`empty`) are
//! cluster-scope — every `trigger` arrives on that barrier in each block of the cluster (`mapa`
//! + a remote arrive), and each barrier expects C times the arrivals. A cluster barrier after
//! the barrier initialisation (peers arrive and multicast only into initialised barriers) and
//! one at the end of the block (no block exits while peers may still write to it) close it.
//!
//! A `: cluster` level (`parallel {cm, cn} by [CM, CN] : cluster`) generalises this to clusters
//! of `CM × CN` blocks (rank `r`: `r % CM` rows down, `r / CM` columns across), and the loads
//! written `.multicast` are the multicast ones: each is shared by the blocks of the cluster
//! that differ only in the block variables its tile does not use (the rows of a cluster column
//! share `rhs`, the columns of a cluster row share `lhs`), which load one slice each and send
//! it to all of them (the mask of that group). A load shared by one block is a plain load.

use super::cxx::CExpr;
use super::error::LowerError;
use super::kernel::Call;
use crate::check::Binding;
use crate::check::events::{EventRef, event_ref};
use crate::ir::{CopyDst, Module, Stmt, StmtId};
use crate::sym::Sym;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Per multicast load: whether its tile is shared along the first and the second block variable.
pub type Sharing = HashMap<StmtId, (bool, bool)>;

/// What `cluster C;` or a `: cluster` level changes in a kernel.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// Blocks per cluster (C++ expression over tunables).
    pub size: Sym,
    /// The TMA loads that are multicast.
    pub multicast: HashSet<StmtId>,
    /// Events whose arrivals go to every block of the cluster (the checker's bindings of them).
    pub events: BTreeSet<EventRef>,
    /// A `: cluster` level: its shape `(CM, CN)` and, per multicast load, whether it is shared
    /// along the first and the second block variable.
    pub level: Option<(Sym, Sym, Sharing)>,
    /// Some multicast load is synchronous (`tma.copy.multicast`, no event): every group of
    /// synchronous loads then starts with a cluster barrier (peers write into the tiles).
    pub sync_multicast: bool,
}

/// How one multicast load is issued: `slices` blocks load one slice each (this block's is
/// `slice`), and `load` sends it to all of them.
pub struct McLoad {
    pub slices: Sym,
    /// This block's slice index.
    pub slice: CExpr,
    /// The load helper, with its template arguments.
    pub load: super::kernel::Call,
}

impl Cluster {
    /// The multicast plan of load `s` (`None`: not multicast).
    pub fn load(&self, s: StmtId) -> Option<McLoad> {
        use super::kernel::Call;
        if !self.multicast.contains(&s) {
            return None;
        }
        let Some((cm, cn, along)) = &self.level else {
            let c = self.size.clone();
            return Some(McLoad {
                slice: CExpr::call_t("tsl_cta_rank", vec![CExpr::sym(&c)], vec![]),
                load: Call::new("tsl_tma_load_2d_mc").targs([CExpr::sym(&c)]),
                slices: c,
            });
        };
        let (am, an) = along.get(&s).copied().unwrap_or((false, false));
        let pick = |on: bool, x: &Sym| if on { x.clone() } else { Sym::Int(1) };
        let flag = |b: bool| CExpr::Lit(if b { "true" } else { "false" });
        let targs = vec![
            CExpr::sym_operand(cm),
            CExpr::sym_operand(cn),
            flag(am),
            flag(an),
        ];
        Some(McLoad {
            slices: Sym::mul(pick(am, cm), pick(an, cn)),
            slice: CExpr::call_t("tsl_cluster_slice", targs.clone(), vec![]),
            load: Call::new("tsl_tma_load_2d_cluster").targs(targs),
        })
    }
}

/// Finds the multicast loads and the cluster-scope events; `row_var` is the first `: block`
/// variable (the one the blocks of a cluster differ in). A multicast load writes into its
/// peers' shared memory, so it must follow a `wait` in its statement list (the ring's "stage is
/// free" event, which then counts every block's consumers); one that does not is an error.
///
/// With a `: cluster` level (`shape` = `(CM, CN)`), the multicast loads are those written
/// `.multicast`, each shared along the block variables its tile does not mention.
pub fn plan(
    m: &Module,
    info: &crate::check::KernelInfo,
    size: Sym,
    block_vars: &[Binding],
    shape: Option<(Sym, Sym)>,
) -> Result<Cluster, LowerError> {
    let mut multicast = HashSet::new();
    let mut along = HashMap::new();
    let dims = m.cluster_level.as_ref().map_or(1, |c| c.extents.len());
    let mut sync = HashSet::new();
    // Loads whose future an event publishes complete on that event (`tma.copy.async<e>`).
    let bound = &info.bound_copies;
    for (s, st) in m.stmts.iter() {
        if let Stmt::TmaCopy {
            event,
            src,
            dst: CopyDst::Expr(_),
            bind,
            ..
        } = st
        {
            // Synchronous loads multicast only when written `.multicast` under a level.
            let evented = event.is_some() || bound.contains_key(&s);
            if !evented && (shape.is_none() || bind.is_some()) {
                continue;
            }
            // A view of a parameter (the checker's view and binding of its root).
            let of_param = info
                .sym_views
                .get(src)
                .and_then(|v| v.as_ref().ok())
                .and_then(|v| info.bindings.get(&v.root))
                .is_some_and(|b| matches!(b, Binding::Param(_)));
            if !of_param {
                continue;
            }
            // Whether the tile is the same for every value of block variable `i`.
            let free = |i: usize| {
                i < dims
                    && block_vars.get(i).is_some_and(|v| {
                        let mut named = false;
                        crate::check::walk_expr(m, *src, &mut |x| {
                            named |= info.bindings.get(&x) == Some(v);
                        });
                        !named
                    })
            };
            if shape.is_some() {
                if m.is_multicast(s) && (free(0) || free(1)) {
                    multicast.insert(s);
                    along.insert(s, (free(0), free(1)));
                    if !evented {
                        sync.insert(s);
                    }
                }
            } else if free(0) {
                multicast.insert(s);
            }
        }
    }
    // The events waited on in a statement list that issues a multicast load.
    let mut events = BTreeSet::new();
    let mut lists: Vec<&[StmtId]> = vec![&m.kernel.body];
    while let Some(list) = lists.pop() {
        if let Some(&load) = list
            .iter()
            .find(|s| multicast.contains(s) && !sync.contains(s))
        {
            let waits = list
                .iter()
                .take_while(|&&s| s != load)
                .filter_map(|&s| match &m.stmts[s] {
                    Stmt::Wait { event } => Some(*event),
                    _ => None,
                })
                .collect::<Vec<_>>();
            if waits.is_empty() {
                return Err(LowerError::new(
                    m.stmt_span(load),
                    "under `cluster`, this load is multicast into every block of the cluster, so it must wait for an event that says the destination is free in all of them (`wait empty[stage];` before it)",
                ));
            }
            events.extend(
                waits
                    .into_iter()
                    .filter_map(|w| event_ref(m, &info.bindings, w)),
            );
        }
        for &s in list {
            match &m.stmts[s] {
                Stmt::Parallel { body, .. }
                | Stmt::Foreach { body, .. }
                | Stmt::InThreads { body, .. } => lists.push(body),
                Stmt::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    lists.push(then_body);
                    lists.extend(else_body.iter().map(|b| b.as_slice()));
                }
                _ => {}
            }
        }
    }
    Ok(Cluster {
        size,
        multicast,
        events,
        level: shape.map(|(cm, cn)| (cm, cn, along)),
        sync_multicast: !sync.is_empty(),
    })
}

/// The call that maps a linear tile index to the two block variables under `raster G;` (and
/// `cluster C;`: cluster-tiles rasterized, then the block's rank picks the row).
pub fn raster_call(geo: &crate::check::Geometry, tile: CExpr) -> Call {
    let (bm, bn) = (&geo.block_vars[0], &geo.block_vars[1]);
    let group = geo.raster.clone().unwrap_or(Sym::Int(1));
    let (rows, cols) = (CExpr::sym(&bm.extent), CExpr::sym(&bn.extent));
    let (vm, vn) = (CExpr::var(&bm.name), CExpr::var(&bn.name));
    match &geo.cluster {
        Some(c) => Call::new("tsl_raster_cluster").args([
            tile,
            rows,
            cols,
            CExpr::sym(&group),
            CExpr::sym(c),
            vm,
            vn,
        ]),
        None => {
            Call::new("tsl_raster_grouped").args([tile, rows, cols, CExpr::sym(&group), vm, vn])
        }
    }
}
