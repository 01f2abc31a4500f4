//! Value parsers the example command lines share.

/// A positive integer.
pub fn positive(v: &str) -> Result<usize, String> {
    v.parse::<usize>()
        .ok()
        .filter(|x| *x > 0)
        .ok_or_else(|| format!("`{v}` is not a positive integer"))
}
