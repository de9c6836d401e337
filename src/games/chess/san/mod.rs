//! Turn tokens: Standard Algebraic Notation read leniently (with long algebraic and UCI
//! coordinates), resolved against a position, and written canonically.
//!
//! The grammar (also in `notation/chess.md`):
//!
//! ```text
//! turn       = ( castling | move ) [ "e.p." ] [ marker ]
//! castling   = O "-" O [ "-" O ]                 ; O = "O" | "0"
//! move       = [ piece ] [ file ] [ rank ] [ "x" | ":" | "-" ] square [ promotion ]
//! piece      = "K" | "Q" | "R" | "B" | "N" | "P"
//! square     = file rank
//! promotion  = [ "=" ] letter | "(" letter ")"   ; letter = Q R B N, either case
//! marker     = "+" | "++" | "#"
//! ```

//!
//! The module is split the way a token is handled: [`San::parse`] in `read` (the lenient
//! reader, with a fast path for the shapes of real games), resolving against a position
//! in `resolve` (the fast path looking back from the target square, and the reasons a
//! token fits no legal move, in words), and the canonical writer here, with the types.

use std::fmt;

use super::Chess;
use super::bitboard::Bitboard;
use super::movegen::{Move, MoveKind, TargetList};
use super::types::{CastlingSide, Role, Square};

mod read;
mod resolve;
#[cfg(test)]
mod tests;

pub(crate) use resolve::resolve;

/// The check or mate claim written after a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CheckMarker {
    /// No marker.
    #[default]
    None,
    /// `+` (or the old `++`): the move gives check.
    Check,
    /// `#`: the move mates.
    Mate,
}

/// What a turn token says to do, without its marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SanMove {
    /// A move named by the piece letter (none for a pawn), an optional origin file and/or
    /// rank, and the destination: `Nbd2`, `exd5`, `e8=Q`, also long algebraic `Ng1-f3`.
    Piece {
        /// The kind of piece moving.
        role: Role,
        /// The origin file, 0 = a, when given.
        file: Option<u8>,
        /// The origin rank, 0 = the first, when given.
        rank: Option<u8>,
        /// Whether the token says the move captures.
        capture: bool,
        /// The destination.
        to: Square,
        /// The promotion piece, when given.
        promotion: Option<Role>,
    },
    /// Two squares and no piece letter: UCI `e2e4` or long algebraic `e2-e4`. The piece
    /// is whatever stands on `from`; a king moving two squares (or onto its own rook)
    /// castles.
    Coordinate {
        /// The origin.
        from: Square,
        /// The destination.
        to: Square,
        /// Whether the token says the move captures (`e4xd5`).
        capture: bool,
        /// The promotion piece, when given.
        promotion: Option<Role>,
    },
    /// `O-O` or `O-O-O`.
    Castle(CastlingSide),
    /// A null move, `--` (also read: `Z0`, `0000`, `@@@@`): the side to move passes.
    /// Analysis records use it; it is not a FIDE move, so it is never generated, but a
    /// record may contain it when the side to move is not in check.
    Null,
}

/// A turn token read without a board. `Display` writes it back in one canonical spelling
/// (`e8=Q`, `O-O`, `e2-e4`), which parses to the same value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct San {
    /// The move.
    pub turn: SanMove,
    /// The check or mate claim.
    pub marker: CheckMarker,
}

impl fmt::Display for SanMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SanMove::Null => f.write_str("--"),
            SanMove::Piece {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } => {
                if role != Role::Pawn {
                    write!(f, "{}", role.upper_char())?;
                }
                if let Some(file) = file {
                    write!(f, "{}", char::from(b'a' + file))?;
                }
                if let Some(rank) = rank {
                    write!(f, "{}", char::from(b'1' + rank))?;
                }
                if capture {
                    f.write_str("x")?;
                }
                write!(f, "{to}")?;
                if let Some(role) = promotion {
                    write!(f, "={}", role.upper_char())?;
                }
                Ok(())
            }
            SanMove::Coordinate {
                from,
                to,
                capture,
                promotion,
            } => {
                write!(f, "{from}{}{to}", if capture { 'x' } else { '-' })?;
                if let Some(role) = promotion {
                    write!(f, "={}", role.upper_char())?;
                }
                Ok(())
            }
            SanMove::Castle(side) => f.write_str(side.notation()),
        }
    }
}

impl fmt::Display for San {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.turn)?;
        f.write_str(match self.marker {
            CheckMarker::None => "",
            CheckMarker::Check => "+",
            CheckMarker::Mate => "#",
        })
    }
}

/// The canonical SAN of a legal move: minimal disambiguation (the file if it tells the
/// pieces apart, else the rank, else both), `x` for captures, `=Q`, `O-O`, and `+`/`#`.
pub(crate) fn write(position: &Chess, m: &Move) -> String {
    let mut text = String::with_capacity(8);
    if m.kind == MoveKind::Null {
        text.push_str("--");
    } else if let Some(side) = m.castling_side() {
        text.push_str(side.notation());
    } else if m.role == Role::Pawn {
        if m.is_capture() {
            text.push(m.from.file_char());
            text.push('x');
        }
        text.push_str(&m.to.to_string());
        if let Some(role) = m.promotion {
            text.push('=');
            text.push(role.upper_char());
        }
    } else {
        text.push(m.role.upper_char());
        let others = position
            .board
            .by_piece(position.turn, m.role)
            .without(m.from);
        if others.any() {
            let mut rivals_moves = TargetList::new();
            position.generate(others, Bitboard::from_square(m.to), &mut rivals_moves);
            let rivals = rivals_moves
                .iter()
                .filter(|r| r.kind != MoveKind::Castle)
                .fold(Bitboard::EMPTY, |set, r| set.with(r.from));
            if rivals.any() {
                if (rivals & Bitboard::file(m.from.file())).is_empty() {
                    text.push(m.from.file_char());
                } else if (rivals & Bitboard::rank(m.from.rank())).is_empty() {
                    text.push(m.from.rank_char());
                } else {
                    text.push_str(&m.from.to_string());
                }
            }
        }
        if m.is_capture() {
            text.push('x');
        }
        text.push_str(&m.to.to_string());
    }
    let mut next = position.clone();
    next.play_move(m);
    if next.is_check() {
        text.push(if next.has_no_legal_move() { '#' } else { '+' });
    }
    text
}
