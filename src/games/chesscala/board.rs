//! The board of Chesscala: 48 squares in three mancala circuits, each holding a stack of
//! at most four pieces of either colour.
//!
//! A square is an index `rank * 6 + file` (a1 = 0, f8 = 47). A stack is four bytes, the
//! piece codes sorted from the highest down with zeros after them, so equal stacks are
//! equal bytes and a board is 192 bytes to copy. The order of the pieces on a square
//! carries no meaning in the rules; the fixed order is what the position string writes,
//! bottom to top.

use crate::games::{Color, SetupError};

/// Files on the board.
pub const FILES: u8 = 6;
/// Ranks on the board.
pub const RANKS: u8 = 8;
/// Squares on the board.
pub const SQUARES: usize = 48;
/// The most pieces a square holds.
pub const FULL: usize = 4;

/// A square, `rank * 6 + file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Sq(pub u8);

impl Sq {
    /// The square at a file (0 = a) and rank (0 = the first).
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Sq {
        Sq(rank * FILES + file)
    }

    /// The file, 0 = a.
    #[must_use]
    pub const fn file(self) -> u8 {
        self.0 % FILES
    }

    /// The rank, 0 = the first.
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0 / FILES
    }

    /// The index into a board.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The square `(df, dr)` away, if it is on the board.
    #[must_use]
    pub fn offset(self, df: i8, dr: i8) -> Option<Sq> {
        let file = i16::from(self.file()) + i16::from(df);
        let rank = i16::from(self.rank()) + i16::from(dr);
        ((0..i16::from(FILES)).contains(&file) && (0..i16::from(RANKS)).contains(&rank))
            .then(|| Sq::new(file as u8, rank as u8))
    }

    /// The next square of the square's mancala circuit ("counter-clockwise"): up the
    /// right file of the pair (b, d, f), across at rank 8, down the left file, across at
    /// rank 1.
    #[must_use]
    pub const fn successor(self) -> Sq {
        let (file, rank) = (self.file(), self.rank());
        if file % 2 == 1 {
            if rank < RANKS - 1 {
                Sq::new(file, rank + 1)
            } else {
                Sq::new(file - 1, rank)
            }
        } else if rank > 0 {
            Sq::new(file, rank - 1)
        } else {
            Sq::new(file + 1, rank)
        }
    }

    /// The mancala of the square: 0 for a-b, 1 for c-d, 2 for e-f.
    #[must_use]
    pub const fn mancala(self) -> u8 {
        self.file() / 2
    }

    /// Reads `a1`..`f8`.
    #[must_use]
    pub fn from_chars(file: u8, rank: u8) -> Option<Sq> {
        ((b'a'..=b'f').contains(&file) && (b'1'..=b'8').contains(&rank))
            .then(|| Sq::new(file - b'a', rank - b'1'))
    }
}

impl std::fmt::Display for Sq {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}{}",
            char::from(b'a' + self.file()),
            char::from(b'1' + self.rank())
        )
    }
}

/// A kind of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Moves only within its field; captures on the field's other square.
    King,
    /// Captures as in chess.
    Queen,
    /// Captures as in chess.
    Rook,
    /// Captures as in chess.
    Bishop,
    /// Captures as in chess.
    Knight,
    /// Captures as an advancer along queen lines, by a knight vector and by a double
    /// knight vector.
    Hammer,
    /// Captures only in its own stack.
    Bomb,
    /// A promoted Pawn: captures one square in any direction.
    Man,
    /// Captures one square diagonally toward its promotion rank.
    Pawn,
}

impl Role {
    /// Every role, in code order.
    pub const ALL: [Role; 9] = [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Hammer,
        Role::Bomb,
        Role::Man,
        Role::Pawn,
    ];

    /// The capital letter.
    #[must_use]
    pub const fn upper(self) -> char {
        match self {
            Role::King => 'K',
            Role::Queen => 'Q',
            Role::Rook => 'R',
            Role::Bishop => 'B',
            Role::Knight => 'N',
            Role::Hammer => 'H',
            Role::Bomb => 'O',
            Role::Man => 'M',
            Role::Pawn => 'P',
        }
    }

    /// The role of a letter of either case.
    #[must_use]
    pub fn from_char(c: char) -> Option<Role> {
        let upper = c.to_ascii_uppercase();
        Role::ALL.into_iter().find(|role| role.upper() == upper)
    }

    /// The English name, lowercase.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Queen => "queen",
            Role::Rook => "rook",
            Role::Bishop => "bishop",
            Role::Knight => "knight",
            Role::Hammer => "hammer",
            Role::Bomb => "bomb",
            Role::Man => "man",
            Role::Pawn => "pawn",
        }
    }
}

/// A piece: a side and a role, packed as a nonzero code (1..=18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece(u8);

