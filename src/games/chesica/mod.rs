//! Chesica, Frederick S. Copley's chess and checkers hybrid of 1864, as Peter Aronson
//! reconstructed it (the project's rulings settle what his page leaves open).
//!
//! All 64 squares are used. Each side has four Queens, four Rooks and four Bishops, set
//! up like checkers men. An unpromoted piece steps and jumps diagonally forward like a
//! checker and adds a little of its chess move; on the far rank it promotes, steps and
//! jumps like a checkers king and adds its whole chess move. Jumping is compulsory for
//! the whole side, a jumping piece goes on jumping while it can, jumped pieces leave at
//! once, replacement captures are allowed only when no piece can jump, and promotion ends
//! the turn. A side with no legal turn loses; taking every opposing piece wins. A turn
//! that would make a position occur for the third time is illegal: the replay enforces
//! that ([`RepetitionRule::IllegalAt`]), since a position does not know its history.
//!
//! The position is a 64-square array ([`Board`]); turns ([`Turn`]) are fixed-size
//! values holding every landing square of a jump chain. Tokens read into [`Notation`]
//! without a board.
//!
//! # How it is built
//!
//! Chesica, Copley's chess and checkers hybrid as reconstructed by Aronson. `board` (`Role`,
//! `Piece` with its promoted flag, the 64-square `Board`, the position string with `+`
//! before a promoted piece), `movegen` (`Turn`: origin, kind and up to `MAX_JUMPS` = 9
//! landing squares in a fixed array; jump chains found depth-first on a copy of the board
//! with the jumper lifted and each jumped piece removed at once; steps, slides and
//! replacement captures only when no piece can jump), `notation` (`Notation`: the board-free
//! token, chess style for steps and captures, draughts style for jumps, the short form of a
//! chain; `resolve` with the reasons in words; the canonical writer).
//!
//! Invariants: a chain is recorded only when the piece can jump no more or has just
//! promoted; a jump is matched only by a token that names its origin square; the
//! repetition ban (`RepetitionRule::IllegalAt(3)`) is the replay's, and `pbem legal` applies
//! it from the game file's history.

mod board;
mod movegen;
mod notation;

use std::fmt::Write as _;

pub use board::{Board, Piece, Role};
pub use movegen::{MAX_JUMPS, Turn, TurnKind};
pub use notation::Notation;

use crate::games::chess::types::Role as ChessRole;
use crate::games::chess::{CHESS_KINDS, Square};
use crate::games::snapshot::square_names;
use crate::games::{Man, PieceKind, Snapshot, Stacking};

/// Chesica's pieces as the converters name them: the chess bishop, rook and queen, and
/// each promoted.
const CHESICA_KINDS: [PieceKind; 6] = [
    CHESS_KINDS[ChessRole::Bishop as usize],
    CHESS_KINDS[ChessRole::Rook as usize],
    CHESS_KINDS[ChessRole::Queen as usize],
    PieceKind {
        name: "Promoted Bishop",
        label: "+B",
    },
    PieceKind {
        name: "Promoted Rook",
        label: "+R",
    },
    PieceKind {
        name: "Promoted Queen",
        label: "+Q",
    },
];
use crate::games::{
    Color, DrawReason, Forbidden, Game, IllegalTurn, Outcome, RepetitionRule, SetupError,
    TurnSyntaxError, Variant, WinReason, splitmix,
};

/// A position of Chesica: the board, the side to move and the move number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chesica {
    board: Board,
    turn: Color,
    fullmove_number: u32,
}

impl Chesica {
    /// The piece on a square.
    #[must_use]
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        self.board[square.index()]
    }

    /// How many pieces a side has on the board.
    #[must_use]
    pub fn piece_count(&self, color: Color) -> usize {
        self.board
            .iter()
            .flatten()
            .filter(|piece| piece.color == color)
            .count()
    }
}

impl Game for Chesica {
    type Turn = Turn;
    type Syntax = Notation;

    /// Unpromoted pieces are `Bishop`, `Rook`, `Queen` (`B`, `R`, `Q`); promoted ones
    /// `Promoted Bishop` and so on (`+B`, `+R`, `+Q`), as the position string writes them.
    const PIECE_KINDS: &'static [PieceKind] = &CHESICA_KINDS;

    fn snapshot(&self) -> Option<Snapshot> {
        let mut snapshot = Snapshot::new(Stacking::Single, square_names());
        for (place, piece) in snapshot.places.iter_mut().zip(self.board.iter()) {
            if let Some(piece) = piece {
                let role = match piece.role {
                    Role::Bishop => 0,
                    Role::Rook => 1,
                    Role::Queen => 2,
                };
                place.pieces.push(Man {
                    color: piece.color,
                    kind: CHESICA_KINDS[role + if piece.promoted { 3 } else { 0 }],
                });
            }
        }
        Some(snapshot)
    }

