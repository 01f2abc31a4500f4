//! What the legality filter found: its rules and the count each removed (plain records, kept
//! apart from the filter so a cached winner can carry them without the filter's machinery).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

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
            "T0101" | "E0914" => FilterRule::TmaBox,
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
