//! The board, and the unvalidated setup a FEN describes.
//!
//! A [`Setup`] is whatever a FEN says, sensible or not; [`Setup::validate`] (or
//! [`Chess::from_setup`]) turns it into a playable [`Chess`] position or says precisely
//! what is wrong with it.

use std::fmt;
use std::str::FromStr;

use super::Chess;
use super::bitboard::Bitboard;
use super::types::{CastlingSide, Piece, Role, Square, color_index};
use super::zobrist;
use crate::games::{Color, SetupError};

/// The pieces on the board, as one set of squares per kind and per side.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Board {
    roles: [Bitboard; 6],
    colors: [Bitboard; 2],
    /// The Zobrist hash of the placement, kept up to date by every change so that the
    /// repetition key costs nothing per move.
    placement_hash: u64,
}

impl Board {
    /// A board with no pieces.
    #[must_use]
    pub fn empty() -> Board {
        Board::default()
    }

    /// The standard starting array.
    #[must_use]
    pub fn standard() -> Board {
        let mut board = Board::empty();
        let back = [
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::Queen,
            Role::King,
            Role::Bishop,
            Role::Knight,
            Role::Rook,
        ];
        for (file, role) in (0u8..).zip(back) {
            for (color, back_rank, pawn_rank) in [(Color::White, 0, 1), (Color::Black, 7, 6)] {
                board.put(Square::from_coords(file, back_rank), Piece { color, role });
                board.put(
                    Square::from_coords(file, pawn_rank),
                    Piece {
                        color,
                        role: Role::Pawn,
                    },
                );
            }
        }
        board
    }

    /// The piece on `square`, if any.
    #[must_use]
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        let color = if self.colors[0].contains(square) {
            Color::White
        } else if self.colors[1].contains(square) {
            Color::Black
        } else {
            return None;
        };
        let role = self.role_at(square)?;
        Some(Piece { color, role })
    }

    /// Puts `piece` on `square`, replacing what stood there; `None` clears the square.
    pub fn set_piece_at(&mut self, square: Square, piece: Option<Piece>) {
        self.remove(square);
        if let Some(piece) = piece {
            self.put(square, piece);
        }
    }

    /// Every piece with its square, a1 to h8.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied()
            .filter_map(|square| self.piece_at(square).map(|piece| (square, piece)))
    }

    pub(crate) fn role_at(&self, square: Square) -> Option<Role> {
        Role::ALL
            .into_iter()
            .find(|role| self.roles[role.index()].contains(square))
    }

    #[inline]
    pub(crate) fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    #[inline]
    pub(crate) fn by_color(&self, color: Color) -> Bitboard {
        self.colors[color_index(color)]
    }

    #[inline]
    pub(crate) fn by_role(&self, role: Role) -> Bitboard {
        self.roles[role.index()]
    }

    #[inline]
    pub(crate) fn by_piece(&self, color: Color, role: Role) -> Bitboard {
        self.by_color(color) & self.by_role(role)
    }

    #[inline]
    pub(crate) fn rooks_and_queens(&self) -> Bitboard {
        self.roles[Role::Rook.index()] | self.roles[Role::Queen.index()]
    }

    #[inline]
    pub(crate) fn bishops_and_queens(&self) -> Bitboard {
        self.roles[Role::Bishop.index()] | self.roles[Role::Queen.index()]
    }

    /// The king of `color` (the lowest one if a broken setup has several).
    #[inline]
    pub(crate) fn king_of(&self, color: Color) -> Option<Square> {
        self.by_piece(color, Role::King).first()
    }

    /// Puts a piece on an empty square.
    #[inline]
    pub(crate) fn put(&mut self, square: Square, piece: Piece) {
        let bit = Bitboard::from_square(square);
        self.roles[piece.role.index()] |= bit;
        self.colors[color_index(piece.color)] |= bit;
        self.placement_hash ^= zobrist::piece_key(piece, square);
    }

    /// The Zobrist hash of the placement.
    #[inline]
    pub(crate) fn placement_hash(&self) -> u64 {
        self.placement_hash
    }

    /// Clears a square, whatever stood there.
    #[inline]
    pub(crate) fn remove(&mut self, square: Square) {
        if let Some(piece) = self.piece_at(square) {
            self.placement_hash ^= zobrist::piece_key(piece, square);
        }
        let keep = !Bitboard::from_square(square);
        for set in &mut self.roles {
            *set &= keep;
        }
        for set in &mut self.colors {
            *set &= keep;
        }
    }

    /// Takes the piece of `color` that stands on `square` (a capture: the colour is
    /// known, so only the role is looked up).
    #[inline]
    pub(crate) fn take(&mut self, square: Square, color: Color) {
        let Some(role) = self.role_at(square) else {
            return;
        };
        let bit = Bitboard::from_square(square);
        self.roles[role.index()] ^= bit;
        self.colors[color_index(color)] ^= bit;
        self.placement_hash ^= zobrist::piece_key(Piece { color, role }, square);
    }

    /// Moves a known piece between squares (the destination must be empty).
    #[inline]
    pub(crate) fn shift(&mut self, piece: Piece, from: Square, to: Square) {
        let bits = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.roles[piece.role.index()] ^= bits;
        self.colors[color_index(piece.color)] ^= bits;
        self.placement_hash ^= zobrist::piece_key(piece, from) ^ zobrist::piece_key(piece, to);
    }

    /// Field 1 of a FEN.
    fn write_placement(&self, out: &mut String) {
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.piece_at(Square::from_coords(file, rank)) {
                    Some(piece) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(piece.char());
                    }
                    None => empty += 1,
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

    /// Reads field 1 of a FEN: eight ranks from the eighth down, `/` between them.
    fn read_placement(text: &str) -> Result<Board, String> {
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != 8 {
            return Err(format!("expected 8 ranks, found {}", ranks.len()));
        }
        let mut board = Board::empty();
        for (row, rank_text) in ranks.iter().enumerate() {
            let rank = 7 - row as u8;
            let mut file = 0u8;
            for c in rank_text.chars() {
                if let Some(run) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += run as u8;
                } else if let Some(piece) = Piece::from_char(c) {
                    if file < 8 {
                        board.put(Square::from_coords(file, rank), piece);
                    }
                    file += 1;
                } else {
                    return Err(format!("unknown piece letter '{c}'"));
                }
                if file > 8 {
                    break;
                }
            }
            if file != 8 {
                return Err(format!(
                    "rank {} has {} squares instead of 8",
                    rank + 1,
                    file
                ));
            }
        }
        Ok(board)
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut placement = String::new();
        self.write_placement(&mut placement);
        write!(f, "Board({placement})")
    }
}

