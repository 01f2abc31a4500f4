//! Input limits, checked before lexing so that cost stays bounded on any text: the size of a
//! `.co` file and the nesting depth of its delimiters (proc_macro2's lexer builds one group
//! per delimiter pair, so ten million nested parentheses would cost gigabytes before the
//! parser's own depth limit could say a word).

use super::codes;
use crate::diag::Diagnostic;
use crate::span::{LineCol, Span};

/// Largest `.co` text accepted, in bytes.
pub(crate) const MAX_SOURCE_BYTES: usize = 16 << 20;
/// Deepest delimiter nesting accepted (the parser's own recursion limit is lower; this one
/// only keeps the lexer's memory bounded).
pub(crate) const MAX_DELIM_DEPTH: usize = 256;
/// Most tokens accepted from either entry point (a kernel has a few thousand; the lexer's
/// token trees cost a few hundred bytes each).
pub(crate) const MAX_TOKENS: usize = 1 << 20;

fn point(at: LineCol) -> Span {
    Span {
        start: at,
        end: LineCol {
            line: at.line,
            col: at.col + 1,
        },
        first_token: u32::MAX,
        last_token: u32::MAX,
    }
}

/// The size error, at the start of the text.
pub(crate) fn too_large(what: String) -> Diagnostic {
    Diagnostic::new(
        codes::TOO_LARGE,
        point(LineCol { line: 1, col: 0 }),
        format!("input too large: {what}"),
    )
    .with_help("a kernel is a few hundred lines; split generated code into several kernels")
}

/// Checks size and delimiter depth of a `.co` text. Comments and string literals are
/// skipped (their brackets do not nest).
pub(crate) fn prescan(text: &str) -> Result<(), Diagnostic> {
    if text.len() > MAX_SOURCE_BYTES {
        return Err(too_large(format!(
            "{} bytes (at most {MAX_SOURCE_BYTES})",
            text.len()
        )));
    }
    let mut depth = 0usize;
    let (mut line, mut col) = (1u32, 0u32);
    let mut chars = text.chars().peekable();
    // Inside a block comment (its nesting depth, as Rust's lexer counts it) or a string.
    let mut comment = 0usize;
    let mut string = false;
    // Tokens so far (an upper estimate: each punctuation character, each word or number).
    let mut tokens = 0usize;
    let mut in_word = false;
    while let Some(c) = chars.next() {
        let here = LineCol { line, col };
        if c == '\n' {
            line += 1;
            col = 0;
        } else {
            col += 1;
        }
        let next = chars.peek().copied();
        let word_char = c.is_alphanumeric() || c == '_';
        if comment == 0 && !string {
            if word_char {
                tokens += usize::from(!in_word);
            } else if !c.is_whitespace() {
                tokens += 1;
            }
            in_word = word_char;
            if tokens > MAX_TOKENS {
                return Err(too_large(format!("more than {MAX_TOKENS} tokens")));
            }
        }
        if comment > 0 {
            if c == '*' && next == Some('/') {
                comment -= 1;
                chars.next();
                col += 1;
            } else if c == '/' && next == Some('*') {
                comment += 1;
                chars.next();
                col += 1;
            }
            continue;
        }
        if string {
            if c == '\\' {
                if chars.next() == Some('\n') {
                    line += 1;
                    col = 0;
                } else {
                    col += 1;
                }
            } else if c == '"' {
                string = false;
            }
            continue;
        }
        match c {
            '/' if next == Some('/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        col = 0;
                        break;
                    }
                }
            }
            '/' if next == Some('*') => {
                comment = 1;
                chars.next();
                col += 1;
            }
            '"' => string = true,
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_DELIM_DEPTH {
                    return Err(Diagnostic::new(
                        codes::TOO_DEEP,
                        point(here),
                        format!("delimiters nested deeper than {MAX_DELIM_DEPTH} levels"),
                    )
                    .with_help("split the expression or the loop nest"));
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_and_size() {
        assert!(prescan("((()))").is_ok());
        let deep = format!("x = {}1{};", "(".repeat(300), ")".repeat(300));
        let d = prescan(&deep).unwrap_err();
        assert_eq!(d.code, codes::TOO_DEEP);
        assert_eq!((d.span.start.line, d.span.start.col), (1, 4 + 256));
        // Brackets in comments and strings do not count.
        let commented = format!(
            "// {}\n/* {} /* */ */ \"{}\"",
            "(".repeat(300),
            "[".repeat(300),
            "{".repeat(300)
        );
        assert!(prescan(&commented).is_ok());
        let big = " ".repeat(MAX_SOURCE_BYTES + 1);
        assert_eq!(prescan(&big).unwrap_err().code, codes::TOO_LARGE);
    }
}