    const VARIANT: Variant = Variant::Chesica;
    const REPETITION: RepetitionRule = RepetitionRule::IllegalAt(3);

    fn start() -> Chesica {
        Chesica {
            board: board::start_board(),
            turn: Color::White,
            fullmove_number: 1,
        }
    }

    /// Reads `placement side [fullmove]`, for example the start,
    /// `1q1q1q1q/r1r1r1r1/1b1b1b1b/8/8/B1B1B1B1/1R1R1R1R/Q1Q1Q1Q1 w 1`.
    fn from_position_string(text: &str) -> Result<Chesica, SetupError> {
        let (board, turn, fullmove_number) =
            crate::games::read_placement_side_fullmove(text, board::read_placement)?;
        board::check_board(&board).map_err(|error| error.or_in_field(1))?;
        Ok(Chesica {
            board,
            turn,
            fullmove_number,
        })
    }

    fn position_string(&self) -> String {
        let mut out = String::with_capacity(64);
        board::write_placement(&self.board, &mut out);
        let side = crate::games::side_field(self.turn);
        let _ = write!(out, " {side} {}", self.fullmove_number);
        out
    }

    /// Two characters a square: the letter, with `+` before it when promoted.
    fn diagram(&self) -> String {
        let mut out = String::with_capacity(200);
        for rank in (0..8).rev() {
            let _ = write!(out, "{}", rank + 1);
            for file in 0..8 {
                match self.board[Square::from_coords(file, rank).index()] {
                    None => out.push_str(" ."),
                    Some(piece) => {
                        out.push(if piece.promoted { '+' } else { ' ' });
                        out.push(piece.char());
                    }
                }
            }
            out.push('\n');
        }
        out.push_str("  a b c d e f g h\n");
        out
    }

    fn side_to_move(&self) -> Color {
        self.turn
    }

    fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    fn legal_turns(&self, out: &mut Vec<Turn>) {
        self.generate(out);
    }

    fn parse_turn(token: &str) -> Result<Notation, TurnSyntaxError> {
        Notation::parse(token)
    }

    fn resolve(&self, syntax: &Notation) -> Result<Turn, IllegalTurn> {
        notation::resolve(self, syntax, &Forbidden::none())
    }

    fn write_turn(&self, turn: &Turn) -> String {
        notation::write(self, turn)
    }

    /// A token that fits one allowed turn and forbidden ones means the allowed one
    /// (`Qb1` when `Qab1` would repeat a position a third time).
    fn resolve_except(
        &self,
        syntax: &Notation,
        forbidden: &Forbidden,
    ) -> Result<Turn, IllegalTurn> {
        notation::resolve(self, syntax, forbidden)
    }

    /// The origin is written only when another turn the history allows goes to the same
    /// square.
    fn write_turn_except(&self, turn: &Turn, forbidden: &Forbidden) -> String {
        notation::write_except(self, turn, forbidden)
    }

    fn play(&mut self, turn: &Turn) {
        let Some(mut piece) = self.board[turn.from().index()].take() else {
            return;
        };
        for square in turn.jumped() {
            self.board[square.index()] = None;
        }
        piece.promoted |= turn.promotes();
        self.board[turn.to().index()] = Some(piece);
        if self.turn == Color::Black {
            self.fullmove_number = crate::games::count_up(self.fullmove_number);
        }
        self.turn = self.turn.other();
    }

    /// The side to move loses when it has no piece left (the opponent took them all) or
    /// no legal turn.
    fn outcome(&self) -> Option<Outcome> {
        let winner = self.turn.other();
        if self.piece_count(self.turn) == 0 {
            return Some(Outcome::Win {
                winner,
                reason: WinReason::AllPiecesCaptured,
            });
        }
        (!self.has_legal_turn()).then_some(Outcome::Win {
            winner,
            reason: WinReason::NoLegalTurn,
        })
    }

    /// Every end of Chesica leaves the loser without a legal turn.
    fn outcome_with_legal_turn(&self) -> Option<Outcome> {
        None
    }

    fn claimable_draw(&self) -> Option<DrawReason> {
        None
    }

    fn repetition_key(&self) -> u64 {
        crate::games::board_key(self.turn, BLACK_TO_MOVE, &self.board, &KEYS, Piece::index)
    }
}

/// One key per piece (side, kind, promotion) and square.
const KEYS: [[u64; 64]; 12] = crate::games::piece_square_keys(0xC4E5_1CA0_0000_0000);

const BLACK_TO_MOVE: u64 = splitmix(0xC4E5_1CA0_FFFF_FFFF);

#[cfg(test)]
mod tests;
