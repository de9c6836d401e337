//! African Chess, Arthur and Wald Amberstone's cross of chess and mancala (early 1960s),
//! as the project's rulings settle what the Mancala World page leaves open.
//!
//! Each side has sixteen stones, one of them its touchstone. A square holds up to four
//! stones of either colour. A side's single stone on a square steps one square in any
//! direction into a square holding at most three; two or more stones of one side on a
//! square are a group and are sown whole, one stone a square along one of the eight
//! directions, in an order the player chooses (which only decides where the touchstone
//! goes); a full square or the edge stops the sowing and the rest are put on the last
//! square reached. The touchstone may also step out of its group alone. A single stone
//! or the last stone sown captures by what the square held before it arrived; the
//! touchstone captures every enemy stone on every square it enters. A touchstone is never
//! captured: a turn that would capture it is only a threat (guard, the check of this
//! game), no turn may leave one's own touchstone capturable, having no legal turn while
//! guarded loses (touch) and otherwise draws. A threefold repetition may be claimed.
//!
//! A square is counts, not an ordered stack ([`Cell`]): nothing in the rules looks at
//! the order of the stones on a square. Tokens read into [`Notation`] without a board.
//!
//! # How it is built
//!
//! African Chess, the Amberstones' cross of chess and mancala. `board` (`Cell`: the plain
//! stones of each colour and either touchstone on a square, counts rather than an ordered
//! stack since no rule looks at the order; the 64-square `Board`; the position string with
//! parentheses round a square of several stones), `movegen` (`Direction`; `Turn`: origin and
//! either a step or a sowing with the square where the touchstone ends and its place in the
//! sowing order; `apply` simulates a turn on a copy of the board square by square, capture
//! table and touchstone captures included, and says why it cannot be made; `is_guarded`
//! tries only the stones on the eight lines through a touchstone, at most four squares away;
//! generation drops turns that would capture the enemy touchstone or leave one's own
//! capturable, and sowing orders that end with the touchstone on the same square),
//! `notation` (`Notation`: steps, sowings with `=square` for the touchstone's place and the
//! capture squares; `resolve` with the reasons in words; the canonical writer).
//!
//! Invariants: a touchstone is never captured (a position where the side that has just moved
//! is guarded is refused); `=square` is written exactly when more than one place is legal;
//! the repetition rule is a claim only (`RepetitionRule::Draw { claim: 3, automatic: None }`).

mod board;
mod movegen;
mod notation;

use std::fmt::Write as _;

pub use board::{Board, Cell, MAX_STONES};
pub use movegen::{Applied, Direction, Failure, Turn, TurnKind, apply, is_guarded};
pub use notation::{Action, Marker, Notation};

use crate::games::chess::Square;
use crate::games::snapshot::square_names;
use crate::games::{Man, PieceKind, Snapshot, Stacking};

/// African Chess's stones as the converters name them.
const AFRICAN_KINDS: [PieceKind; 2] = [
    PieceKind {
        name: "Stone",
        label: "S",
    },
    PieceKind {
        name: "Touchstone",
        label: "T",
    },
];
use crate::games::{
    Color, DrawReason, Game, IllegalTurn, Outcome, RepetitionRule, SetupError, TurnSyntaxError,
    Variant, WinReason, splitmix,
};

/// A position of African Chess: the board, the side to move and the move number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct African {
    board: Board,
    turn: Color,
    fullmove_number: u32,
}

impl African {
    /// The stones on a square.
    #[must_use]
    pub fn cell(&self, square: Square) -> Cell {
        self.board[square.index()]
    }

    /// Whether the side to move is guarded (its touchstone could be captured).
    #[must_use]
    pub fn is_guarded(&self) -> bool {
        is_guarded(&self.board, self.turn)
    }

    /// Whether the side to move has a legal turn.
    #[must_use]
    pub fn has_legal_turn(&self) -> bool {
        let mut turns = Vec::new();
        self.generate(None, &mut turns);
        !turns.is_empty()
    }

    /// How many stones a side has on the board.
    #[must_use]
    pub fn stone_count(&self, color: Color) -> u32 {
        self.board.iter().map(|c| u32::from(c.stones(color))).sum()
    }
}

impl Game for African {
    type Turn = Turn;
    type Syntax = Notation;

    /// A plain stone is a `Stone` (`S`), a touchstone a `Touchstone` (`T`); a square's
    /// stones have no order.
    const PIECE_KINDS: &'static [PieceKind] = &AFRICAN_KINDS;

    fn snapshot(&self) -> Option<Snapshot> {
        let mut snapshot = Snapshot::new(Stacking::Unordered, square_names());
        for (place, cell) in snapshot.places.iter_mut().zip(self.board.iter()) {
            for color in [Color::White, Color::Black] {
                for _ in 0..cell.plain(color) {
                    place.pieces.push(Man {
                        color,
                        kind: AFRICAN_KINDS[0],
                    });
                }
                if cell.has_touchstone(color) {
                    place.pieces.push(Man {
                        color,
                        kind: AFRICAN_KINDS[1],
                    });
                }
            }
        }
        Some(snapshot.normalized())
    }

