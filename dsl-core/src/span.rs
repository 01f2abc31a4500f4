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

/// Byte offsets of a text's line starts, computed once, so that every span of a file maps to
/// bytes without rescanning the text (columns count chars, as [`LineCol`] does).
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset where each line starts (line 1 at index 0).
    starts: Vec<usize>,
    /// Whether each line is pure ASCII (then a column is a byte count).
    ascii: Vec<bool>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let mut ascii = Vec::new();
        let mut line_ascii = true;
        for (i, b) in text.bytes().enumerate() {
            line_ascii &= b.is_ascii();
            if b == b'\n' {
                starts.push(i + 1);
                ascii.push(line_ascii);
                line_ascii = true;
            }
        }
        ascii.push(line_ascii);
        LineIndex {
            starts,
            ascii,
            len: text.len(),
        }
    }

    /// Number of lines (a text without a final newline still ends in a line).
    pub fn lines(&self) -> usize {
        self.starts.len()
    }

    /// Byte range of line `line` (1-based) without its `\n`; `None` past the end.
    pub fn line_range(&self, line: u32) -> Option<std::ops::Range<usize>> {
        let i = (line as usize).checked_sub(1)?;
        let start = *self.starts.get(i)?;
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.len, |next| next.saturating_sub(1));
        Some(start..end.max(start))
    }

    /// Byte offset of `at` in `text` (the text this index was built from); a column past the
    /// end of its line clamps to the line's end, a line past the end to the text's end.
    pub fn offset(&self, text: &str, at: LineCol) -> usize {
        let Some(r) = self.line_range(at.line) else {
            return self.len;
        };
        let col = at.col as usize;
        if self.ascii[at.line as usize - 1] {
            return r.start + col.min(r.len());
        }
        let line = text.get(r.clone()).unwrap_or("");
        r.start + line.char_indices().nth(col).map_or(line.len(), |(b, _)| b)
    }

    /// Byte range of a span (empty for a dummy span; an empty span stays a caret).
    pub fn range(&self, text: &str, s: Span) -> std::ops::Range<usize> {
        if s.is_dummy() {
            return 0..0;
        }
        let a = self.offset(text, s.start);
        let b = self.offset(text, s.end).max(a);
        a..b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(l0: u32, c0: u32, l1: u32, c1: u32) -> Span {
        Span {
            start: LineCol { line: l0, col: c0 },
            end: LineCol { line: l1, col: c1 },
            first_token: 0,
            last_token: 0,
        }
    }

    #[test]
    fn line_index_maps_columns_to_bytes() {
        let text = "ab\n€x y\n\nlast";
        let ix = LineIndex::new(text);
        assert_eq!(ix.lines(), 4);
        assert_eq!(ix.range(text, span(1, 1, 1, 2)), 1..2);
        // `€` is three bytes: column 1 of line 2 is byte 3 + 3.
        assert_eq!(&text[ix.range(text, span(2, 1, 2, 2))], "x");
        assert_eq!(&text[ix.range(text, span(4, 0, 4, 4))], "last");
        // Past the end of a line or of the text: clamped.
        assert_eq!(ix.range(text, span(1, 9, 1, 9)), 2..2);
        assert_eq!(ix.range(text, span(9, 0, 9, 1)), text.len()..text.len());
        assert_eq!(ix.range(text, Span::DUMMY), 0..0);
    }
}