/// The castling rights still held: up to four, one per side and wing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CastlingRights(u8);

impl CastlingRights {
    /// No right at all (`-` in a FEN).
    pub const NONE: CastlingRights = CastlingRights(0);
    /// All four rights (`KQkq`).
    pub const ALL: CastlingRights = CastlingRights(0b1111);

    const fn bit(color: Color, side: CastlingSide) -> u8 {
        let base = match color {
            Color::White => 0,
            Color::Black => 2,
        };
        match side {
            CastlingSide::KingSide => 1 << base,
            CastlingSide::QueenSide => 1 << (base + 1),
        }
    }

    /// Whether `color` may still castle on `side`.
    #[must_use]
    pub const fn has(self, color: Color, side: CastlingSide) -> bool {
        self.0 & CastlingRights::bit(color, side) != 0
    }

    /// Grants or removes one right.
    pub fn set(&mut self, color: Color, side: CastlingSide, allowed: bool) {
        if allowed {
            self.0 |= CastlingRights::bit(color, side);
        } else {
            self.0 &= !CastlingRights::bit(color, side);
        }
    }

    /// The rights as four bits (K = 1, Q = 2, k = 4, q = 8), for hashing and tables.
    pub(crate) const fn bits(self) -> u8 {
        self.0
    }

    /// Keeps only the rights in `mask`.
    pub(crate) fn retain(&mut self, mask: u8) {
        self.0 &= mask;
    }

    /// Every (colour, side, FEN letter) in FEN order.
    const LETTERS: [(Color, CastlingSide, char); 4] = [
        (Color::White, CastlingSide::KingSide, 'K'),
        (Color::White, CastlingSide::QueenSide, 'Q'),
        (Color::Black, CastlingSide::KingSide, 'k'),
        (Color::Black, CastlingSide::QueenSide, 'q'),
    ];
}

