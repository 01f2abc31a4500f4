//! Enumerates tunable assignments (the cross product of domains, capped) for questions like
//! "which WGMMA widths can this kernel need".

use super::sym::SymEnv;
use crate::ir::Module;
use crate::tunable::{Tunable, cross_product};

pub fn configs(m: &Module) -> Vec<SymEnv> {
    cross_product(&Tunable::of_module(m), Some(100_000))
}
