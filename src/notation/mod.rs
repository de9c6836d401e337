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
//!
//! # How it is built
//!
//! The record model (`record`: `Record`, `Tag`, `Line`, `TurnNode`, `Comment`, `Nag`,
//! `Span`; text is `CompactString`, so the usual token, tag and clock comment needs no
//! allocation), the streaming `reader` (`Reader`: a byte-level splitter finds where each
//! game starts with memchr, a line of movetext with comments at once when it has no `;`
//! (the last brace on it says whether it ends in a comment), then `grammar` parses that one
//! game with nom 8, one function per
//! rule with its EBNF above it, the same EBNF as `notation/grammar.md`; `locate` turns byte
//! offsets into lines and columns going forward; `Boundaries` (the splitter, for a caller
//! that holds the bytes), `Reader::at` (a reader of the rest of an input from a game
//! boundary) and `Reader::feed` (one chunk given from elsewhere, read from any game in it
//! with `skip_to`, `next_offset` saying where the next game starts) let the raw pieces of
//! one input be read on other threads with the same records and spans, as do
//! `Reader::next_chunk` and `feed`; `Reader::next_streamed` streams a plain game to a
//! `notation::Visitor` (a type parameter, so the visitor's calls inline) through
//! `grammar::stream`, the plain subset of the same rules on bytes, without nom or spans,
//! sharing the gap and move-number scans with the full rules (its movetext loop dispatches
//! on a byte-class table with the gap folded in, and reads the usual move number in one
//! step; property tests compare the two on random text, and the skimming splitter with the
//! byte-by-byte one), and reads any
//! other game, or one the visitor gives up, into a record; a
//! chunk's line index is built only when a game of it is located), and the canonical `writer`
//! (`write_record`, `complete_roster`, `Numbering`).
//!
//! Invariants: the reader holds one game at a time (capped, 16 MiB by default), so memory
//! is flat however large the input; games without tags share one chunk of text, located in
//! one pass over it (`locate::Cursor`); a game that is not UTF-8 is an error unless a
//! fallback encoding is set; every error carries the byte offset, line, column and
//! game number; after an error the reader resynchronises at the next game. `Span` compares
//! equal to every other span, so `parse(write(r)) == r` for records in canonical form and
//! `write(parse(x))` is a fixed point.

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
