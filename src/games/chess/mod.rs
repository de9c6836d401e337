//! Orthodox chess under the FIDE Laws.
//!
//! The position is a set of bitboards ([`Board`]) plus the side to move, the castling
//! rights, the en passant square and the two move counters. A FEN reads into a [`Setup`],
//! which [`Chess::from_setup`] validates. Moves ([`Move`]) are generated legal, into a
//! [`MoveList`] on the stack. Turn tokens read into [`San`] without a board and resolve
//! against a position into a [`Move`], or into an [`IllegalTurn`] that says why not.

mod attacks;
mod bitboard;
mod movegen;
mod san;
mod setup;
mod types;
mod zobrist;

use std::fmt::Write as _;

pub use movegen::{Move, MoveKind, MoveList};
pub use san::{CheckMarker, San, SanMove};
pub use setup::{Board, CastlingRights, Setup};
pub use types::{CastlingSide, Piece, Role, Square};

use self::bitboard::Bitboard;
use crate::games::{
    Color, DrawReason, Game, IllegalTurn, Outcome, RepetitionRule, SetupError, Tags,
    TurnSyntaxError, Variant, WinReason,
};

/// A legal position of orthodox chess: exactly one king a side, the side not to move not
/// in check, no pawn on a back rank, castling rights only with king and rook at home and
/// an en passant square only behind a pawn that may just have moved two squares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chess {
    board: Board,
    turn: Color,
    castling: CastlingRights,
    ep_square: Option<Square>,
    halfmove_clock: u32,
    fullmove_number: u32,
}

impl Chess {
    /// Validates a setup into a position, or says what makes it unplayable.
    pub fn from_setup(setup: Setup) -> Result<Chess, SetupError> {
        setup.check()?;
        let position = Chess {
            board: setup.board,
            turn: setup.turn,
            castling: setup.castling,
            ep_square: setup.ep_square,
            halfmove_clock: setup.halfmove_clock,
            fullmove_number: setup.fullmove_number,
        };
        let them = position.turn.other();
        let their_king = position
            .board
            .king_of(them)
            .expect("checked: one king a side");
        if position
            .attackers_to(their_king, position.turn, position.board.occupied())
            .any()
        {
            return Err(SetupError::new(format!(
                "the side not to move is in check (the {} king on {their_king})",
                them.name().to_ascii_lowercase()
            )));
        }
        Ok(position)
    }

    /// The position as an unvalidated setup (for editing, or writing a FEN).
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board.clone(),
            turn: self.turn,
            castling: self.castling,
            ep_square: self.ep_square,
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
        }
    }

    /// The pieces.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The castling rights still held.
    #[must_use]
    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// The square a pawn skipped on the last move, as FEN records it (whether or not a
    /// capture en passant is possible).
    #[must_use]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// The en passant square only when a capture en passant is legal: what makes two
    /// positions differ for repetition under the FIDE Laws.
    #[must_use]
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        let capturers =
            attacks::pawn(self.turn.other(), ep) & self.board.by_piece(self.turn, Role::Pawn);
        if capturers.is_empty() {
            return None;
        }
        let mut moves = MoveList::new();
        self.generate(capturers, Bitboard::from_square(ep), &mut moves);
        moves
            .iter()
            .any(|m| m.kind == MoveKind::EnPassant)
            .then_some(ep)
    }

    /// Half-moves since the last capture or pawn move.
    #[must_use]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// Whether the side to move is in check.
    #[must_use]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Every legal move, in a list on the stack.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        self.generate_all(&mut moves);
        moves
    }

    /// Whether the side to move has no legal move at all.
    #[must_use]
    pub fn has_no_legal_move(&self) -> bool {
        self.legal_moves().is_empty()
    }

    /// Whether the side to move is checkmated.
    #[must_use]
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && self.has_no_legal_move()
    }

    /// Whether the side to move is stalemated.
    #[must_use]
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && self.has_no_legal_move()
    }

    /// Whether neither side can ever checkmate, by the cases that are cheap to see: only
    /// kings, a single minor piece, or bishops that all stand on squares of one colour
    /// (of either side). Other dead positions (blocked pawn walls) are not detected.
    #[must_use]
    pub fn is_insufficient_material(&self) -> bool {
        let b = &self.board;
        if (b.by_role(Role::Pawn) | b.rooks_and_queens()).any() {
            return false;
        }
        let knights = b.by_role(Role::Knight);
        let bishops = b.by_role(Role::Bishop);
        if (knights | bishops).count() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::DARK_SQUARES).is_empty()
                || (bishops & !Bitboard::DARK_SQUARES).is_empty())
    }

    /// Leaf count `depth` moves deep, with the last level counted from the size of the
    /// move list instead of played out.
    fn perft_from(&self, depth: u32) -> u64 {
        let mut moves = MoveList::new();
        self.generate_all(&mut moves);
        if depth <= 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|m| {
                let mut next = self.clone();
                next.play_move(m);
                next.perft_from(depth - 1)
            })
            .sum()
    }
}

