//! Cascudo, David Jagger's hexagonal chess of cascades (2003), with the project's
//! reconstruction of the lost setup diagram.
//!
//! The board is 44 hexagonal cells in Glinski's orientation ([`hex`]: files a to g of 5,
//! 6, 7, 8, 7, 6, 5 cells, three colours). Rooks, bishops, knights and pawns move as in
//! Glinski's chess, the Queen as rook and bishop, the King as queen and knight. Every turn
//! is a cascade of at least two moves: each move but the last enters the cell of a
//! friendly token that has not moved yet this turn, which then moves next; the last move
//! goes to an empty cell or captures an enemy token (never the King). No token moves
//! twice; pawns promote at once, even inside a cascade. No turn may end with one's own
//! King in check, where check is by cascade (ruling 7): the opponent, moving now, could
//! make a cascade landing on the King. A side with no cascade loses, in check or not. Threefold repetition
//! and fifty turns of each side without a capture draw by themselves.
//!
//! Two chains that happen to leave the same position are distinct turns: the rules make
//! the turn the chain of moves, and the notation names each chain by its cells.
//!
//! # How it is built
//!
//! Cascudo, Jagger's hexagonal chess whose turns are cascades. `hex` is the board's geometry
//! and nothing else, tested on its own: the 44 `Cell`s in Glinski's orientation with
//! coordinates (file, height in half cells), names, the 12 directions (6 edge, 6 vertex),
//! rays, the 12 knight leaps, pawn steps and capture directions, the three `Colour`s, all
//! constant tables built at compile time, and `picture`, the hex drawing that `diagram`
//! uses. `movegen` (`Role`, `Piece`, the 44-cell `Board`; `Turn`: the chain's cells and the
//! promotion on each link, in fixed arrays of `MAX_LINKS` = 16; `in_check`, check by
//! cascade; the cascade search), `notation` (`Notation`: the board-free token, short and whole forms; `resolve`
//! with the first broken rule in words and the legal cascades that start alike; the
//! canonical writer with `+` and `#`).
//!
//! The search is depth-first over chains on one scratch board, changed and undone in place:
//! a bit set of cells holding tokens that have moved prunes re-entry; an internal move
//! recurses with the displaced token in hand; the first link must be internal; the enemy
//! King is never a target; the mover's King is tested for check only at the leaves. Nothing
//! is allocated per node (targets go to a stack array, finished turns to the caller's
//! vector); `has_legal_turn` stops at the first leaf, and `resolve` searches only the
//! written first mover.
//!
//! Check is by cascade (ruling 7): the opponent, moving now, could make a cascade whose last
//! move lands on the King. `in_check` decides it exactly without generating the opponent's
//! cascades: a cascade empties one cell only, its first mover's origin (every other cell it
//! passes keeps the token that arrived), so its last mover attacks the King either as the
//! board stands or through that origin, and must be set moving, reached from the origin by
//! moves onto unmoved own tokens. It looks for attackers on the King's lines (the first
//! token, or the second behind one of the attacker's own), knight cells and pawn cells; for
//! each, whether another own token can enter its cell (then that one is the first mover),
//! else a small search over moves onto own tokens from each origin whose emptying opens a
//! line onto it. Nothing is allocated; most leaves have no attacker at all. In the search
//! for one's own cascades, a leaf's board differs from the board with its first mover
//! lifted only at its last cell, so the check verdict for one first mover depends only on
//! the King's cell and the last cell: `shield` answers the leaves whose last cell lies off
//! the King's lines up to their first tokens, and the rest are remembered by the two cells.
//! Perft's last level (`count_chains`) counts the chains as a walk over the own tokens'
//! cells without playing them out, and takes a leaf as safe at once when the King's cell
//! is safe on the board with the first mover lifted.
//!
//! Invariants: a cascade is its chain, so two chains with the same result are two turns and
//! a token is never ambiguous; a position has one King a side, at most 16 tokens a side, no
//! pawn on its promotion cell and the side that has just moved not in check; both draws
//! happen by themselves (`RepetitionRule::Draw { claim: 3, automatic: Some(3) }`, which the
//! replay reports as threefold repetition, and the fifty-turn rule in `outcome`).
//!
//! Tests: `hex`'s own (every cell against `tests/data/cascudo/geometry.txt`), the scenario
//! table `tests/data/cascudo/scenarios.txt`, perft and playouts in
//! `tests/integration/cascudo.rs`. `tests/data/cascudo/reference.py` is an independent
//! Python program written from the rule page: it wrote the geometry table and confirms the
//! perft figures; its check by cascade plays out every chain of the opponent's internal
//! moves. The `outside` test binary compares its legal cascades and check verdicts with
//! pbem's on random positions (a few on every run, 200 by hand).

