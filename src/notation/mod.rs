//! The notation: reading game files into [`Record`]s and writing them back canonically.
//!
//! This layer knows PGN and the extension rules every game's turn syntax follows; it knows
//! nothing of any game's board. Turn tokens stay raw strings here; a game's turn parser
//! reads them (see [`crate::games::Game::parse_turn`]).

pub mod record;

pub use record::{Comment, Line, Nag, Record, Span, Tag, TurnNode};
