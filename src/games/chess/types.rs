//! The small vocabulary of chess: squares, piece kinds, pieces, castling sides.

use std::fmt;

use crate::games::Color;

/// A square of the board, numbered a1 = 0, b1 = 1, ..., h8 = 63 (little-endian rank-file
/// mapping, the one the bitboards use).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this index, `0..64` (a1 = 0, h8 = 63).
    ///
    /// # Panics
    ///
    /// When `index >= 64`.
    #[must_use]
    pub const fn new(index: u8) -> Square {
        assert!(index < 64, "square index out of range");
        Square(index)
    }

    /// The square on `file` (0 = a) and `rank` (0 = the first rank), both `0..8`.
    ///
    /// # Panics
    ///
    /// When either is 8 or more.
    #[must_use]
    pub const fn from_coords(file: u8, rank: u8) -> Square {
        assert!(file < 8 && rank < 8, "square coordinates out of range");
        Square(rank * 8 + file)
    }

    /// Reads a square name such as `e4`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Square> {
        match name.as_bytes() {
            &[file @ b'a'..=b'h', rank @ b'1'..=b'8'] => {
                Some(Square::from_coords(file - b'a', rank - b'1'))
            }
            _ => None,
        }
    }

    /// The index, `0..64`.
    #[must_use]
    #[inline]
    pub const fn index(self) -> usize {
        // Always below 64 (checked on the way in); the mask tells the compiler, so table
        // lookups by square need no bounds check.
        (self.0 & 63) as usize
    }

    /// The file, 0 (a) to 7 (h).
    #[must_use]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// The rank, 0 (the first rank) to 7 (the eighth).
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The file letter, `a` to `h`.
    #[must_use]
    pub const fn file_char(self) -> char {
        (b'a' + self.file()) as char
    }

    /// The rank digit, `1` to `8`.
    #[must_use]
    pub const fn rank_char(self) -> char {
        (b'1' + self.rank()) as char
    }

    /// The same square seen from the other side's back rank (e2 for White is e7 for
    /// Black). Used to write colour-independent rules once.
    #[must_use]
    pub(crate) const fn relative(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => Square(self.0 ^ 56),
        }
    }

    /// The square `delta` steps further on in index order, when it exists.
    pub(crate) const fn offset(self, delta: i8) -> Option<Square> {
        let index = self.0 as i8 + delta;
        if index >= 0 && index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), self.rank_char())
    }
}

/// A kind of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// A pawn.
    Pawn = 0,
    /// A knight.
    Knight = 1,
    /// A bishop.
    Bishop = 2,
    /// A rook.
    Rook = 3,
    /// A queen.
    Queen = 4,
    /// A king.
    King = 5,
}

impl Role {
    /// All kinds, pawn first.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    /// The uppercase letter of English notation (`P` for a pawn, which SAN omits).
    #[must_use]
    pub const fn upper_char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
        }
    }

    /// The lowercase letter (FEN for Black, UCI promotions).
    #[must_use]
    pub const fn lower_char(self) -> char {
        self.upper_char().to_ascii_lowercase()
    }

    /// Reads a piece letter in either case.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_uppercase() {
            'P' => Some(Role::Pawn),
            'N' => Some(Role::Knight),
            'B' => Some(Role::Bishop),
            'R' => Some(Role::Rook),
            'Q' => Some(Role::Queen),
            'K' => Some(Role::King),
            _ => None,
        }
    }

    /// The English name, lowercase (`knight`), for messages.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        }
    }

    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

/// A piece: a kind and a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// What kind of piece it is.
    pub role: Role,
}

impl Piece {
    /// The FEN letter: uppercase for White, lowercase for Black.
    #[must_use]
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.lower_char(),
        }
    }

    /// Reads a FEN letter.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Piece> {
        let Some(role) = Role::from_char(c) else {
            return None;
        };
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, role })
    }
}

/// The side of the board a king castles to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// Towards the h-file: `O-O`.
    KingSide,
    /// Towards the a-file: `O-O-O`.
    QueenSide,
}

impl CastlingSide {
    /// `kingside` or `queenside`, for messages.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CastlingSide::KingSide => "kingside",
            CastlingSide::QueenSide => "queenside",
        }
    }

    /// The notation, `O-O` or `O-O-O`.
    #[must_use]
    pub const fn notation(self) -> &'static str {
        match self {
            CastlingSide::KingSide => "O-O",
            CastlingSide::QueenSide => "O-O-O",
        }
    }

    /// The file the rook starts on in orthodox chess (h or a).
    pub(crate) const fn rook_file(self) -> u8 {
        match self {
            CastlingSide::KingSide => 7,
            CastlingSide::QueenSide => 0,
        }
    }

    /// The file the king lands on (g or c).
    pub(crate) const fn king_to_file(self) -> u8 {
        match self {
            CastlingSide::KingSide => 6,
            CastlingSide::QueenSide => 2,
        }
    }

    /// The file the rook lands on (f or d).
    pub(crate) const fn rook_to_file(self) -> u8 {
        match self {
            CastlingSide::KingSide => 5,
            CastlingSide::QueenSide => 3,
        }
    }
}

/// Index of a colour in two-element tables.
pub(crate) const fn color_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}