pub mod hex;
mod movegen;
mod notation;

use std::fmt::Write as _;

pub use hex::{Cell, Colour};
pub use movegen::{Board, MAX_LINKS, Piece, Role, Turn};
pub use notation::{Marker, Notation};

use crate::games::chess::CHESS_KINDS;
use crate::games::{
    Color, DrawReason, Game, IllegalTurn, Man, Outcome, PieceKind, RepetitionRule, SetupError,
    Snapshot, Stacking, TurnSyntaxError, Variant, WinReason, splitmix,
};

/// Turns of both sides without a capture after which the game is drawn (fifty each).
const NO_CAPTURE_LIMIT: u32 = 100;

/// A position of Cascudo: the cells, the side to move, the turns since the last capture
/// and the move number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cascudo {
    board: Board,
    turn: Color,
    halfmove_clock: u32,
    fullmove_number: u32,
}

impl Cascudo {
    /// The token on a cell.
    #[must_use]
    pub fn piece_at(&self, cell: Cell) -> Option<Piece> {
        self.board[cell.index()]
    }

    /// Turns (of either side) since the last capture.
    #[must_use]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// Whether playing `turn` captures (its last move lands on an enemy token).
    #[must_use]
    pub fn is_capture(&self, turn: &Turn) -> bool {
        self.board[turn.last().index()].is_some_and(|piece| piece.color != self.turn)
    }
}

/// The start as the rulings reconstruct it; Black mirrors White across the middle line.
const START: &str = "b/qbk/npbpn/rp3pr/p5p/3B3/PPPBPPP/RNQBKNR w 0 1";

impl Game for Cascudo {
    type Turn = Turn;
    type Syntax = Notation;

    /// The chess pieces' names and letters; a cell holds one token.
    const PIECE_KINDS: &'static [PieceKind] = &CHESS_KINDS;

    fn snapshot(&self) -> Option<Snapshot> {
        let names = Cell::all().map(|cell| cell.to_string());
        let tokens = self.board.iter().map(|token| {
            token.map(|piece| Man {
                color: piece.color,
                kind: CHESS_KINDS[piece.role as usize],
            })
        });
        Some(Snapshot::filled(Stacking::Single, names, tokens))
    }

    const VARIANT: Variant = Variant::Cascudo;
    const REPETITION: RepetitionRule = RepetitionRule::Draw {
        claim: 3,
        automatic: Some(3),
    };

    fn start() -> Cascudo {
        Cascudo::from_position_string(START).expect("the start reads")
    }

