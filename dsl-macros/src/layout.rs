//! The DSL text a kernel carries for later stages (`KernelDef::dsl`): the invocation's tokens
//! laid out at their original lines and columns, so that re-parsing it gives the same line
//! numbers as the user's file (the `// dsl:LINE` comments of re-emitted CUDA point at it).

use proc_macro2::{Delimiter, TokenStream, TokenTree};

struct Writer {
    out: String,
    line: usize,
    col: usize,
}

impl Writer {
    fn at(&mut self, line: usize, col: usize, text: &str) {
        if line > self.line {
            for _ in self.line..line {
                self.out.push('\n');
            }
            self.line = line;
            self.col = 0;
        }
        if col > self.col {
            self.out.extend(std::iter::repeat_n(' ', col - self.col));
            self.col = col;
        } else if col < self.col && !self.out.ends_with(['\n', ' ']) {
            self.out.push(' ');
            self.col += 1;
        }
        self.out.push_str(text);
        self.col += text.chars().count();
        // Multi-line tokens (string literals) move the cursor down.
        self.line += text.matches('\n').count();
    }

    fn stream(&mut self, ts: TokenStream) -> Option<()> {
        for tt in ts {
            match tt {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::None => ("", ""),
                    };
                    let s = g.span_open().start();
                    if !open.is_empty() {
                        self.at(s.line, s.column, open);
                    }
                    self.stream(g.stream())?;
                    let e = g.span_close().start();
                    if !close.is_empty() {
                        self.at(e.line, e.column, close);
                    }
                }
                other => {
                    let s = other.span().start();
                    if s.line == 0 {
                        return None;
                    }
                    self.at(s.line, s.column, &other.to_string());
                }
            }
        }
        Some(())
    }
}

/// The tokens at their source positions, or their plain `to_string()` when the compiler gives
/// no positions.
pub fn dsl_text(ts: &TokenStream) -> String {
    let mut w = Writer {
        out: String::new(),
        line: 1,
        col: 0,
    };
    match w.stream(ts.clone()) {
        Some(()) => w.out,
        None => ts.to_string(),
    }
}