    const VARIANT: Variant = Variant::AfricanChess;
    const REPETITION: RepetitionRule = RepetitionRule::Draw {
        claim: 3,
        automatic: None,
    };

    fn start() -> African {
        African {
            board: board::start_board(),
            turn: Color::White,
            fullmove_number: 1,
        }
    }

    /// Reads `placement side [fullmove]`, for example the start,
    /// `pppptppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPTPPP w 1`.
    fn from_position_string(text: &str) -> Result<African, SetupError> {
        let (board, turn, fullmove_number) =
            crate::games::read_placement_side_fullmove(text, board::read_placement)?;
        board::check_board(&board).map_err(|error| error.or_in_field(1))?;
        if is_guarded(&board, turn.other()) {
            return Err(SetupError::in_field(
                1,
                format!(
                    "the {} touchstone is capturable with {} to move",
                    turn.other().name().to_lowercase(),
                    turn.name()
                ),
            ));
        }
        Ok(African {
            board,
            turn,
            fullmove_number,
        })
    }

    fn position_string(&self) -> String {
        let mut out = String::with_capacity(80);
        board::write_placement(&self.board, &mut out);
        let side = crate::games::side_field(self.turn);
        let _ = write!(out, " {side} {}", self.fullmove_number);
        out
    }

    /// Five characters a square: its letters (`T`, `P`, `t`, `p`) or `.` when empty.
    fn diagram(&self) -> String {
        let mut out = String::with_capacity(400);
        for rank in (0..8).rev() {
            let _ = write!(out, "{}", rank + 1);
            for file in 0..8 {
                let mut letters = String::new();
                self.board[Square::from_coords(file, rank).index()].write_letters(&mut letters);
                if letters.is_empty() {
                    letters.push('.');
                }
                let _ = write!(out, " {letters:<4}");
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
        out.push_str("  a    b    c    d    e    f    g    h\n");
        out
    }

    fn side_to_move(&self) -> Color {
        self.turn
    }

    fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    fn legal_turns(&self, out: &mut Vec<Turn>) {
        self.generate(None, out);
    }

    /// Counts the last level's turns without keeping them.
    fn perft(&self, depth: u32) -> u64 {
        super::perft_counting_last(self, depth, |position| {
            let mut count = 0u64;
            position.generate(None, &mut count);
            count
        })
    }

    fn parse_turn(token: &str) -> Result<Notation, TurnSyntaxError> {
        Notation::parse(token)
    }

    fn resolve(&self, syntax: &Notation) -> Result<Turn, IllegalTurn> {
        notation::resolve(self, syntax)
    }

    fn write_turn(&self, turn: &Turn) -> String {
        notation::write(self, turn)
    }

    fn play(&mut self, turn: &Turn) {
        // A turn that cannot be made leaves the board as it was.
        let _ = movegen::make(&mut self.board, self.turn, turn);
        if self.turn == Color::Black {
            self.fullmove_number = crate::games::count_up(self.fullmove_number);
        }
        self.turn = self.turn.other();
    }

    /// No legal turn: touch (a loss) when guarded, a draw otherwise.
    fn outcome(&self) -> Option<Outcome> {
        if self.has_legal_turn() {
            return None;
        }
        Some(if self.is_guarded() {
            Outcome::Win {
                winner: self.turn.other(),
                reason: WinReason::Touch,
            }
        } else {
            Outcome::Draw {
                reason: DrawReason::Stalemate,
            }
        })
    }

    /// Every end of African Chess by the rules leaves the side to move without a turn.
    fn outcome_with_legal_turn(&self) -> Option<Outcome> {
        None
    }

    fn claimable_draw(&self) -> Option<DrawReason> {
        None
    }

    fn repetition_key(&self) -> u64 {
        let mut key = match self.turn {
            Color::White => 0,
            Color::Black => splitmix(0xAF21_CA00_FFFF_FFFF),
        };
        for (index, cell) in self.board.iter().enumerate() {
            if !cell.is_empty() {
                key ^= splitmix(0xAF21_CA00_0000_0000 ^ ((index as u64) << 8 | cell.code()));
            }
        }
        key
    }

    fn annotation_mismatch(&self, syntax: &Notation) -> Option<String> {
        let side = self.turn.name();
        match syntax.marker {
            Marker::None => None,
            Marker::Guard if !self.is_guarded() => {
                Some(format!("claims guard but {side} is not guarded"))
            }
            Marker::Guard => None,
            Marker::Touch if !self.is_guarded() => {
                Some(format!("claims touch but {side} is not guarded"))
            }
            Marker::Touch => {
                let mut turns = Vec::new();
                self.generate(None, &mut turns);
                let example = turns.first()?;
                Some(format!(
                    "claims touch but {side} has legal turns, e.g. {}",
                    self.write_turn(example)
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests;
