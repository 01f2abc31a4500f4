//! Tunables as every stage after the parser sees them — the lowering (a C++ template parameter
//! each), the runtime and the tuner: a name, the values it may take and its default. A
//! configuration is one value per tunable ([`ConfigValues`]); [`cross_product`] enumerates
//! them and [`config_text`] writes one as `A=1 B=2`.

use std::collections::BTreeMap;

use crate::ir;

/// One value per tunable, by name (ordered, so its text and hash are stable).
pub type ConfigValues = BTreeMap<String, i64>;

/// A tunable: a template parameter of the emitted kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tunable {
    /// The template parameter's name.
    pub name: String,
    /// The values it may take (a single value once pinned).
    pub domain: Vec<i64>,
    /// The value used when nothing is tuned.
    pub default: i64,
}

impl Tunable {
    /// The tunables of a parsed module, in declaration order.
    pub fn of_module(m: &ir::Module) -> Vec<Tunable> {
        m.tunables.iter().map(Tunable::from).collect()
    }

    /// Domain text for the emitted header (`128..=256 step 8` for long even ranges).
    pub fn domain_text(&self) -> String {
        let d = &self.domain;
        if d.len() > 6 {
            let step = d[1] - d[0];
            if d.windows(2).all(|w| w[1] - w[0] == step) {
                return format!("{}..={} step {}", d[0], d[d.len() - 1], step);
            }
        }
        let v: Vec<String> = d.iter().map(|x| x.to_string()).collect();
        format!("[{}]", v.join(", "))
    }
}

impl From<&ir::Tunable> for Tunable {
    fn from(t: &ir::Tunable) -> Tunable {
        Tunable {
            name: t.name.name.clone(),
            domain: t.domain.clone(),
            default: t.default,
        }
    }
}

/// Every configuration of the tunables' domains, the first tunable slowest; at most `cap`
/// of them (the first `cap` in that order) when given.
pub fn cross_product(tunables: &[Tunable], cap: Option<usize>) -> Vec<ConfigValues> {
    let mut out = vec![ConfigValues::new()];
    for t in tunables {
        let mut next = Vec::with_capacity(out.len() * t.domain.len());
        'all: for c in &out {
            for &v in &t.domain {
                let mut c = c.clone();
                c.insert(t.name.clone(), v);
                next.push(c);
                if cap.is_some_and(|cap| next.len() >= cap) {
                    break 'all;
                }
            }
        }
        out = next;
    }
    out
}

/// `A=1 B=2` (names in order); empty for no tunables.
pub fn config_text(c: &ConfigValues) -> String {
    c.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str, domain: &[i64]) -> Tunable {
        Tunable {
            name: name.into(),
            domain: domain.to_vec(),
            default: domain[0],
        }
    }

    #[test]
    fn the_cross_product_runs_the_first_tunable_slowest_and_stops_at_the_cap() {
        let ts = [t("A", &[1, 2]), t("B", &[7, 8, 9])];
        let all = cross_product(&ts, None);
        assert_eq!(all.len(), 6);
        assert_eq!(config_text(&all[0]), "A=1 B=7");
        assert_eq!(config_text(&all[1]), "A=1 B=8");
        assert_eq!(config_text(&all[5]), "A=2 B=9");
        assert_eq!(cross_product(&ts, Some(4)).len(), 4);
        assert_eq!(cross_product(&[], None), vec![ConfigValues::new()]);
        assert_eq!(config_text(&ConfigValues::new()), "");
    }

    #[test]
    fn long_even_domains_read_as_ranges() {
        assert_eq!(t("W", &[64, 128]).domain_text(), "[64, 128]");
        let r: Vec<i64> = (128..=256).step_by(8).collect();
        assert_eq!(t("W", &r).domain_text(), "128..=256 step 8");
    }
}