impl Piece {
    /// The piece of a side and role.
    #[must_use]
    pub const fn new(color: Color, role: Role) -> Piece {
        // Black's codes are above White's, so a sorted stack keeps colours together.
        let base = match color {
            Color::White => 10,
            Color::Black => 1,
        };
        Piece(base + 8 - role as u8)
    }

    /// The side.
    #[must_use]
    pub const fn color(self) -> Color {
        if self.0 >= 10 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The role.
    #[must_use]
    pub const fn role(self) -> Role {
        let base = if self.0 >= 10 { 10 } else { 1 };
        Role::ALL[(8 - (self.0 - base)) as usize]
    }

    /// The code, 1..=18.
    #[must_use]
    pub const fn code(self) -> u8 {
        self.0
    }

    /// The letter as the position string writes it: White capitals, Black small.
    #[must_use]
    pub fn char(self) -> char {
        match self.color() {
            Color::White => self.role().upper(),
            Color::Black => self.role().upper().to_ascii_lowercase(),
        }
    }

    /// The piece of a letter as the position string writes it.
    #[must_use]
    pub fn from_char(c: char) -> Option<Piece> {
        let role = Role::from_char(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece::new(color, role))
    }

    /// This piece as placed on `square`: a Pawn on its promotion rank becomes a Man.
    #[must_use]
    pub const fn placed_on(self, square: Sq) -> Piece {
        if matches!(self.role(), Role::Pawn) && square.rank() == promotion_rank(self.color()) {
            Piece::new(self.color(), Role::Man)
        } else {
            self
        }
    }
}

/// The rank where a side's Pawns promote: 8 for White, 1 for Black.
#[must_use]
pub const fn promotion_rank(color: Color) -> u8 {
    match color {
        Color::White => RANKS - 1,
        Color::Black => 0,
    }
}

/// The pieces on one square, codes sorted from the highest down, zeros after.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Stack([u8; FULL]);

impl Stack {
    /// How many pieces the stack holds.
    #[must_use]
    pub fn len(self) -> usize {
        // The codes are sorted from the highest down with the zeros after them.
        self.0.iter().filter(|&&code| code != 0).count()
    }

    /// Whether the square is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0[0] == 0
    }

    /// Whether the stack holds four pieces.
    #[must_use]
    pub const fn is_full(self) -> bool {
        self.0[FULL - 1] != 0
    }

    /// The pieces, in the stack's fixed order (bottom to top).
    pub fn pieces(self) -> impl Iterator<Item = Piece> {
        self.0.into_iter().take_while(|&code| code != 0).map(Piece)
    }

    /// How many pieces of a side the stack holds.
    #[must_use]
    pub fn count(self, color: Color) -> usize {
        self.pieces().filter(|piece| piece.color() == color).count()
    }

    /// Whether a side controls the stack: an empty square, or at least as many of its
    /// pieces as the opponent's.
    #[must_use]
    pub fn controlled_by(self, color: Color) -> bool {
        self.count(color) >= self.count(color.other())
    }

    /// Whether the stack holds a piece.
    #[must_use]
    pub fn contains(self, piece: Piece) -> bool {
        self.0.contains(&piece.0)
    }

    /// Whether the stack holds a piece of a side other than a King.
    #[must_use]
    pub fn has_capturable(self, color: Color) -> bool {
        self.pieces()
            .any(|piece| piece.color() == color && piece.role() != Role::King)
    }

    /// Adds a piece (the stack must not be full).
    pub fn push(&mut self, piece: Piece) {
        debug_assert!(!self.is_full());
        let mut index = self.len();
        self.0[index] = piece.0;
        while index > 0 && self.0[index - 1] < self.0[index] {
            self.0.swap(index - 1, index);
            index -= 1;
        }
    }

    /// Removes one instance of a piece; returns whether it was there.
    pub fn remove(&mut self, piece: Piece) -> bool {
        let Some(index) = self.0.iter().position(|&code| code == piece.0) else {
            return false;
        };
        self.0.copy_within(index + 1.., index);
        self.0[FULL - 1] = 0;
        true
    }

    /// Lifts every piece but the Kings; returns them (in the stack's order) and how many.
    pub fn lift(&mut self) -> ([Piece; FULL], usize) {
        let mut lifted = [Piece(0); FULL];
        let mut count = 0;
        let mut kept = Stack::default();
        for piece in self.pieces() {
            if piece.role() == Role::King {
                kept.push(piece);
            } else {
                lifted[count] = piece;
                count += 1;
            }
        }
        *self = kept;
        (lifted, count)
    }

