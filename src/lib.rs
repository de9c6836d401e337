//! pbem: chess variants by email.
//!
//! The library reads and writes pbem's PGN-like notation ([`notation`]), plays six games
//! by their rules ([`games`]: orthodox chess, Chesica, Chesscala, Chess with wickets,
//! African Chess, Cascudo), replays whole records to find what is wrong with them
//! ([`replay`]) and many files of them in parallel ([`batch`]), draws their boards ([`render`]) and what a player clicks on them ([`board`]), converts other programs' records
//! ([`convert`]), and carries games by mail with fair chance ([`correspondence`],
//! [`mail`], [`fair`], [`store`], and [`desk`], which does what the play and mail
//! commands do). The `pbem` binary is a thin layer over it ([`cli`]).
//! What follows are the four things a user of the library does.
//!
//! # Read a file of games and validate it
//!
//! [`notation::Reader`] streams the games of any reader one at a time (memory stays flat
//! however large the file), and [`replay::replay`] replays each through the rules of the
//! game its `[Variant]` tag names:
//!
//! ```
//! use std::fs::File;
//! use std::io::BufReader;
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mistakes.pgn");
//! let mut invalid = 0;
//! for record in pbem::notation::Reader::new(BufReader::new(File::open(path)?)) {
//!     let record = record?;
//!     let report = pbem::replay::replay(&record);
//!     for finding in report.errors() {
//!         // Each finding says where (line, column, ply) and why, with the legal turns.
//!         let line = finding.span.line;
//!         println!("game {}, line {line}: {}", record.number, finding.message);
//!     }
//!     invalid += usize::from(!report.is_valid());
//! }
//! assert!(invalid > 0, "the bundled mistakes are found");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # List the legal turns of a position, in any game
//!
//! A game is a type implementing [`games::Game`]; [`games::Variant`] picks one by name at
//! run time and [`with_game!`] turns it into the type:
//!
//! ```
//! use pbem::games::{Game, Variant};
//!
//! let variant = Variant::from_name("Chess with wickets").expect("a game pbem knows");
//! let turns: Vec<String> = pbem::with_game!(variant, G => {
//!     let start = G::start();
//!     let mut legal = Vec::new();
//!     start.legal_turns(&mut legal);
//!     legal.iter().map(|turn| start.write_turn(turn)).collect()
//! });
//! assert_eq!(turns.len(), 21);
//! assert!(turns.contains(&"Nf3".to_owned()));
//! ```
//!
//! # Play a turn and write the record back
//!
//! A typed token is read without a board ([`games::Game::parse_turn`]), resolved against
//! the position ([`games::Game::resolve`]: the legal turn, or the reason in words),
//! written canonically, and the record written by [`notation::record_to_string`]:
//!
//! ```
//! use pbem::games::{Chesica, Game};
//! use pbem::notation::{self, Numbering, TurnNode};
//!
//! let mut record = notation::parse_record("[Variant \"Chesica\"]\n\n1. Qe2 Re6 *")?;
//! let replayed = pbem::replay::replay_game::<Chesica>(&record);
//! let position = replayed.position.expect("the game replays");
//! let turn = position.resolve(&Chesica::parse_turn("Qd1")?)?;
//! record.moves.turns.push(TurnNode::new(position.write_turn(&turn)));
//! let text = notation::record_to_string(&record, Numbering::from_tags(&record));
//! assert!(text.contains("1. Qe2 Re6 2. Qd1 *"), "{text}");
//! // Every record pbem writes, it reads back and validates.
//! assert!(pbem::replay::replay(&notation::parse_record(&text)?).is_valid());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Render a board
//!
//! [`render::svg()`] draws a position (with its last turn marked, when given) as SVG, the
//! same bytes every time; [`render::png`] rasterises it:
//!
//! ```
//! use pbem::games::{Cascudo, Game};
//!
//! let start = Cascudo::start();
//! let svg = pbem::render::svg(&start, None);
//! assert!(svg.starts_with("<svg"));
//! let png = pbem::render::png(&svg, 280)?;
//! assert_eq!(&png[1..4], b"PNG");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The name other crates use, for the few files compiled both in the crate's tests and
// outside it (the fair-chance fixtures, which `benches/fair.rs` includes by path).
#[cfg(test)]
extern crate self as pbem;

pub mod batch;
pub mod board;
pub mod clock;
pub mod config;
pub mod convert;
pub mod correspondence;
pub mod desk;
pub mod fair;
pub mod games;
pub mod mail;
pub mod notation;
pub mod render;
pub mod replay;
pub mod store;

pub mod cli;
