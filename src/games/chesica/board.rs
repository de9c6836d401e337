//! The pieces of Chesica, the board and the position string.

use std::fmt;

use crate::games::chess::Square;
use crate::games::{Color, SetupError};

/// A kind of piece. Each kind exists unpromoted (a checker with a little of its chess
/// piece's move) and promoted (a checkers king with the whole chess move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Adds a capture one square diagonally forward; promoted, the chess bishop's slides.
    Bishop,
    /// Adds a step or capture one square forward or sideways; promoted, the rook's slides.
    Rook,
    /// Both of the above.
    Queen,
}

impl Role {
    /// All kinds.
    pub const ALL: [Role; 3] = [Role::Bishop, Role::Rook, Role::Queen];

    /// The uppercase letter: `B`, `R` or `Q`.
    #[must_use]
    pub const fn upper_char(self) -> char {
        match self {
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
        }
    }

    /// The kind for an uppercase letter.
    #[must_use]
    pub const fn from_upper_char(c: char) -> Option<Role> {
        match c {
            'B' => Some(Role::Bishop),
            'R' => Some(Role::Rook),
            'Q' => Some(Role::Queen),
            _ => None,
        }
    }

    /// `"bishop"`, `"rook"` or `"queen"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
        }
    }

    /// Whether the kind moves along diagonals (a bishop or a queen).
    pub(crate) const fn diagonal(self) -> bool {
        matches!(self, Role::Bishop | Role::Queen)
    }

    /// Whether the kind moves along files and ranks (a rook or a queen).
    pub(crate) const fn orthogonal(self) -> bool {
        matches!(self, Role::Rook | Role::Queen)
    }
}

/// A piece: its side, its kind and whether it has promoted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// Its kind.
    pub role: Role,
    /// Whether it has reached the far rank.
    pub promoted: bool,
}

impl Piece {
    /// The letter of the position string: uppercase for White, lowercase for Black (the
    /// promotion marker `+` is written before it separately).
    #[must_use]
    pub const fn char(self) -> char {
        let upper = self.role.upper_char();
        match self.color {
            Color::White => upper,
            Color::Black => upper.to_ascii_lowercase(),
        }
    }

    /// An index `0..12` over side, kind and promotion, for hashing.
    pub(crate) const fn index(self) -> usize {
        let color = match self.color {
            Color::White => 0,
            Color::Black => 6,
        };
        let role = match self.role {
            Role::Bishop => 0,
            Role::Rook => 1,
            Role::Queen => 2,
        };
        color + role + if self.promoted { 3 } else { 0 }
    }

    /// The rank (0..8) on which this side's unpromoted pieces promote.
    pub(crate) const fn promotion_rank(color: Color) -> u8 {
        match color {
            Color::White => 7,
            Color::Black => 0,
        }
    }

    /// +1 for White (toward rank 8), -1 for Black.
    pub(crate) const fn forward(color: Color) -> i8 {
        match color {
            Color::White => 1,
            Color::Black => -1,
        }
    }
}

impl fmt::Display for Piece {
    /// `white bishop`, `black promoted queen`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let color = match self.color {
            Color::White => "white",
            Color::Black => "black",
        };
        let promoted = if self.promoted { "promoted " } else { "" };
        write!(f, "{color} {promoted}{}", self.role.name())
    }
}

/// The 64 squares, each empty or holding one piece.
pub type Board = [Option<Piece>; 64];

/// The square `(file + df, rank + dr)`, when it is on the board.
pub(crate) fn step(square: Square, df: i8, dr: i8) -> Option<Square> {
    let file = square.file() as i8 + df;
    let rank = square.rank() as i8 + dr;
    ((0..8).contains(&file) && (0..8).contains(&rank))
        .then(|| Square::from_coords(file as u8, rank as u8))
}

/// The board of the standard start: Queens on the first rank, Rooks on the second and
/// Bishops on the third, on the dark squares as in checkers (a1, b2, a3 for White), and
/// Black the same from the other side (b8, a7, b6).
pub(crate) fn start_board() -> Board {
    let mut board: Board = [None; 64];
    let rows = [
        (0, Role::Queen, Color::White),
        (1, Role::Rook, Color::White),
        (2, Role::Bishop, Color::White),
        (5, Role::Bishop, Color::Black),
        (6, Role::Rook, Color::Black),
        (7, Role::Queen, Color::Black),
    ];
    for (rank, role, color) in rows {
        for file in (0..8u8).filter(|file| (file + rank) % 2 == 0) {
            board[Square::from_coords(file, rank).index()] = Some(Piece {
                color,
                role,
                promoted: false,
            });
        }
    }
    board
}

/// Writes the placement field: ranks 8 to 1, `/` between them, digits for runs of empty
/// squares, `+` before a promoted piece's letter.
pub(crate) fn write_placement(board: &Board, out: &mut String) {
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[Square::from_coords(file, rank).index()] {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        out.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    if piece.promoted {
                        out.push('+');
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

/// Reads the placement field (see [`write_placement`]).
pub(crate) fn read_placement(field: &str) -> Result<Board, SetupError> {
    let bad =
        |message: String| SetupError::new(format!("bad field 1 (piece placement): {message}"));
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(bad(format!("expected 8 ranks, found {}", ranks.len())));
    }
    let mut board: Board = [None; 64];
    for (row, text) in ranks.iter().enumerate() {
        let rank = 7 - row as u8;
        let mut file: u8 = 0;
        let mut promoted = false;
        for c in text.chars() {
            if promoted && !c.is_ascii_alphabetic() {
                return Err(bad(format!(
                    "'+' must be followed by a piece letter on rank {}",
                    rank + 1
                )));
            }
            match c {
                '+' => promoted = true,
                '1'..='8' => file += c as u8 - b'0',
                _ => {
                    let role = Role::from_upper_char(c.to_ascii_uppercase())
                        .ok_or_else(|| bad(format!("unknown piece letter '{c}'")))?;
                    let color = if c.is_ascii_uppercase() {
                        Color::White
                    } else {
                        Color::Black
                    };
                    if file < 8 {
                        board[Square::from_coords(file, rank).index()] = Some(Piece {
                            color,
                            role,
                            promoted,
                        });
                    }
                    file += 1;
                    promoted = false;
                }
            }
            if file > 8 {
                break;
            }
        }
        if promoted {
            return Err(bad(format!(
                "'+' must be followed by a piece letter on rank {}",
                rank + 1
            )));
        }
        if file != 8 {
            return Err(bad(format!(
                "rank {} has {file} squares instead of 8",
                rank + 1
            )));
        }
    }
    Ok(board)
}

/// Refuses placements the game cannot reach or play: an unpromoted piece on its own
/// promotion rank, or no piece at all.
pub(crate) fn check_board(board: &Board) -> Result<(), SetupError> {
    if board.iter().all(Option::is_none) {
        return Err(SetupError::new("the board is empty"));
    }
    for color in [Color::White, Color::Black] {
        // Four queens, four rooks and four bishops a side.
        let count = board
            .iter()
            .flatten()
            .filter(|piece| piece.color == color)
            .count();
        if count > 12 {
            return Err(SetupError::new(format!(
                "{} has {count} pieces, more than 12",
                color.name().to_lowercase()
            )));
        }
    }
    for (index, piece) in board.iter().enumerate() {
        let Some(piece) = piece else { continue };
        let square = Square::new(index as u8);
        if !piece.promoted && square.rank() == Piece::promotion_rank(piece.color) {
            return Err(SetupError::new(format!(
                "unpromoted {piece} on its promotion rank at {square} (write +{})",
                piece.char()
            )));
        }
    }
    Ok(())
}
