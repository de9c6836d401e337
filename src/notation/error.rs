//! The errors of reading a game file: where the text is wrong and why, or why it could not
//! be read at all.

use super::record::Span;

/// The text of a game does not follow the notation's grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} (game {game}, line {line}, column {column})", line = span.line, column = span.column)]
pub struct ParseError {
    /// What was expected and what was found, in words (lowercase, no trailing period).
    pub message: String,
    /// Where the problem is in the whole input.
    pub span: Span,
    /// The number of the game in its file, from 1.
    pub game: usize,
}

/// Reading a game failed: the input could not be read, or a game in it is malformed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The underlying reader failed; reading stops there.
    #[error("cannot read the input: {0}")]
    Io(#[from] std::io::Error),
    /// A game is malformed; the next call goes on with the next game.
    #[error(transparent)]
    Parse(#[from] ParseError),
}
