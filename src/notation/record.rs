//! The record: what a game file says, before any game's rules look at it.
//!
//! A record holds tag pairs and a movetext tree of raw turn tokens with comments,
//! annotation glyphs and variations. Every piece carries the [`Span`] it was read from.
//! Spans are provenance, not content: two records that differ only in where they were
//! read compare equal, so `parse(write(record)) == record` holds.

use compact_str::CompactString;

use crate::games::{GameResult, Tags};

/// Where something was read: byte offset in the whole input, and 1-based line and column
/// (the column counts characters, not bytes).
#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct Span {
    /// Byte offset from the start of the input (the file or stream).
    pub offset: usize,
    /// Line number, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub column: u32,
}

impl Span {
    /// The start of an input: offset 0, line 1, column 1.
    pub const START: Span = Span {
        offset: 0,
        line: 1,
        column: 1,
    };
}

impl PartialEq for Span {
    /// Always true: a span says where a thing was read, not what it is.
    fn eq(&self, _other: &Span) -> bool {
        true
    }
}

impl std::hash::Hash for Span {
    fn hash<H: std::hash::Hasher>(&self, _state: &mut H) {}
}

/// One tag pair, `[Name "value"]`, with its value unescaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The tag name, as written (PGN tag names are case-sensitive).
    pub name: CompactString,
    /// The value without quotes, with `\"` and `\\` unescaped.
    pub value: CompactString,
    /// Where the `[` was.
    pub span: Span,
}

/// A comment, `{...}` or `; ...` to the end of the line, with its text trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The text between the delimiters, with surrounding white space removed.
    pub text: CompactString,
    /// Where the comment started.
    pub span: Span,
}

/// A Numeric Annotation Glyph: `$1`..`$255`; `!`, `?`, `!!`, `??`, `!?`, `?!` are read as
/// `$1`..`$6`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Nag(pub u8);

/// The move number written before a turn (`12.`, `12...`, or `...` alone), as it was
/// written. Like a [`Span`] it is provenance: it compares equal to every other, since the
/// writer numbers turns from the position, so `parse(write(record)) == record` holds.
#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct WrittenNumber {
    /// The number, when one was written.
    pub number: Option<u32>,
    /// Whether dots said it is the second player's turn (`12...`, `...`).
    pub ellipsis: bool,
    /// Where the number was written.
    pub span: Span,
}

impl WrittenNumber {
    /// Whether anything was written.
    #[must_use]
    pub fn is_written(&self) -> bool {
        self.number.is_some() || self.ellipsis
    }
}

impl PartialEq for WrittenNumber {
    /// Always true: how a turn was numbered is provenance, not content.
    fn eq(&self, _other: &WrittenNumber) -> bool {
        true
    }
}

impl std::hash::Hash for WrittenNumber {
    fn hash<H: std::hash::Hasher>(&self, _state: &mut H) {}
}

/// One turn of one player as written: a raw token that the game's turn grammar reads,
/// with what follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnNode {
    /// The turn token, without move number and without trailing `!`/`?` glyphs.
    pub token: CompactString,
    /// Where the token starts.
    pub span: Span,
    /// The move number written just before the token, if any.
    pub number: WrittenNumber,
    /// Annotation glyphs after the token.
    pub nags: Vec<Nag>,
    /// Comments after the token (before the next turn).
    pub comments: Vec<Comment>,
    /// Alternatives to this turn: each variation starts from the position before it.
    pub variations: Vec<Line>,
}

impl TurnNode {
    /// A bare turn token with nothing attached.
    pub fn new(token: impl AsRef<str>) -> TurnNode {
        TurnNode {
            token: CompactString::new(token),
            span: Span::default(),
            number: WrittenNumber::default(),
            nags: Vec::new(),
            comments: Vec::new(),
            variations: Vec::new(),
        }
    }
}

/// A sequence of turns: the main line of a game, or a variation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// Comments before the first turn.
    pub comments: Vec<Comment>,
    /// The turns, in order.
    pub turns: Vec<TurnNode>,
}

/// One game as read from a file: tag pairs, movetext and the termination marker.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// The tag pairs in the order they were read.
    pub tags: Vec<Tag>,
    /// The main line, with its variations inside.
    pub moves: Line,
    /// The game termination marker at the end of the movetext, if there was one.
    pub result: Option<GameResult>,
    /// Where the termination marker was (meaningful only when `result` is set).
    pub result_span: Span,
    /// Where the game started in the input.
    pub span: Span,
    /// The game's number in its file, from 1.
    pub number: usize,
}

impl Record {
    /// The value of the first tag with this name.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|tag| tag.name == name)
            .map(|tag| tag.value.as_str())
    }

    /// The tag with this name, if present.
    #[must_use]
    pub fn tag_pair(&self, name: &str) -> Option<&Tag> {
        self.tags.iter().find(|tag| tag.name == name)
    }

    /// Sets a tag's value, replacing the first tag of that name or appending a new one.
    pub fn set_tag(&mut self, name: &str, value: impl AsRef<str>) {
        let value = CompactString::new(value);
        match self.tags.iter_mut().find(|tag| tag.name == name) {
            Some(tag) => tag.value = value,
            None => self.tags.push(Tag {
                name: CompactString::new(name),
                value,
                span: Span::default(),
            }),
        }
    }
}

impl Tags for Record {
    fn tag(&self, name: &str) -> Option<&str> {
        Record::tag(self, name)
    }
}
