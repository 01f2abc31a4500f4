//! "Did you mean …?" for keywords, and word lists for messages.

/// The candidate closest to `word` (compared in lower case: keywords are), if it is close
/// enough to be a plausible typo; the search is the crate's bounded one ([`crate::suggest`]).
pub(crate) fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    if let Some(&same) = candidates.iter().find(|&&c| c == lower) {
        return Some(same);
    }
    crate::suggest::nearest(&lower, candidates.iter().copied())
}

/// `" (did you mean `x`?)"` or `""`.
pub(crate) fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    match nearest(word, candidates) {
        Some(c) => format!("; did you mean `{c}`?"),
        None => String::new(),
    }
}

/// `a`, `b` or `c` — for messages listing the accepted words.
pub(crate) fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    match quoted.len() {
        0 => String::new(),
        1 => quoted[0].clone(),
        n => format!("{} or {}", quoted[..n - 1].join(", "), quoted[n - 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_finds_typos() {
        assert_eq!(
            nearest("chunk_at", &["at", "subspan", "chunkat"]),
            Some("chunkat")
        );
        assert_eq!(nearest("forech", &["foreach", "parallel"]), Some("foreach"));
        assert_eq!(nearest("zzzzzz", &["foreach", "parallel"]), None);
        assert_eq!(one_of(&["a", "b", "c"]), "`a`, `b` or `c`");
    }
}