    /// Reads `placement side [halfmove fullmove]`: the placement gives ranks 8 to 1,
    /// separated by `/`, each rank's cells from the a-side, digits for runs of empty
    /// cells (rank 8 has one cell, 7 three, 6 five, 5 to 1 seven each).
    fn from_position_string(text: &str) -> Result<Cascudo, SetupError> {
        let mut fields = text.split_whitespace();
        let placement = fields
            .next()
            .ok_or_else(|| SetupError::in_field(1, "empty position string"))?;
        let board = read_placement(placement).map_err(|error| error.or_in_field(1))?;
        let turn = crate::games::read_side(fields.next())?;
        let halfmove_clock =
            crate::games::read_number_field(fields.next(), 3, "turns without a capture", 0)?;
        let fullmove_number =
            crate::games::read_number_field(fields.next(), 4, "fullmove number", 1)?;
        if halfmove_clock.is_some() && fullmove_number.is_none() {
            return Err(SetupError::in_field(4, "missing field 4 (fullmove number)"));
        }
        if let Some(extra) = fields.next() {
            return Err(SetupError::in_field(
                5,
                format!("unexpected text after field 4: '{extra}'"),
            ));
        }
        let position = Cascudo {
            board,
            turn,
            halfmove_clock: halfmove_clock.unwrap_or(0),
            fullmove_number: fullmove_number.unwrap_or(1),
        };
        // What the check refuses is in the placement (with the side to move for a check).
        position.check().map_err(|error| error.or_in_field(1))?;
        Ok(position)
    }

    fn position_string(&self) -> String {
        let mut out = String::with_capacity(64);
        write_placement(&self.board, &mut out);
        let side = crate::games::side_field(self.turn);
        let _ = write!(
            out,
            " {side} {} {}",
            self.halfmove_clock, self.fullmove_number
        );
        out
    }

