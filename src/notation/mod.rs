//! The notation: reading game files into [`Record`]s and writing them back canonically.
//!
//! This layer knows PGN and the extension rules every game's turn syntax follows; it knows
//! nothing of any game's board. Turn tokens stay raw strings here; a game's turn parser
//! reads them (see [`crate::games::Game::parse_turn`]).
//!
//! - [`Reader`] streams the games of a file one [`Record`] at a time; [`read_str`] and
//!   [`parse_record`] are shortcuts for text in memory.
//! - [`write_record`] writes a record in the canonical export format; reading its output
//!   gives the same record back.
//!
//! The grammar is specified in `notation/grammar.md`, one rule per function of the
//! (private) grammar module.

pub mod error;
mod grammar;
mod locate;
pub mod reader;
pub mod record;
pub mod writer;

pub use error::{ParseError, ReadError};
pub use grammar::{Token, Visitor};
pub use reader::{
    Boundaries, Chunk, DEFAULT_MAX_GAME_BYTES, Decoded, Reader, parse_record, read_str,
};
pub use record::{Comment, Line, Nag, Record, Span, Tag, TurnNode, WrittenNumber};
pub use writer::{Numbering, SEVEN_TAG_ROSTER, complete_roster, record_to_string, write_record};
