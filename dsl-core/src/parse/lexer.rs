//! Tokens: proc_macro2 token trees flattened into one vector the parser walks by index.
//!
//! Groups become an `Open` token, their contents and a `Close` token (each delimiter keeps its
//! own span), and every `Open`/`Close` knows the index of its partner, so the parser can skip a
//! whole group in one step when it recovers from an error. Invisible (`Delimiter::None`) groups
//! are flattened without delimiter tokens, and doc comments (`#[doc = "…"]`, which the lexer
//! makes of `///` comments) are dropped. File mode lexes with proc_macro2's fallback lexer and
//! turns a lexer error into a [`Diagnostic`] that names the unbalanced delimiter.

use super::codes;
use crate::diag::Diagnostic;
use crate::span::{LineCol, Span};
use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// A bracket kind that produces delimiter tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Delim {
    Paren,
    Bracket,
    Brace,
}

impl Delim {
    pub(crate) fn open_char(self) -> char {
        match self {
            Delim::Paren => '(',
            Delim::Bracket => '[',
            Delim::Brace => '{',
        }
    }
    pub(crate) fn close_char(self) -> char {
        match self {
            Delim::Paren => ')',
            Delim::Bracket => ']',
            Delim::Brace => '}',
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TokKind {
    Ident(String),
    /// `joint`: immediately followed by another punctuation character (`=` of `==`).
    Punct {
        ch: char,
        joint: bool,
    },
    /// A literal as written (`0.0f`, `128`, `"str"`).
    Lit(String),
    Open(Delim),
    Close(Delim),
}

#[derive(Clone, Debug)]
pub(crate) struct Tok {
    pub kind: TokKind,
    pub start: LineCol,
    pub end: LineCol,
    /// For `Open`/`Close`: the index of the matching delimiter; otherwise unused (0).
    pub partner: usize,
}

/// The flat token vector and the compiler spans of the same tokens.
pub(crate) struct Lexed {
    pub toks: Vec<Tok>,
    pub spans: Vec<proc_macro2::Span>,
}

impl Lexed {
    fn push(&mut self, kind: TokKind, span: proc_macro2::Span) -> usize {
        let (s, e) = (span.start(), span.end());
        self.toks.push(Tok {
            kind,
            start: LineCol {
                line: s.line as u32,
                col: s.column as u32,
            },
            end: LineCol {
                line: e.line as u32,
                col: e.column as u32,
            },
            partner: 0,
        });
        self.spans.push(span);
        self.toks.len() - 1
    }
}

struct Frame {
    trees: Vec<TokenTree>,
    pos: usize,
    /// The closing delimiter to emit when this frame ends, and the index of its `Open`.
    close: Option<(Delim, proc_macro2::Span, usize)>,
}

/// Flattens a token stream. Iterative (an explicit stack), so deep nesting cannot overflow.
pub(crate) fn flatten(ts: TokenStream) -> Lexed {
    let mut out = Lexed {
        toks: Vec::new(),
        spans: Vec::new(),
    };
    let mut stack = vec![Frame {
        trees: ts.into_iter().collect(),
        pos: 0,
        close: None,
    }];
    while let Some(frame) = stack.last_mut() {
        let Some(tree) = frame.trees.get(frame.pos).cloned() else {
            if let Some((d, span, open)) = frame.close {
                let close = out.push(TokKind::Close(d), span);
                out.toks[close].partner = open;
                out.toks[open].partner = close;
            }
            stack.pop();
            continue;
        };
        frame.pos += 1;
        match tree {
            TokenTree::Group(g) => {
                let delim = match g.delimiter() {
                    Delimiter::Parenthesis => Some(Delim::Paren),
                    Delimiter::Bracket => Some(Delim::Bracket),
                    Delimiter::Brace => Some(Delim::Brace),
                    Delimiter::None => None,
                };
                let close = delim.map(|d| {
                    let open = out.push(TokKind::Open(d), g.span_open());
                    (d, g.span_close(), open)
                });
                stack.push(Frame {
                    trees: g.stream().into_iter().collect(),
                    pos: 0,
                    close,
                });
            }
            TokenTree::Punct(p) => {
                if p.as_char() == '#'
                    && let Some(skip) = doc_attr_len(&frame.trees[frame.pos..])
                {
                    frame.pos += skip;
                    continue;
                }
                let joint = p.spacing() == Spacing::Joint;
                out.push(
                    TokKind::Punct {
                        ch: p.as_char(),
                        joint,
                    },
                    p.span(),
                );
            }
            TokenTree::Ident(i) => {
                out.push(TokKind::Ident(i.to_string()), i.span());
            }
            TokenTree::Literal(l) => {
                out.push(TokKind::Lit(l.to_string()), l.span());
            }
        }
    }
    out
}

/// After a `#`: how many trees form a doc attribute (`[doc = …]` or `![doc = …]`), if any.
fn doc_attr_len(rest: &[TokenTree]) -> Option<usize> {
    let bang = matches!(rest.first(), Some(TokenTree::Punct(p)) if p.as_char() == '!') as usize;
    match rest.get(bang) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket => {
            let mut inner = g.stream().into_iter();
            let is_doc = matches!(inner.next(), Some(TokenTree::Ident(i)) if i == "doc")
                && matches!(inner.next(), Some(TokenTree::Punct(p)) if p.as_char() == '=');
            is_doc.then_some(bang + 1)
        }
        _ => None,
    }
}

/// Forces proc_macro2's fallback lexer while alive (also when unwinding).
struct FallbackGuard;

impl FallbackGuard {
    fn new() -> Self {
        proc_macro2::fallback::force();
        FallbackGuard
    }
}

impl Drop for FallbackGuard {
    fn drop(&mut self) {
        proc_macro2::fallback::unforce();
    }
}

/// File mode: lexes `text` with the fallback lexer (so `a#b` is accepted and spans carry the
/// file's line/column) and flattens it.
pub(crate) fn lex_file(text: &str) -> Result<Lexed, Diagnostic> {
    let _guard = FallbackGuard::new();
    match text.parse::<TokenStream>() {
        Ok(ts) => Ok(flatten(ts)),
        Err(e) => {
            let at = e.span().start();
            let at = LineCol {
                line: at.line as u32,
                col: at.column as u32,
            };
            Err(lex_error(text, at))
        }
    }
}

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

/// Byte offset of a (line, column) position as the fallback lexer counts them.
fn offset_of(text: &str, at: LineCol) -> Option<usize> {
    let mut line_start = 0usize;
    for _ in 1..at.line {
        line_start += text.get(line_start..)?.find('\n')? + 1;
    }
    let line = text.get(line_start..)?;
    line.char_indices()
        .nth(at.col as usize)
        .map(|(i, _)| line_start + i)
}

/// Explains why the fallback lexer stopped at `at`.
fn lex_error(text: &str, at: LineCol) -> Diagnostic {
    let offset = offset_of(text, at);
    let ch = offset.and_then(|o| text[o..].chars().next());
    match ch {
        Some(c @ ('(' | '[' | '{')) => Diagnostic::new(
            codes::DELIM,
            point(at),
            format!("this `{c}` is never closed"),
        )
        .with_help(format!("add the matching `{}`", closing(c))),
        Some(c @ (')' | ']' | '}')) => {
            // Lex the text before the stray delimiter: if something is still open there, the
            // lexer reports the innermost opener, which this delimiter fails to close.
            let prefix = offset.map(|o| &text[..o]).unwrap_or("");
            let opener = prefix.parse::<TokenStream>().err().map(|e| {
                let s = e.span().start();
                LineCol {
                    line: s.line as u32,
                    col: s.column as u32,
                }
            });
            match opener
                .and_then(|o| offset_of(prefix, o).map(|off| (o, prefix[off..].chars().next())))
            {
                Some((o, Some(open))) => Diagnostic::new(
                    codes::DELIM,
                    point(at),
                    format!(
                        "mismatched closing delimiter `{c}`: expected `{}`",
                        closing(open)
                    ),
                )
                .with_note(point(o), format!("the `{open}` opened here is still open"))
                .with_help(format!(
                    "close the `{open}` with `{}` before this `{c}`",
                    closing(open)
                )),
                _ => Diagnostic::new(
                    codes::DELIM,
                    point(at),
                    format!("unexpected closing delimiter `{c}`"),
                )
                .with_help("nothing is open here; remove it or add the opening delimiter"),
            }
        }
        Some('/') if offset.is_some_and(|o| text[o..].starts_with("/*")) => {
            Diagnostic::new(codes::LEX, point(at), "unterminated block comment")
                .with_help("close the comment with `*/`")
        }
        Some(c) if c.is_ascii_digit() => {
            Diagnostic::new(codes::LEX, point(at), "malformed number literal")
                .with_help("write an integer like `64`, `0x40`, or a float like `0.5f`, `1e3`")
        }
        Some('"') | Some('\'') => Diagnostic::new(
            codes::LEX,
            point(at),
            "unterminated or malformed quoted literal",
        )
        .with_help("the DSL has no string or character literals; remove the quote"),
        Some(c) => Diagnostic::new(codes::LEX, point(at), format!("unexpected character `{c}`"))
            .with_help(
                "only ASCII identifiers, numbers and C operators are allowed outside comments",
            ),
        None => Diagnostic::new(
            codes::LEX,
            point(at),
            "the input cannot be split into tokens",
        )
        .with_help("check for unbalanced delimiters or unterminated comments"),
    }
}

fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        other => other,
    }
}
