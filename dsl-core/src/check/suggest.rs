//! "Did you mean …?": the candidate closest to a misspelled name by edit distance.

/// Edit distance over chars (insertions, deletions, substitutions and adjacent
/// transpositions each cost 1: `cdvi` is one edit from `cdiv`).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The nearest candidate, if close enough to be a plausible typo: a case-insensitive match,
/// or at most one edit per three characters (at least one).
pub(crate) fn nearest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        if c == name {
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
    }
}
