//! The legality filter: the cross product of the tunable domains, minus every config the
//! kernel's own facts rule out before anything is compiled, counted per rule.
//!
//! A config the checker rejects usually has one diagnostic; when it has several it is counted
//! once, under the first rule in [`FilterRule::ALL`] order (a user's `require` first, then the
//! hardware limits). Diagnostic codes map to rules by family: `E1001` → restriction,
//! `E1002`/`E1004` → domain, `E06xx` → threads, `E05xx` → shared memory, `E03xx` → WGMMA,
//! `E04xx` → swizzle, the tuner's `T0101` → TMA box and `T0102` → restriction (a launch-time
//! `require` over problem dims), anything else → other.
//!
//! After compiling, the ptxas report removes more: spills ([`FilterReport::spills`]) and
//! static shared memory that pushes the total over the limit ([`FilterReport::static_smem`]).

use std::collections::BTreeMap;
use std::fmt;

use dsl_core::check::{Limits, Problem};
use serde::{Deserialize, Serialize};

use super::record::ConfigMap;
use super::target::{Facts, Rejection, Shape, Target, cross_product};

/// A rule of the legality filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterRule {
    /// A `require` of the kernel (or a launch-time one).
    Restriction,
    /// A value outside a tunable's domain.
    Domain,
    /// Threads per block.
    Threads,
    /// Shared memory per block.
    SharedMemory,
    /// A WGMMA shape rule.
    Wgmma,
    /// Swizzle and row-byte rules.
    Swizzle,
    /// A TMA box rule.
    TmaBox,
    /// Any other diagnostic.
    Other,
}

impl FilterRule {
    /// Priority order (a config is counted under the first rule it breaks).
    pub const ALL: [FilterRule; 8] = [
        FilterRule::Restriction,
        FilterRule::Domain,
        FilterRule::Threads,
        FilterRule::SharedMemory,
        FilterRule::Wgmma,
        FilterRule::Swizzle,
        FilterRule::TmaBox,
        FilterRule::Other,
    ];

    /// The rule a diagnostic code belongs to.
    pub fn of_code(code: &str) -> FilterRule {
        match code {
            "E1001" | "T0102" => FilterRule::Restriction,
            "E1002" | "E1004" => FilterRule::Domain,
            "T0101" => FilterRule::TmaBox,
            c if c.starts_with("E06") => FilterRule::Threads,
            c if c.starts_with("E05") => FilterRule::SharedMemory,
            c if c.starts_with("E03") => FilterRule::Wgmma,
            c if c.starts_with("E04") => FilterRule::Swizzle,
            _ => FilterRule::Other,
        }
    }

    /// The rule's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            FilterRule::Restriction => "restriction (require)",
            FilterRule::Domain => "tunable domain",
            FilterRule::Threads => "threads per block",
            FilterRule::SharedMemory => "shared memory",
            FilterRule::Wgmma => "WGMMA shape",
            FilterRule::Swizzle => "swizzle / row bytes",
            FilterRule::TmaBox => "TMA box",
            FilterRule::Other => "other",
        }
    }
}

impl fmt::Display for FilterRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How many configs each rule removed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FilterReport {
    /// Size of the cross product.
    pub total: usize,
    /// Configs that passed every rule.
    pub legal: usize,
    /// Removed configs per rule.
    pub removed: BTreeMap<FilterRule, usize>,
    /// The first message seen per rule (what a removed config looked like).
    pub example: BTreeMap<FilterRule, String>,
    /// Configs removed after compiling because ptxas reported spills.
    pub spills: usize,
    /// Configs NVRTC failed to compile.
    pub compile_errors: usize,
    /// Configs whose static (ptxas) plus dynamic shared memory exceed the limit.
    #[serde(default)]
    pub static_smem: usize,
    /// The shared-memory limit used (the device's opt-in limit).
    pub smem_limit: u64,
}

impl FilterReport {
    /// Removed before compiling, all rules.
    pub fn removed_total(&self) -> usize {
        self.removed.values().sum()
    }
}

impl fmt::Display for FilterReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "space    {} configs, {} legal; removed:",
            self.total, self.legal
        )?;
        if self.removed.is_empty() {
            write!(f, " none")?;
        }
        for (rule, n) in &self.removed {
            write!(f, " {n} by {rule}")?;
            if *rule == FilterRule::SharedMemory {
                write!(f, " (> {} B)", self.smem_limit)?;
            }
            write!(f, ",")?;
        }
        write!(
            f,
            " then {} by spills, {} by static + dynamic shared memory, {} by compile errors",
            self.spills, self.static_smem, self.compile_errors
        )
    }
}

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
