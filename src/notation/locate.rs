//! Line and column of byte offsets, from a line index built once per game.

use memchr::memchr_iter;

use super::record::Span;

/// Fills `line_starts` with the offset just after each newline of `text`.
pub(crate) fn index_lines(text: &str, line_starts: &mut Vec<usize>) {
    line_starts.clear();
    line_starts.extend(memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
}

/// Where a [`Locator`] stands in a text: kept between the games of one chunk.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cursor {
    ascii: bool,
    offset: usize,
    line: usize,
    column: u32,
}

impl Cursor {
    /// The start of `text`, which starts at `base` in the input.
    pub(crate) fn start(text: &str, base: Span) -> Cursor {
        Cursor {
            ascii: text.is_ascii(),
            offset: 0,
            line: 0,
            column: base.column,
        }
    }
}

/// Turns byte offsets in a game's text into spans of the whole input.
///
/// Offsets are mostly asked for in increasing order (the parse goes forward), so the
/// locator keeps the last position and only moves forward through the line index and the
/// text between the two. Asking for an earlier offset looks its line up again.
#[derive(Debug)]
pub(crate) struct Locator<'a> {
    pub(crate) text: &'a str,
    /// Where `text` starts in the input.
    base: Span,
    /// The offsets just after each newline of `text`.
    line_starts: &'a [usize],
    /// The text is all ASCII: columns are byte counts.
    ascii: bool,
    /// The last offset located, its line (the number of newlines before it) and column.
    offset: usize,
    line: usize,
    column: u32,
}

impl<'a> Locator<'a> {
    /// A locator for `text`, which starts at `base` in the input and whose newlines are
    /// indexed in `line_starts` (see [`index_lines`]).
    pub(crate) fn new(text: &'a str, base: Span, line_starts: &'a [usize]) -> Locator<'a> {
        Locator {
            text,
            base,
            line_starts,
            ascii: text.is_ascii(),
            offset: 0,
            line: 0,
            column: base.column,
        }
    }

    /// A locator that goes on from where an earlier one over the same text stopped
    /// ([`Locator::cursor`]), so that many games in one chunk of text are located in one
    /// pass over it rather than each from its start.
    pub(crate) fn resume(
        text: &'a str,
        base: Span,
        line_starts: &'a [usize],
        cursor: Cursor,
    ) -> Locator<'a> {
        Locator {
            text,
            base,
            line_starts,
            ascii: cursor.ascii,
            offset: cursor.offset,
            line: cursor.line,
            column: cursor.column,
        }
    }

    /// Where this locator stands, to [`Locator::resume`] from.
    pub(crate) fn cursor(&self) -> Cursor {
        Cursor {
            ascii: self.ascii,
            offset: self.offset,
            line: self.line,
            column: self.column,
        }
    }

    /// The span of byte `offset` of the text (a character boundary).
    pub(crate) fn locate(&mut self, offset: usize) -> Span {
        let offset = offset.min(self.text.len());
        let starts = self.line_starts;
        let line = if offset >= self.offset {
            let mut line = self.line;
            while starts.get(line).is_some_and(|&start| start <= offset) {
                line += 1;
            }
            line
        } else {
            starts.partition_point(|&start| start <= offset)
        };
        self.column = if line == self.line && offset >= self.offset {
            self.column.saturating_add(self.count(self.offset, offset))
        } else if line == 0 {
            self.base.column.saturating_add(self.count(0, offset))
        } else {
            1u32.saturating_add(self.count(starts[line - 1], offset))
        };
        self.offset = offset;
        self.line = line;
        Span {
            offset: self.base.offset + offset,
            line: self.base.line.saturating_add(to_u32(line)),
            column: self.column,
        }
    }

    /// The span of a grammar's span marker (which holds the bytes left in the text).
    pub(crate) fn resolve(&mut self, marker: Span) -> Span {
        self.locate(self.text.len().saturating_sub(marker.offset))
    }

    /// The number of characters between two offsets.
    fn count(&self, from: usize, to: usize) -> u32 {
        if self.ascii {
            return to_u32(to - from);
        }
        let text = self.text.get(from..to).unwrap_or("");
        // Bytes that do not continue a UTF-8 sequence.
        to_u32(text.bytes().filter(|&byte| (byte as i8) >= -0x40).count())
    }
}

/// The span of byte `offset` of `text`, which starts at `base` in the input, found by
/// counting from the start of the text (for the rare span asked for without a line index).
pub(crate) fn locate_by_counting(text: &str, base: Span, offset: usize) -> Span {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let newlines = memchr_iter(b'\n', before).count();
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |at| at + 1);
    // Bytes that do not continue a UTF-8 sequence.
    let chars = to_u32(
        before[line_start..]
            .iter()
            .filter(|&&byte| (byte as i8) >= -0x40)
            .count(),
    );
    Span {
        offset: base.offset + before.len(),
        line: base.line.saturating_add(to_u32(newlines)),
        column: if newlines == 0 {
            base.column.saturating_add(chars)
        } else {
            1u32.saturating_add(chars)
        },
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_in_order_and_backwards() {
        let base = Span {
            offset: 100,
            line: 7,
            column: 5,
        };
        let text = "ab\nçd\n\nxyz";
        let mut line_starts = Vec::new();
        index_lines(text, &mut line_starts);
        let mut locator = Locator::new(text, base, &line_starts);
        let mut at = |offset| {
            let span = locator.locate(offset);
            (span.offset, span.line, span.column)
        };
        assert_eq!(at(1), (101, 7, 6));
        assert_eq!(at(5), (105, 8, 2));
        assert_eq!(at(9), (109, 10, 2));
        assert_eq!(at(0), (100, 7, 5));
        assert_eq!(at(7), (107, 9, 1));
        assert_eq!(at(11), (111, 10, 4));
        for offset in 0..=text.len() {
            if text.is_char_boundary(offset) {
                let mut locator = Locator::new(text, base, &line_starts);
                let (counted, located) = (
                    locate_by_counting(text, base, offset),
                    locator.locate(offset),
                );
                assert_eq!(
                    (counted.offset, counted.line, counted.column),
                    (located.offset, located.line, located.column),
                    "{offset}"
                );
            }
        }
    }
}
