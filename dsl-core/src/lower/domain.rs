//! Enumerates tunable assignments (the cross product of domains, capped) for questions like
//! "which WGMMA widths can this kernel need".

use crate::ir::Module;
use crate::sym::SymEnv;
use crate::tunable::{Tunable, cross_product};

pub fn configs(m: &Module) -> Vec<SymEnv> {
    cross_product(&Tunable::of_module(m), Some(100_000))
}
