//! Source positions.
//!
//! A [`Span`] is plain data (line/column, 1-based lines, 0-based columns as `proc_macro2`
//! reports them) plus the index of the first and last token in the parser's token table, so
//! that the proc macro can map it back to the compiler's own spans. The IR never holds a
//! `proc_macro2::Span` itself: that keeps the IR `Send` and usable outside a macro.

use std::fmt;

/// Line and column of a character (line 1-based, column 0-based, in chars).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// A range of DSL source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: LineCol,
    pub end: LineCol,
    /// Index of the first token in the parser's token table (`u32::MAX` when synthetic).
    pub first_token: u32,
    /// Index of the last token in the parser's token table.
    pub last_token: u32,
}

impl Span {
    /// A span that points nowhere (hand-built IR in tests, synthesized nodes).
    pub const DUMMY: Span = Span {
        start: LineCol { line: 0, col: 0 },
        end: LineCol { line: 0, col: 0 },
        first_token: u32::MAX,
        last_token: u32::MAX,
    };

    pub fn is_dummy(&self) -> bool {
        self.first_token == u32::MAX && self.start.line == 0
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        if self.is_dummy() {
            return other;
        }
        if other.is_dummy() {
            return self;
        }
        let (a, b) = if self.start <= other.start {
            (self, other)
        } else {
            (other, self)
        };
        let (end, last_token) = if a.end >= b.end {
            (a.end, a.last_token)
        } else {
            (b.end, b.last_token)
        };
        Span {
            start: a.start,
            end,
            first_token: a.first_token,
            last_token,
        }
    }

    /// A synthetic span at a line (hand-built IR in tests).
    pub fn at_line(line: u32) -> Span {
        Span {
            start: LineCol { line, col: 0 },
            end: LineCol { line, col: 0 },
            first_token: u32::MAX,
            last_token: u32::MAX,
        }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.start.line, self.start.col + 1)
    }
}
