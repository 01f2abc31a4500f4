//! "Did you mean …?": the nearest known word to a misspelled one, for the parser (keywords,
//! methods, element types) and the checker (declared names).
//!
//! The distance is strsim's optimal string alignment (insertions, deletions, substitutions and
//! adjacent transpositions each cost 1: `cdvi` is one edit from `cdiv`). Its cost is
//! |a|×|b|, so the search is bounded: names longer than [`MAX_NAME`] get no suggestion,
//! candidates whose length differs by more than the allowed edits are skipped before any
//! distance is computed, and at most [`MAX_CANDIDATES`] candidates are compared.

/// Longer names are not typos of a declared name worth suggesting.
pub(crate) const MAX_NAME: usize = 64;
/// At most this many candidates are compared per suggestion.
pub(crate) const MAX_CANDIDATES: usize = 4096;

/// Edit distance (optimal string alignment) over chars.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// The nearest candidate, if close enough to be a plausible typo: a case-insensitive match,
/// or at most one edit per three characters (at least one). Ties go to the smaller name.
pub(crate) fn nearest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let len = name.chars().count();
    if len > MAX_NAME {
        return None;
    }
    let limit = (len / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates.into_iter().take(MAX_CANDIDATES) {
        if c == name || c.len().abs_diff(name.len()) > limit * 4 {
            continue;
        }
        let clen = c.chars().count();
        if clen.abs_diff(len) > limit {
            continue;
        }
        let d = if c.eq_ignore_ascii_case(name) {
            0
        } else {
            edit_distance(name, c)
        };
        if d <= limit && best.is_none_or(|(bd, bc)| (d, c) < (bd, bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance() {
        assert_eq!(edit_distance("lhs_s", "lhs_s"), 0);
        assert_eq!(edit_distance("lhs_S", "lhs_s"), 1);
        assert_eq!(edit_distance("ful", "full"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("cdvi", "cdiv"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn picks_nearest_plausible() {
        let c = ["lhs_s", "rhs_s", "output_s", "STAGES"];
        assert_eq!(nearest("lhs_ss", c), Some("lhs_s"));
        assert_eq!(nearest("stages", c), Some("STAGES"));
        assert_eq!(nearest("zzz", c), None);
        assert_eq!(
            nearest("chunk_at", ["at", "subspan", "chunkat"]),
            Some("chunkat")
        );
        assert_eq!(nearest("forech", ["foreach", "parallel"]), Some("foreach"));
    }

    #[test]
    fn long_names_cost_nothing() {
        // Two 40,000-character names: no |a|×|b| table is built.
        let a = "a".repeat(40_000);
        let b = "a".repeat(39_999) + "b";
        assert_eq!(nearest(&a, [b.as_str()]), None);
        // A short name against a long candidate is skipped by length alone.
        assert_eq!(nearest("abc", [a.as_str()]), None);
    }
}