    /// The hex board drawn twice side by side: the tokens (uppercase White, lowercase
    /// Black, `.` empty) and the cell names, files a to g across.
    fn diagram(&self) -> String {
        let tokens = hex::picture(2, |cell| {
            self.board[cell.index()]
                .map_or_else(|| ".".to_owned(), |piece| piece.char().to_string())
        });
        let names = hex::picture(2, |cell| cell.to_string());
        let files = hex::file_labels(2);
        let mut out = String::with_capacity(1200);
        for (left, right) in tokens
            .iter()
            .chain([&files])
            .zip(names.iter().chain([&files]))
        {
            let _ = writeln!(out, "{left:<24}{right}");
        }
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

    /// Counts the last level's turns without keeping them.
    fn perft(&self, depth: u32) -> u64 {
        super::perft_counting_last(self, depth, Self::count_turns)
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
        let capture = self.is_capture(turn);
        let cells = turn.cells();
        let Some(mut hand) = self.board[cells[0].index()].take() else {
            return;
        };
        for (&to, promotion) in cells[1..].iter().zip(turn.promotions()) {
            if let Some(role) = promotion {
                hand.role = *role;
            }
            let displaced = self.board[to.index()].replace(hand);
            match displaced {
                Some(piece) if piece.color == self.turn => hand = piece,
                _ => break,
            }
        }
        self.halfmove_clock = if capture {
            0
        } else {
            crate::games::count_up(self.halfmove_clock)
        };
        if self.turn == Color::Black {
            self.fullmove_number = crate::games::count_up(self.fullmove_number);
        }
        self.turn = self.turn.other();
    }

    /// No cascade loses (checkmate when in check); fifty turns of each side without a
    /// capture draw.
    fn outcome(&self) -> Option<Outcome> {
        if !self.has_legal_turn() {
            let reason = if self.is_check() {
                WinReason::Checkmate
            } else {
                WinReason::NoLegalTurn
            };
            return Some(Outcome::Win {
                winner: self.turn.other(),
                reason,
            });
        }
        self.outcome_with_legal_turn()
    }

    fn outcome_with_legal_turn(&self) -> Option<Outcome> {
        (self.halfmove_clock >= NO_CAPTURE_LIMIT).then_some(Outcome::Draw {
            reason: DrawReason::FiftyMoves,
        })
    }

    /// Cascudo's draws happen by themselves; there is nothing to claim.
    fn claimable_draw(&self) -> Option<DrawReason> {
        None
    }

    fn repetition_key(&self) -> u64 {
        crate::games::board_key(self.turn, BLACK_TO_MOVE, &self.board, &KEYS, Piece::index)
    }

    fn annotation_mismatch(&self, syntax: &Notation) -> Option<String> {
        notation::marker_mismatch(self, syntax)
    }
}

impl Cascudo {
    /// Refuses positions the game cannot play: not one King a side, more than 16 tokens
    /// a side, a pawn on its promotion cell, the side not to move in check.
    fn check(&self) -> Result<(), SetupError> {
        for color in [Color::White, Color::Black] {
            let own = || {
                self.board
                    .iter()
                    .flatten()
                    .filter(move |p| p.color == color)
            };
            let kings = own().filter(|p| p.role == Role::King).count();
            if kings != 1 {
                return Err(SetupError::new(format!(
                    "{} has {kings} kings instead of one",
                    color.name().to_lowercase()
                )));
            }
            // The rules' army: a king, a queen, 2 rooks, 3 bishops, 2 knights and 6 pawns.
            let pawns = own().filter(|p| p.role == Role::Pawn).count();
            if pawns > 6 {
                return Err(SetupError::new(format!(
                    "{} has {pawns} pawns, more than 6",
                    color.name().to_lowercase()
                )));
            }
            let count = own().count();
            if count > 15 {
                return Err(SetupError::new(format!(
                    "{} has {count} pieces, more than 15",
                    color.name().to_lowercase()
                )));
            }
            if count > movegen::MAX_TOKENS {
                return Err(SetupError::new(format!(
                    "{} has {count} tokens, more than {}",
                    color.name().to_lowercase(),
                    movegen::MAX_TOKENS
                )));
            }
        }
        for cell in Cell::all() {
            if let Some(piece) = self.board[cell.index()]
                && piece.role == Role::Pawn
                && movegen::promotes_on(piece.color, cell)
            {
                return Err(SetupError::new(format!(
                    "a {piece} on its promotion cell {cell}"
                )));
            }
        }
        let waiting = self.turn.other();
        if let Some(king) = movegen::king_cell(&self.board, waiting)
            && movegen::in_check(&self.board, king, self.turn)
        {
            return Err(SetupError::new(format!(
                "the {} king on {king} is in check but it is not {}'s turn",
                waiting.name().to_lowercase(),
                waiting.name()
            )));
        }
        Ok(())
    }
}

/// The cells of each rank from the a-side, for the placement field: rank 8 first.
fn ranks() -> impl Iterator<Item = (u8, Vec<Cell>)> {
    (0..8u8).rev().map(|rank| {
        let cells = (0..hex::FILES as u8)
            .filter_map(|file| Cell::from_file_rank(file, rank))
            .collect();
        (rank, cells)
    })
}

fn write_placement(board: &Board, out: &mut String) {
    for (rank, cells) in ranks() {
        let mut empty = 0u8;
        for cell in cells {
            match board[cell.index()] {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        out.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    out.push(piece.char());
                }
            }
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
}

fn read_placement(field: &str) -> Result<Board, SetupError> {
    let bad =
        |message: String| SetupError::new(format!("bad field 1 (piece placement): {message}"));
    let rows: Vec<&str> = field.split('/').collect();
    if rows.len() != 8 {
        return Err(bad(format!("expected 8 ranks, found {}", rows.len())));
    }
    let mut board: Board = [None; hex::CELLS];
    for ((rank, cells), text) in ranks().zip(&rows) {
        let mut at = 0usize;
        for c in text.chars() {
            if let Some(run) = c.to_digit(10).filter(|d| *d > 0) {
                at += run as usize;
                continue;
            }
            let piece =
                Piece::from_char(c).ok_or_else(|| bad(format!("unknown piece letter '{c}'")))?;
            if let Some(cell) = cells.get(at) {
                board[cell.index()] = Some(piece);
            }
            at += 1;
        }
        if at != cells.len() {
            return Err(bad(format!(
                "rank {} has {at} cells instead of {}",
                rank + 1,
                cells.len()
            )));
        }
    }
    Ok(board)
}

/// One key per token kind (side and role) and cell.
const KEYS: [[u64; hex::CELLS]; 12] = crate::games::piece_square_keys(0xCA5C_AD00_0000_0000);

const BLACK_TO_MOVE: u64 = splitmix(0xCA5C_AD00_FFFF_FFFF);

#[cfg(test)]
mod tests;