    /// The distinct pieces in the stack, each once, in order.
    pub fn distinct(self) -> impl Iterator<Item = Piece> {
        let codes = self.0;
        (0..FULL).filter_map(move |index| {
            (codes[index] != 0 && (index == 0 || codes[index - 1] != codes[index]))
                .then_some(Piece(codes[index]))
        })
    }
}

/// The 48 stacks.
pub type Board = [Stack; SQUARES];

/// The squares where the pieces of a sowing from `from` land, in order, on `board` (with
/// the sown pieces already lifted from `from`): each is the next square along the circuit
/// that is not full at that moment. They do not depend on the order of the pieces.
#[must_use]
pub fn sowing_squares(board: &Board, from: Sq, count: usize) -> [Sq; FULL] {
    sowing_squares_leaving(board, from, board[from.index()].len(), count)
}

/// [`sowing_squares`] on `board` as it would be with `left` pieces on `from` (the Kings a
/// sowing leaves there), without a copy of the board.
#[must_use]
pub fn sowing_squares_leaving(board: &Board, from: Sq, left: usize, count: usize) -> [Sq; FULL] {
    let mut squares = [Sq(0); FULL];
    let mut extra = [0u8; SQUARES];
    let mut at = from;
    for slot in squares.iter_mut().take(count) {
        loop {
            at = at.successor();
            let len = if at == from {
                left
            } else {
                board[at.index()].len()
            };
            if len + usize::from(extra[at.index()]) < FULL {
                break;
            }
        }
        extra[at.index()] += 1;
        *slot = at;
    }
    squares
}

/// Reads a placement: ranks 8 to 1 separated by `/`, each six squares; a digit is that
/// many empty squares, a letter a one-piece stack, `(...)` a stack bottom to top.
pub fn read_placement(text: &str) -> Result<Board, SetupError> {
    let mut board = [Stack::default(); SQUARES];
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != usize::from(RANKS) {
        return Err(SetupError::new(format!(
            "the placement has {} ranks, not 8",
            ranks.len()
        )));
    }
    for (row, rank_text) in ranks.iter().enumerate() {
        let rank = RANKS - 1 - row as u8;
        let mut file = 0u8;
        let mut chars = rank_text.chars();
        while let Some(c) = chars.next() {
            if file >= FILES {
                return Err(SetupError::new(format!(
                    "rank {} has more than 6 squares",
                    rank + 1
                )));
            }
            let square = Sq::new(file, rank);
            if let Some(digit) = c.to_digit(10) {
                if digit == 0 || file + digit as u8 > FILES {
                    return Err(SetupError::new(format!(
                        "rank {}: bad empty-square count '{c}'",
                        rank + 1
                    )));
                }
                file += digit as u8;
                continue;
            }
            let stack = &mut board[square.index()];
            if c == '(' {
                let mut closed = false;
                for inner in chars.by_ref() {
                    if inner == ')' {
                        closed = true;
                        break;
                    }
                    add_piece(stack, inner, square)?;
                }
                if !closed {
                    return Err(SetupError::new(format!(
                        "the stack on {square} is not closed"
                    )));
                }
                if stack.is_empty() {
                    return Err(SetupError::new(format!("the stack on {square} is empty")));
                }
            } else {
                add_piece(stack, c, square)?;
            }
            file += 1;
        }
        if file != FILES {
            return Err(SetupError::new(format!(
                "rank {} has {file} squares, not 6",
                rank + 1
            )));
        }
    }
    Ok(board)
}

fn add_piece(stack: &mut Stack, c: char, square: Sq) -> Result<(), SetupError> {
    let piece =
        Piece::from_char(c).ok_or_else(|| SetupError::new(format!("bad piece letter '{c}'")))?;
    if stack.is_full() {
        return Err(SetupError::new(format!(
            "the stack on {square} has more than 4 pieces"
        )));
    }
    stack.push(piece);
    Ok(())
}

/// Writes a placement as [`read_placement`] reads it.
pub fn write_placement(board: &Board, out: &mut String) {
    for rank in (0..RANKS).rev() {
        let mut empty = 0;
        for file in 0..FILES {
            let stack = board[Sq::new(file, rank).index()];
            if stack.is_empty() {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
                empty = 0;
            }
            if stack.len() == 1 {
                out.extend(stack.pieces().map(Piece::char));
            } else {
                out.push('(');
                out.extend(stack.pieces().map(Piece::char));
                out.push(')');
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

/// The two squares of every King's field: White c1/d1 and e1/f1, Black a8/b8 and c8/d8.
#[must_use]
pub fn field_partner(color: Color, square: Sq) -> Option<Sq> {
    let (rank, first) = match color {
        Color::White => (0, 2),
        Color::Black => (RANKS - 1, 0),
    };
    if square.rank() != rank || square.file() < first || square.file() > first + 3 {
        return None;
    }
    Some(Sq::new(square.file() ^ 1, rank))
}