/// A position as a FEN describes it, not yet checked for sense.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The pieces.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// The castling rights.
    pub castling: CastlingRights,
    /// The square a pawn skipped with its two-square move on the last turn, if any.
    pub ep_square: Option<Square>,
    /// Half-moves since the last capture or pawn move.
    pub halfmove_clock: u32,
    /// The number of the current full move, from 1.
    pub fullmove_number: u32,
}

impl Default for Setup {
    /// The standard starting position.
    fn default() -> Setup {
        Setup {
            board: Board::standard(),
            turn: Color::White,
            castling: CastlingRights::ALL,
            ep_square: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }
}

/// The FEN field names, for error messages (field numbers count from 1).
const FIELD_NAMES: [&str; 6] = [
    "piece placement",
    "side to move",
    "castling",
    "en passant",
    "halfmove clock",
    "fullmove number",
];

fn bad_field(field: usize, detail: impl fmt::Display) -> SetupError {
    SetupError::in_field(
        field + 1,
        format!("bad field {} ({}): {detail}", field + 1, FIELD_NAMES[field]),
    )
}

impl Setup {
    /// Reads a FEN. White space between fields may be any run of spaces or tabs; the
    /// halfmove clock and fullmove number may be left out (they default to 0 and 1), so
    /// four-field EPD positions read too.
    pub fn from_fen(text: &str) -> Result<Setup, SetupError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.is_empty() {
            return Err(SetupError::new("empty position string"));
        }
        if fields.len() < 4 {
            return Err(SetupError::in_field(
                fields.len() + 1,
                format!(
                    "missing field {} ({})",
                    fields.len() + 1,
                    FIELD_NAMES[fields.len()]
                ),
            ));
        }
        if fields.len() > 6 {
            return Err(SetupError::in_field(
                7,
                format!("unexpected text after field 6: '{}'", fields[6..].join(" ")),
            ));
        }
        let board = Board::read_placement(fields[0]).map_err(|detail| bad_field(0, detail))?;
        let turn = match fields[1] {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            other => {
                return Err(bad_field(
                    1,
                    format!("expected 'w' or 'b', found '{other}'"),
                ));
            }
        };
        let mut castling = CastlingRights::NONE;
        if fields[2] != "-" {
            for c in fields[2].chars() {
                let Some(&(color, side, _)) =
                    CastlingRights::LETTERS.iter().find(|(_, _, l)| *l == c)
                else {
                    return Err(bad_field(
                        2,
                        format!("unexpected '{c}' (expected KQkq or -)"),
                    ));
                };
                if castling.has(color, side) {
                    return Err(bad_field(2, format!("'{c}' appears twice")));
                }
                castling.set(color, side, true);
            }
        }
        let ep_square = match fields[3] {
            "-" => None,
            name => Some(
                Square::from_name(name)
                    .ok_or_else(|| bad_field(3, format!("'{name}' is not a square")))?,
            ),
        };
        let number = |index: usize, default: u32| -> Result<u32, SetupError> {
            match fields.get(index) {
                None => Ok(default),
                Some(text) => match text.parse::<u32>() {
                    Ok(n) => crate::games::check_count(n, index as u32 + 1, FIELD_NAMES[index]),
                    Err(_) if text.bytes().all(|b| b.is_ascii_digit()) => Err(bad_field(
                        index,
                        format!(
                            "{text} is more than {}, beyond any game",
                            crate::games::MAX_COUNT
                        ),
                    )),
                    Err(_) => Err(bad_field(index, format!("'{text}' is not a number"))),
                },
            }
        };
        let halfmove_clock = number(4, 0)?;
        // Some writers put 0 here; the first move is move 1 whatever they meant.
        let fullmove_number = number(5, 1)?.max(1);
        Ok(Setup {
            board,
            turn,
            castling,
            ep_square,
            halfmove_clock,
            fullmove_number,
        })
    }

