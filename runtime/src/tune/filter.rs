//! The legality filter: the cross product of the tunable domains, minus every config the
//! kernel's own facts rule out before anything is compiled, counted per rule.
//!
//! A config the checker rejects usually has one diagnostic; when it has several it is counted
//! once, under the first rule in [`FilterRule::ALL`] order (a user's `require` first, then the
//! hardware limits). Diagnostic codes map to rules by family: `E1001` → restriction,
//! `E1002`/`E1004` → domain, `E06xx` → threads, `E05xx` → shared memory, `E03xx` → WGMMA,
//! `E04xx` → swizzle, `E0914` and the tuner's `T0101` → TMA box and `T0102` → restriction (a launch-time
//! `require` over problem dims), anything else → other.
//!
//! After compiling, the ptxas report removes more: spills ([`FilterReport::spills`]) and
//! static shared memory that pushes the total over the limit ([`FilterReport::static_smem`]).

use dsl_core::check::{Limits, Problem};

pub use super::legality::{FilterReport, FilterRule};
use super::record::ConfigMap;
use super::target::{Facts, Rejection, Shape, Target, cross_product};

/// The rule a rejected config is counted under.
pub fn rule_of(rejections: &[Rejection]) -> FilterRule {
    rejections
        .iter()
        .map(|r| FilterRule::of_code(&r.code))
        .min()
        .unwrap_or(FilterRule::Other)
}

/// A legal config and its facts.
#[derive(Clone, Debug, PartialEq)]
pub struct Legal {
    /// The tunable values (name → value) that passed the filter.
    pub config: ConfigMap,
    /// What the filter established about it.
    pub facts: Facts,
}

/// Filters the cross product of `target`'s tunables for `shape` under `limits`.
pub fn filter_space(
    target: &Target,
    shape: &Shape,
    problem: &Problem,
    limits: &Limits,
) -> (Vec<Legal>, FilterReport) {
    let all = cross_product(&target.tunables);
    let mut report = FilterReport {
        total: all.len(),
        smem_limit: limits.max_smem_per_block,
        ..FilterReport::default()
    };
    let mut legal = Vec::new();
    for config in all {
        match target.check(&config, shape, problem, limits) {
            Ok(facts) => legal.push(Legal { config, facts }),
            Err(rej) => {
                let rule = rule_of(&rej);
                *report.removed.entry(rule).or_default() += 1;
                report.example.entry(rule).or_insert_with(|| {
                    let first = rej
                        .iter()
                        .find(|r| FilterRule::of_code(&r.code) == rule)
                        .map(|r| r.message.lines().next().unwrap_or("").to_string())
                        .unwrap_or_default();
                    format!("{}: {first}", super::record::config_text(&config))
                });
            }
        }
    }
    report.legal = legal.len();
    (legal, report)
}
