//! Line and column of byte offsets, counted once per game.

use super::record::Span;

/// Turns byte offsets in a game's text into spans of the whole input.
#[derive(Debug)]
pub(crate) struct Locator<'a> {
    pub(crate) text: &'a str,
    /// Where `text` starts in the input.
    base: Span,
    line_starts: &'a [usize],
    /// The last position located (line index, offset, column), so that positions met in
    /// order along a long line are counted once.
    last: (usize, usize, u32),
}

impl<'a> Locator<'a> {
    pub(crate) fn new(text: &'a str, base: Span, line_starts: &'a [usize]) -> Locator<'a> {
        Locator {
            text,
            base,
            line_starts,
            last: (0, 0, base.column),
        }
    }

    /// The span of byte `offset` of the text (a character boundary).
    pub(crate) fn locate(&mut self, offset: usize) -> Span {
        // Positions come mostly in order: try the line of the last one, then the next.
        let starts = self.line_starts;
        let on_line = |index: usize| {
            index <= starts.len()
                && (index == 0 || starts[index - 1] <= offset)
                && starts.get(index).is_none_or(|&next| offset < next)
        };
        let index = if on_line(self.last.0) {
            self.last.0
        } else if on_line(self.last.0 + 1) {
            self.last.0 + 1
        } else {
            starts.partition_point(|&start| start <= offset)
        };
        let (from, column) = if self.last.0 == index && self.last.1 <= offset {
            (self.last.1, self.last.2)
        } else if index == 0 {
            (0, self.base.column)
        } else {
            (self.line_starts[index - 1], 1)
        };
        let counted = self.text.get(from..offset).map_or(0, count_chars);
        let column = column.saturating_add(u32::try_from(counted).unwrap_or(u32::MAX));
        self.last = (index, offset, column);
        Span {
            offset: self.base.offset + offset,
            line: self
                .base
                .line
                .saturating_add(u32::try_from(index).unwrap_or(u32::MAX)),
            column,
        }
    }

    /// The span of a grammar's span marker (which holds the bytes left in the text).
    pub(crate) fn resolve(&mut self, marker: Span) -> Span {
        self.locate(self.text.len() - marker.offset)
    }
}

/// The number of characters in `text`: its bytes that do not continue a UTF-8 sequence.
/// (A plain loop the compiler vectorises; cheaper than `chars().count()` on short text.)
fn count_chars(text: &str) -> usize {
    text.bytes().filter(|&byte| (byte as i8) >= -0x40).count()
}
