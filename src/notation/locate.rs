//! Line and column of byte offsets, counted once per game as the parse moves forward.

use memchr::{memchr_iter, memrchr};

use super::record::Span;

/// Turns byte offsets in a game's text into spans of the whole input.
///
/// Offsets are mostly asked for in increasing order (the parse goes forward), so the
/// locator keeps the last position and counts only the text between it and the next
/// one. Asking for an earlier offset starts again from the beginning of the text.
#[derive(Debug)]
pub(crate) struct Locator<'a> {
    pub(crate) text: &'a str,
    /// Where `text` starts in the input.
    base: Span,
    /// The text is all ASCII: columns are byte counts.
    ascii: bool,
    /// The last offset located, its line (counted from 0 in the text) and column.
    offset: usize,
    line: u32,
    column: u32,
}

impl<'a> Locator<'a> {
    pub(crate) fn new(text: &'a str, base: Span) -> Locator<'a> {
        Locator {
            text,
            base,
            ascii: text.is_ascii(),
            offset: 0,
            line: 0,
            column: base.column,
        }
    }

    /// The span of byte `offset` of the text (a character boundary).
    pub(crate) fn locate(&mut self, offset: usize) -> Span {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            self.offset = 0;
            self.line = 0;
            self.column = self.base.column;
        }
        let bytes = &self.text.as_bytes()[self.offset..offset];
        match memrchr(b'\n', bytes) {
            None => self.column = self.column.saturating_add(self.count(self.offset, offset)),
            Some(last) => {
                let newlines = memchr_iter(b'\n', bytes).count();
                self.line = self.line.saturating_add(to_u32(newlines));
                let line_start = self.offset + last + 1;
                self.column = 1u32.saturating_add(self.count(line_start, offset));
            }
        }
        self.offset = offset;
        Span {
            offset: self.base.offset + offset,
            line: self.base.line.saturating_add(self.line),
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
        let mut locator = Locator::new(text, base);
        let at = |locator: &mut Locator<'_>, offset| {
            let span = locator.locate(offset);
            (span.offset, span.line, span.column)
        };
        assert_eq!(at(&mut locator, 1), (101, 7, 6));
        assert_eq!(at(&mut locator, 5), (105, 8, 2));
        assert_eq!(at(&mut locator, 9), (109, 10, 2));
        assert_eq!(at(&mut locator, 0), (100, 7, 5));
        assert_eq!(at(&mut locator, 7), (107, 9, 1));
    }
}
