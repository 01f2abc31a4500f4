//! Search strategies over the legal configs, all deterministic for a given seed:
//!
//! * **brute** (default): every legal config, in cross-product order;
//! * **random**: the legal configs shuffled (Fisher–Yates driven by SplitMix64 from the seed),
//!   cut to the budget;
//! * **halving** (successive halving): every candidate timed briefly, then the best third
//!   (at least 3) re-timed longer.
//!
//! A budget is a count (`50`: at most 50 configs) or seconds (`30s`: no new trial starts after
//! 30 s of sweeping); with a count, `brute` and `halving` take the first configs of their order.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use dsl_core::check::{self, Config, Limits, Problem};
use dsl_core::ir::Module;

use crate::dtype::SplitMix64;

/// How configs are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Strategy {
    #[default]
    /// Every legal config in order.
    Brute,
    /// Legal configs shuffled by the seed, cut to the budget.
    Random,
    /// Successive halving: all briefly, then the best third longer.
    Halving,
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Strategy, String> {
        match s {
            "brute" | "brute-force" => Ok(Strategy::Brute),
            "random" => Ok(Strategy::Random),
            "halving" | "successive-halving" => Ok(Strategy::Halving),
            other => Err(format!(
                "unknown strategy `{other}`; use brute, random or halving"
            )),
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::Brute => "brute",
            Strategy::Random => "random",
            Strategy::Halving => "halving",
        })
    }
}

/// A limit on the sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// At most this many configs.
    Count(usize),
    /// No trial starts after this many seconds.
    Seconds(f64),
}

impl FromStr for Budget {
    type Err = String;
    /// `50` (configs) or `30s` (seconds).
    fn from_str(s: &str) -> Result<Budget, String> {
        let bad = || format!("budget `{s}`: use a count (`50`) or seconds (`30s`)");
        if let Some(secs) = s.strip_suffix('s') {
            let v: f64 = secs.parse().map_err(|_| bad())?;
            if !(v.is_finite() && v > 0.0) {
                return Err(bad());
            }
            return Ok(Budget::Seconds(v));
        }
        match s.parse::<usize>() {
            Ok(n) if n > 0 => Ok(Budget::Count(n)),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Count(n) => write!(f, "{n}"),
            Budget::Seconds(s) => write!(f, "{s}s"),
        }
    }
}

/// The order in which configs (indices into the legal list) are tried, and the time limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Indices into the legal list, in trial order.
    pub order: Vec<usize>,
    /// No trial starts after this long.
    pub deadline: Option<Duration>,
}

/// Chooses the configs for a strategy over `n` legal configs.
pub fn plan(strategy: Strategy, budget: Option<Budget>, seed: u64, n: usize) -> Plan {
    let mut order: Vec<usize> = (0..n).collect();
    if strategy == Strategy::Random {
        shuffle(&mut order, seed);
    }
    let mut deadline = None;
    match budget {
        Some(Budget::Count(c)) => order.truncate(c),
        Some(Budget::Seconds(s)) => deadline = Some(Duration::from_secs_f64(s)),
        None => {}
    }
    Plan { order, deadline }
}

