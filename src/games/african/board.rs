//! Squares of stones: how many plain stones of each colour a square holds and whether it
//! holds either touchstone, the 64-square board, and the position string's placement.
//!
//! The page never asks in which order the stones of a square lie (capture looks at how
//! many of each colour a square held, sowing lifts every own stone), so a square is four
//! counts, not an ordered stack.

use std::fmt::Write as _;

use crate::games::chess::Square;
use crate::games::{Color, SetupError};

/// At most this many stones share a square.
pub const MAX_STONES: u8 = 4;

/// The stones on one square.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cell {
    plain: [u8; 2],
    touchstone: [bool; 2],
}

/// The 64 squares, a1 = 0 to h8 = 63.
pub type Board = [Cell; 64];

const fn side(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl Cell {
    /// An empty square.
    pub const EMPTY: Cell = Cell {
        plain: [0, 0],
        touchstone: [false, false],
    };

    /// The plain (unmarked) stones of one colour here.
    #[must_use]
    pub const fn plain(self, color: Color) -> u8 {
        self.plain[side(color)]
    }

    /// Whether this colour's touchstone is here.
    #[must_use]
    pub const fn has_touchstone(self, color: Color) -> bool {
        self.touchstone[side(color)]
    }

    /// Every stone of one colour here, the touchstone included.
    #[must_use]
    pub const fn stones(self, color: Color) -> u8 {
        self.plain(color) + self.has_touchstone(color) as u8
    }

    /// Every stone here.
    #[must_use]
    pub const fn total(self) -> u8 {
        self.stones(Color::White) + self.stones(Color::Black)
    }

    /// Whether the square holds no stone.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.total() == 0
    }

    pub(crate) fn add(&mut self, color: Color, touchstone: bool) {
        if touchstone {
            self.touchstone[side(color)] = true;
        } else {
            self.plain[side(color)] += 1;
        }
    }

    /// Takes every stone of one colour off the square.
    pub(crate) fn clear(&mut self, color: Color) {
        self.plain[side(color)] = 0;
        self.touchstone[side(color)] = false;
    }

    pub(crate) fn remove(&mut self, color: Color, touchstone: bool) {
        if touchstone {
            self.touchstone[side(color)] = false;
        } else {
            self.plain[side(color)] -= 1;
        }
    }

    /// A small number for hashing: five bits a colour.
    pub(crate) const fn code(self) -> u64 {
        (self.plain[0] as u64)
            | (self.touchstone[0] as u64) << 3
            | (self.plain[1] as u64) << 4
            | (self.touchstone[1] as u64) << 7
    }

    /// The square's letters in canonical order: `T`, `P`s, `t`, `p`s.
    pub fn write_letters(self, out: &mut String) {
        for color in [Color::White, Color::Black] {
            let (touch, plain) = match color {
                Color::White => ('T', 'P'),
                Color::Black => ('t', 'p'),
            };
            if self.has_touchstone(color) {
                out.push(touch);
            }
            for _ in 0..self.plain(color) {
                out.push(plain);
            }
        }
    }
}

/// The start: White's stones on ranks 1-2 with the touchstone on e1, Black's on ranks
/// 7-8 with the touchstone on e8 (ruling 1).
#[must_use]
pub fn start_board() -> Board {
    let mut board = [Cell::EMPTY; 64];
    for file in 0..8 {
        for (rank, color) in [
            (0, Color::White),
            (1, Color::White),
            (6, Color::Black),
            (7, Color::Black),
        ] {
            let touchstone = file == 4 && (rank == 0 || rank == 7);
            board[Square::from_coords(file, rank).index()].add(color, touchstone);
        }
    }
    board
}

/// Writes the placement: ranks from the eighth, `/` between them, a digit for a run of
/// empty squares, one letter for a square of one stone and the letters in parentheses for
/// a square of several.
pub fn write_placement(board: &Board, out: &mut String) {
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            let cell = board[Square::from_coords(file, rank).index()];
            if cell.is_empty() {
                empty += 1;
                continue;
            }
            if empty > 0 {
                let _ = write!(out, "{empty}");
                empty = 0;
            }
            if cell.total() > 1 {
                out.push('(');
                cell.write_letters(out);
                out.push(')');
            } else {
                cell.write_letters(out);
            }
        }
        if empty > 0 {
            let _ = write!(out, "{empty}");
        }
        if rank > 0 {
            out.push('/');
        }
    }
}

fn add_letter(cell: &mut Cell, letter: char) -> Result<(), SetupError> {
    let (color, touchstone) = match letter {
        'P' => (Color::White, false),
        'T' => (Color::White, true),
        'p' => (Color::Black, false),
        't' => (Color::Black, true),
        other => {
            return Err(SetupError::new(format!(
                "unexpected character '{other}' in the placement"
            )));
        }
    };
    if touchstone && cell.has_touchstone(color) {
        return Err(SetupError::new(format!(
            "a square holds the {} touchstone twice",
            color.name().to_lowercase()
        )));
    }
    cell.add(color, touchstone);
    Ok(())
}

/// Reads the placement that [`write_placement`] writes (letters inside parentheses in any
/// order, one letter in parentheses too).
pub fn read_placement(text: &str) -> Result<Board, SetupError> {
    let mut board = [Cell::EMPTY; 64];
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(SetupError::new(format!(
            "the placement has {} ranks, not 8",
            ranks.len()
        )));
    }
    for (row, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - row as u8;
        let mut file: u8 = 0;
        let mut chars = rank_text.chars();
        while let Some(c) = chars.next() {
            if file >= 8 {
                return Err(SetupError::new(format!(
                    "rank {} has more than 8 squares",
                    rank + 1
                )));
            }
            match c {
                '1'..='8' => file += c as u8 - b'0',
                '(' => {
                    let mut cell = Cell::EMPTY;
                    loop {
                        match chars.next() {
                            None => {
                                return Err(SetupError::new(format!(
                                    "rank {} has an unclosed '('",
                                    rank + 1
                                )));
                            }
                            Some(')') => break,
                            Some(letter) => add_letter(&mut cell, letter)?,
                        }
                    }
                    if cell.is_empty() {
                        return Err(SetupError::new(format!(
                            "rank {} has an empty '()'",
                            rank + 1
                        )));
                    }
                    board[Square::from_coords(file, rank).index()] = cell;
                    file += 1;
                }
                letter => {
                    add_letter(&mut board[Square::from_coords(file, rank).index()], letter)?;
                    file += 1;
                }
            }
        }
        if file != 8 {
            return Err(SetupError::new(format!(
                "rank {} has {file} squares, not 8",
                rank + 1
            )));
        }
    }
    Ok(board)
}

/// Checks the stones: at most four a square, exactly one touchstone and at most fifteen
/// plain stones a side.
pub fn check_board(board: &Board) -> Result<(), SetupError> {
    for (index, cell) in board.iter().enumerate() {
        if cell.total() > MAX_STONES {
            return Err(SetupError::new(format!(
                "{} holds {} stones (at most {MAX_STONES})",
                Square::new(index as u8),
                cell.total()
            )));
        }
    }
    for color in [Color::White, Color::Black] {
        let touchstones = board.iter().filter(|c| c.has_touchstone(color)).count();
        if touchstones != 1 {
            return Err(SetupError::new(format!(
                "{} has {touchstones} touchstones, not 1",
                color.name()
            )));
        }
        let plain: u32 = board.iter().map(|c| u32::from(c.plain(color))).sum();
        if plain > 15 {
            return Err(SetupError::new(format!(
                "{} has {plain} plain stones (at most 15)",
                color.name()
            )));
        }
    }
    Ok(())
}