    /// Writes the standard six-field FEN.
    #[must_use]
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(90);
        self.board.write_placement(&mut out);
        out.push(' ');
        out.push(crate::games::side_field(self.turn));
        out.push(' ');
        let before = out.len();
        for (color, side, letter) in CastlingRights::LETTERS {
            if self.castling.has(color, side) {
                out.push(letter);
            }
        }
        if out.len() == before {
            out.push('-');
        }
        out.push(' ');
        match self.ep_square {
            Some(square) => out.push_str(&square.to_string()),
            None => out.push('-'),
        }
        out.push_str(&format!(
            " {} {}",
            self.halfmove_clock, self.fullmove_number
        ));
        out
    }

    /// Checks that the setup is a position chess can be played from, and returns it.
    pub fn validate(self) -> Result<Chess, SetupError> {
        Chess::from_setup(self)
    }

    /// Every reason the setup is not playable, first found first: the checks
    /// [`Setup::validate`] makes, without building the position.
    pub(crate) fn check(&self) -> Result<(), SetupError> {
        for color in [Color::White, Color::Black] {
            let kings = self.board.by_piece(color, Role::King).count();
            let side = color.name().to_ascii_lowercase();
            match kings {
                0 => return Err(SetupError::in_field(1, format!("missing {side} king"))),
                1 => {}
                2 => return Err(SetupError::in_field(1, format!("two {side} kings"))),
                n => return Err(SetupError::in_field(1, format!("{n} {side} kings"))),
            }
        }
        for color in [Color::White, Color::Black] {
            check_army(
                color,
                self.board.by_piece(color, Role::Pawn).count(),
                self.board.by_color(color).count(),
            )?;
        }
        let back_rank_pawns =
            self.board.by_role(Role::Pawn) & (Bitboard::rank(0) | Bitboard::rank(7));
        if let Some(square) = back_rank_pawns.first() {
            return Err(SetupError::in_field(
                1,
                format!("pawn on the back rank at {square}"),
            ));
        }
        for (color, side, letter) in CastlingRights::LETTERS {
            if !self.castling.has(color, side) {
                continue;
            }
            let back = Square::from_coords(0, 0).relative(color).rank();
            let king = Square::from_coords(4, back);
            let rook = Square::from_coords(side.rook_file(), back);
            let name = color.name().to_ascii_lowercase();
            if !self.board.by_piece(color, Role::King).contains(king) {
                return Err(SetupError::in_field(
                    3,
                    format!("castling right '{letter}' without the {name} king on {king}"),
                ));
            }
            if !self.board.by_piece(color, Role::Rook).contains(rook) {
                return Err(SetupError::in_field(
                    3,
                    format!("castling right '{letter}' without a {name} rook on {rook}"),
                ));
            }
        }
        if let Some(square) = self.ep_square {
            self.check_ep_square(square)?;
        }
        Ok(())
    }

    /// An en passant square is possible when the side not to move has just pushed a pawn
    /// two squares over it: the pawn stands in front of it, and it and the square the pawn
    /// came from are empty.
    fn check_ep_square(&self, square: Square) -> Result<(), SetupError> {
        let them = self.turn.other();
        let mover = them.name().to_ascii_lowercase();
        let fail = |why: String| {
            SetupError::in_field(4, format!("impossible en passant square {square}: {why}"))
        };
        // Seen from the pushing side, the skipped square is on its third rank.
        if square.relative(them).rank() != 2 {
            let rank = if them == Color::White { 3 } else { 6 };
            return Err(fail(format!(
                "with {} to move it must be on rank {rank}",
                self.turn.name().to_ascii_lowercase()
            )));
        }
        let forward: i8 = if them == Color::White { 8 } else { -8 };
        let (Some(pawn), Some(origin)) = (square.offset(forward), square.offset(-forward)) else {
            return Err(fail("off the board".to_owned()));
        };
        if !self.board.by_piece(them, Role::Pawn).contains(pawn) {
            return Err(fail(format!("no {mover} pawn on {pawn}")));
        }
        if self.board.occupied().contains(square) || self.board.occupied().contains(origin) {
            return Err(fail(format!("{square} and {origin} must be empty")));
        }
        Ok(())
    }
}

impl FromStr for Setup {
    type Err = SetupError;

    fn from_str(text: &str) -> Result<Setup, SetupError> {
        Setup::from_fen(text)
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

/// Refuses an army no game of chess can have: more than 8 pawns or more than 16 pieces of
/// one colour (Chess with wickets has the same armies).
pub(crate) fn check_army(color: Color, pawns: u32, pieces: u32) -> Result<(), SetupError> {
    let side = color.name().to_ascii_lowercase();
    if pawns > 8 {
        return Err(SetupError::in_field(
            1,
            format!("{pawns} {side} pawns: a side has at most 8"),
        ));
    }
    if pieces > 16 {
        return Err(SetupError::in_field(
            1,
            format!("{pieces} {side} pieces: a side has at most 16"),
        ));
    }
    Ok(())
}