/// Fisher–Yates with SplitMix64.
pub fn shuffle<T>(v: &mut [T], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for i in (1..v.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

/// Successive halving's survivors: the best third (rounded up, at least `min(3, n)`) of the
/// timed candidates `(index, median_ms)`, fastest first; ties broken by index.
pub fn survivors(timed: &[(usize, f64)]) -> Vec<usize> {
    let mut t = timed.to_vec();
    t.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let keep = t.len().div_ceil(3).max(3.min(t.len()));
    t.into_iter().take(keep).map(|(i, _)| i).collect()
}

/// The text a cached winner is matched on: strategy, budget and seed (seed only where used).
pub fn selection_text(strategy: Strategy, budget: Option<Budget>, seed: u64) -> String {
    let mut s = strategy.to_string();
    if let Some(b) = budget {
        s.push_str(&format!(" budget={b}"));
    }
    if strategy == Strategy::Random {
        s.push_str(&format!(" seed={seed}"));
    }
    s
}

/// Every tunable assignment of `m` that passes every check for `problem` under `limits`, in
/// domain order (the first tunable varies slowest): the kernel's `require`s and the hardware
/// checks are the legality filter.
pub fn legal_configs(m: &Module, problem: &Problem, limits: &Limits) -> Vec<Config> {
    let mut all = vec![Config::defaults(m)];
    for t in &m.tunables {
        all = all
            .into_iter()
            .flat_map(|c| {
                t.domain
                    .iter()
                    .map(move |&v| c.clone().with(&t.name.name, v))
            })
            .collect();
    }
    all.into_iter()
        .filter(|c| check::check_config(m, c, Some(problem), limits).is_ok())
        .collect()
}

/// At most `budget` of `configs`, always including `keep` when it is among them: all of them
/// when they fit, else `keep` and an even stride through the rest (deterministic).
pub fn stride_pick(configs: &[Config], budget: usize, keep: &Config) -> Vec<Config> {
    if configs.len() <= budget {
        return configs.to_vec();
    }
    let mut out: Vec<Config> = configs.iter().filter(|c| *c == keep).cloned().collect();
    let want = budget.saturating_sub(out.len()).max(1);
    let step = configs.len() as f64 / want as f64;
    for i in 0..want {
        let c = &configs[((i as f64 * step) as usize).min(configs.len() - 1)];
        if !out.contains(c) {
            out.push(c.clone());
        }
    }
    out
}

/// The configurations of `legal` that differ from `from` in one tunable by one step of its
/// domain, then those that differ in two (coupled tunables often move together), in `legal`'s
/// order.
pub fn neighbors(m: &Module, legal: &[Config], from: &Config) -> Vec<Config> {
    let step = |c: &Config| -> Option<usize> {
        let mut changed = 0;
        for t in &m.tunables {
            let (a, b) = (from.get(&t.name.name)?, c.get(&t.name.name)?);
            if a == b {
                continue;
            }
            let (ia, ib) = (
                t.domain.iter().position(|&v| v == a)?,
                t.domain.iter().position(|&v| v == b)?,
            );
            if ia.abs_diff(ib) > 1 {
                return None;
            }
            changed += 1;
        }
        (1..=2).contains(&changed).then_some(changed)
    };
    let mut out: Vec<(usize, Config)> = legal
        .iter()
        .filter_map(|c| step(c).map(|n| (n, c.clone())))
        .collect();
    out.sort_by_key(|x| x.0);
    out.into_iter().map(|x| x.1).collect()
}

/// The local-search plan after a coarse pass: up to `left` configs, round-robin over the
/// neighbor lists of the `best` configs (nearest first), skipping those already `tried`.
pub fn neighbor_round(
    m: &Module,
    legal: &[Config],
    best: &[Config],
    tried: &[Config],
    left: usize,
) -> Vec<Config> {
    let lists: Vec<Vec<Config>> = best.iter().map(|b| neighbors(m, legal, b)).collect();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    let mut local: Vec<Config> = Vec::new();
    for i in 0..longest {
        for l in &lists {
            if local.len() == left {
                return local;
            }
            if let Some(c) = l.get(i)
                && !tried.contains(c)
                && !local.contains(c)
            {
                local.push(c.clone());
            }
        }
    }
    local
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_and_print() {
        for s in ["brute", "random", "halving"] {
            assert_eq!(s.parse::<Strategy>().unwrap().to_string(), s);
        }
        assert!("greedy".parse::<Strategy>().is_err());
        assert_eq!("40".parse::<Budget>(), Ok(Budget::Count(40)));
        assert_eq!("2.5s".parse::<Budget>(), Ok(Budget::Seconds(2.5)));
        for bad in ["0", "-1", "xs", "s", "0s", ""] {
            assert!(bad.parse::<Budget>().is_err(), "{bad}");
        }
    }

    #[test]
    fn random_is_a_deterministic_permutation_cut_to_budget() {
        let a = plan(Strategy::Random, None, 7, 50);
        let b = plan(Strategy::Random, None, 7, 50);
        assert_eq!(a, b);
        let mut sorted = a.order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(a.order, (0..50).collect::<Vec<_>>());
        assert_ne!(a.order, plan(Strategy::Random, None, 8, 50).order);
        let cut = plan(Strategy::Random, Some(Budget::Count(10)), 7, 50);
        assert_eq!(cut.order, a.order[..10]);
        let brute = plan(Strategy::Brute, Some(Budget::Seconds(3.0)), 7, 5);
        assert_eq!(brute.order, vec![0, 1, 2, 3, 4]);
        assert_eq!(brute.deadline, Some(Duration::from_secs(3)));
    }

    #[test]
    fn halving_keeps_the_best_third() {
        let timed: Vec<(usize, f64)> = (0..10).map(|i| (i, 10.0 - i as f64)).collect();
        assert_eq!(survivors(&timed), vec![9, 8, 7, 6]);
        assert_eq!(survivors(&timed[..2]), vec![1, 0]);
        assert_eq!(survivors(&[(4, 1.0), (2, 1.0), (3, 0.5)]), vec![3, 2, 4]);
        assert!(survivors(&[]).is_empty());
    }
}
