//! Enumerates tunable assignments (the cross product of domains, capped) for questions like
//! "which WGMMA widths can this kernel need".

use super::sym::SymEnv;
use crate::ir::Module;

pub fn configs(m: &Module) -> Vec<SymEnv> {
    let mut out = vec![SymEnv::new()];
    for t in &m.tunables {
        let mut next = Vec::new();
        for env in &out {
            for &v in &t.domain {
                let mut e = env.clone();
                e.insert(t.name.name.clone(), v);
                next.push(e);
                if next.len() > 100_000 {
                    return next;
                }
            }
        }
        out = next;
    }
    out
}
