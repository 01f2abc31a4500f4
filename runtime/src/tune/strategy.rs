//! Search strategies over the legal configs, all deterministic for a given seed:
//!
//! * **brute** (default): every legal config, in cross-product order;
//! * **random**: the legal configs shuffled (Fisher–Yates driven by SplitMix64 from the seed),
//!   cut to the budget;
//! * **halving** (successive halving): every candidate timed briefly, then the best third
//!   (at least 3) re-timed longer;
//! * **local** (a coarse pass, then a local one): three quarters of a count budget by an even
//!   stride through the legal configs (the default config always among them), the rest on the
//!   neighbors — one or two domain steps away — of the three fastest verified configs.
//!
//! A budget is a count (`50`: at most 50 configs) or seconds (`30s`: no new trial starts after
//! 30 s of sweeping); with a count, `brute` and `halving` take the first configs of their order.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use dsl_core::check::{self, Config, Limits, Problem};
use dsl_core::ir::Module;

use crate::dtype::SplitMix64;

use super::record::ConfigMap;

/// How configs are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Every legal config in order.
    #[default]
    Brute,
    /// Legal configs shuffled by the seed, cut to the budget.
    Random,
    /// Successive halving: all briefly, then the best third longer.
    Halving,
    /// An even stride through the legal configs, then the neighbors of the fastest.
    Local,
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Strategy, String> {
        match s {
            "brute" | "brute-force" => Ok(Strategy::Brute),
            "random" => Ok(Strategy::Random),
            "halving" | "successive-halving" => Ok(Strategy::Halving),
            "local" => Ok(Strategy::Local),
            other => Err(format!(
                "unknown strategy `{other}`; use brute, random, halving or local"
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
            Strategy::Local => "local",
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
    if strategy == Strategy::Local {
        // The coarse pass only; [`local_round`] chooses the rest after it.
        let coarse = match budget {
            Some(Budget::Count(c)) if c < n => c - c / 4,
            _ => n,
        };
        return Plan {
            order: stride_indices(n, coarse.max(1), None),
            deadline: match budget {
                Some(Budget::Seconds(s)) => Some(Duration::from_secs_f64(s)),
                _ => None,
            },
        };
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

/// At most `budget` indices of `0..n`: all when they fit, else `keep` (when given) and an even
/// stride through the rest, in increasing order.
pub fn stride_indices(n: usize, budget: usize, keep: Option<usize>) -> Vec<usize> {
    if n <= budget {
        return (0..n).collect();
    }
    let mut out: Vec<usize> = keep.filter(|k| *k < n).into_iter().collect();
    let want = budget.saturating_sub(out.len()).max(1);
    let step = n as f64 / want as f64;
    for i in 0..want {
        let j = ((i as f64 * step) as usize).min(n - 1);
        if !out.contains(&j) {
            out.push(j);
        }
    }
    // A stride point that fell on `keep` is made up by the first index not taken.
    let mut next = 0;
    while out.len() < budget.min(n) {
        if !out.contains(&next) {
            out.push(next);
        }
        next += 1;
    }
    out.sort_unstable();
    out
}

/// How many domain steps apart two configs are per changed tunable: `Some(changed)` when at
/// most two tunables differ, each by one step of its domain.
fn steps_apart(domains: &[(String, Vec<i64>)], from: &ConfigMap, c: &ConfigMap) -> Option<usize> {
    let mut changed = 0;
    for (name, domain) in domains {
        let (a, b) = (from.get(name)?, c.get(name)?);
        if a == b {
            continue;
        }
        let (ia, ib) = (
            domain.iter().position(|v| v == a)?,
            domain.iter().position(|v| v == b)?,
        );
        if ia.abs_diff(ib) > 1 {
            return None;
        }
        changed += 1;
    }
    (1..=2).contains(&changed).then_some(changed)
}

/// The local strategy's second round: up to `left` indices of `legal`, round-robin over the
/// neighbor lists (one changed tunable first, then two) of the `best` configs, skipping
/// those `tried`. `domains` are the tunables' names and domains.
pub fn local_round(
    domains: &[(String, Vec<i64>)],
    legal: &[ConfigMap],
    best: &[ConfigMap],
    tried: &[usize],
    left: usize,
) -> Vec<usize> {
    let lists: Vec<Vec<usize>> = best
        .iter()
        .map(|b| {
            let mut v: Vec<(usize, usize)> = legal
                .iter()
                .enumerate()
                .filter_map(|(i, c)| steps_apart(domains, b, c).map(|s| (s, i)))
                .collect();
            v.sort();
            v.into_iter().map(|x| x.1).collect()
        })
        .collect();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for i in 0..longest {
        for l in &lists {
            if out.len() == left {
                return out;
            }
            if let Some(&c) = l.get(i)
                && !tried.contains(&c)
                && !out.contains(&c)
            {
                out.push(c);
            }
        }
    }
    out
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
        for s in ["brute", "random", "halving", "local"] {
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
    fn local_strides_then_steps_to_neighbors() {
        let p = plan(Strategy::Local, Some(Budget::Count(8)), 0, 100);
        assert_eq!(p.order.len(), 6, "three quarters of the budget");
        assert!(p.order.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            plan(Strategy::Local, Some(Budget::Count(8)), 0, 5).order,
            vec![0, 1, 2, 3, 4]
        );
        assert_eq!(stride_indices(10, 3, Some(7)), vec![0, 5, 7]);
        assert_eq!(stride_indices(10, 3, Some(0)), vec![0, 1, 5]);
        let d = vec![
            ("A".to_string(), vec![1, 2, 4, 8]),
            ("B".to_string(), vec![1, 2, 4]),
        ];
        let cfg =
            |a: i64, b: i64| -> ConfigMap { [("A".to_string(), a), ("B".to_string(), b)].into() };
        let legal: Vec<ConfigMap> = [1, 2, 4, 8]
            .iter()
            .flat_map(|&a| [1, 2, 4].iter().map(move |&b| cfg(a, b)))
            .collect();
        // Around A=2 B=2: one step in one tunable first (4 of them), then in both (4).
        let next = local_round(&d, &legal, &[cfg(2, 2)], &[], 20);
        let firsts: Vec<&ConfigMap> = next[..4].iter().map(|&i| &legal[i]).collect();
        for c in &firsts {
            assert!((c["A"] == 2) ^ (c["B"] == 2), "{c:?}");
        }
        assert_eq!(next.len(), 8);
        assert!(
            !next
                .iter()
                .any(|&i| legal[i] == cfg(8, 4) || legal[i] == cfg(2, 2))
        );
        // Tried configs are skipped and the count is capped.
        let tried: Vec<usize> = next[..2].to_vec();
        let again = local_round(&d, &legal, &[cfg(2, 2)], &tried, 3);
        assert_eq!(again.len(), 3);
        assert!(again.iter().all(|i| !tried.contains(i)));
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