impl Game for Chess {
    type Turn = Move;
    type Syntax = San;

    const VARIANT: Variant = Variant::Chess;
    const REPETITION: RepetitionRule = RepetitionRule::Draw {
        claim: 3,
        automatic: Some(5),
    };

    fn start() -> Chess {
        Chess::from_setup(Setup::default()).expect("the standard start is valid")
    }

    /// `[FEN]` sets the start (with or without `[SetUp "1"]`); `[SetUp "1"]` alone is an
    /// error; without either the game starts from the standard position.
    fn from_tags(tags: &dyn Tags) -> Result<Chess, SetupError> {
        match (tags.tag("FEN"), tags.tag("SetUp")) {
            (Some(fen), _) => Chess::from_position_string(fen),
            (None, Some(setup)) if setup.trim() == "1" => Err(SetupError::new(
                "the setup tag is \"1\" but there is no fen tag",
            )),
            (None, _) => Ok(Chess::start()),
        }
    }

    fn from_position_string(text: &str) -> Result<Chess, SetupError> {
        Setup::from_fen(text)?.validate()
    }

    fn position_string(&self) -> String {
        self.to_setup().fen()
    }

    fn diagram(&self) -> String {
        let mut out = String::with_capacity(200);
        for rank in (0..8).rev() {
            let _ = write!(out, "{} ", rank + 1);
            for file in 0..8 {
                let square = Square::from_coords(file, rank);
                out.push(self.board.piece_at(square).map_or('.', Piece::char));
                out.push(if file < 7 { ' ' } else { '\n' });
            }
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

    fn legal_turns(&self, out: &mut Vec<Move>) {
        out.extend_from_slice(&self.legal_moves());
    }

    fn parse_turn(token: &str) -> Result<San, TurnSyntaxError> {
        San::parse(token)
    }

    fn resolve(&self, syntax: &San) -> Result<Move, IllegalTurn> {
        san::resolve(self, syntax)
    }

    fn write_turn(&self, turn: &Move) -> String {
        san::write(self, turn)
    }

    fn play(&mut self, turn: &Move) {
        self.play_move(turn);
    }

    /// Checkmate and stalemate first (a mate on the 150th half-move still wins), then the
    /// seventy-five-move rule, then insufficient material.
    fn outcome(&self) -> Option<Outcome> {
        if self.has_no_legal_move() {
            return Some(if self.is_check() {
                Outcome::Win {
                    winner: self.turn.other(),
                    reason: WinReason::Checkmate,
                }
            } else {
                Outcome::Draw {
                    reason: DrawReason::Stalemate,
                }
            });
        }
        if self.halfmove_clock >= 150 {
            return Some(Outcome::Draw {
                reason: DrawReason::SeventyFiveMoves,
            });
        }
        if self.is_insufficient_material() {
            return Some(Outcome::Draw {
                reason: DrawReason::InsufficientMaterial,
            });
        }
        None
    }

    fn claimable_draw(&self) -> Option<DrawReason> {
        (self.halfmove_clock >= 100).then_some(DrawReason::FiftyMoves)
    }

    fn repetition_key(&self) -> u64 {
        zobrist::hash(self)
    }

    fn annotation_mismatch(&self, syntax: &San) -> Option<String> {
        let side = self.turn.name();
        match syntax.marker {
            CheckMarker::None => None,
            CheckMarker::Check if !self.is_check() => {
                Some(format!("claims check but {side} is not in check"))
            }
            CheckMarker::Check => None,
            CheckMarker::Mate if !self.is_check() => {
                Some(format!("claims mate but {side} is not in check"))
            }
            CheckMarker::Mate => {
                let moves = self.legal_moves();
                let example = moves.first()?;
                Some(format!(
                    "claims mate but {side} has legal moves, e.g. {}",
                    self.write_turn(example)
                ))
            }
        }
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.perft_from(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Chess {
        Chess::from_position_string(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    #[test]
    fn perft_of_the_classic_positions() {
        let cases: [(&str, &[u64]); 3] = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                &[20, 400, 8902, 197_281],
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                &[48, 2039, 97_862],
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                &[14, 191, 2812, 43_238],
            ),
        ];
        for (fen, counts) in cases {
            let p = position(fen);
            for (depth, &expected) in (1..).zip(counts) {
                assert_eq!(p.perft(depth), expected, "{fen} depth {depth}");
            }
        }
    }
}
