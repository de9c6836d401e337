//! The board as the converters see it: every place of a game, in a fixed order, with
//! the pieces on it bottom to top, each named the way Zillions of Games and Game Courier
//! name pieces. A game describes itself this way through [`Game::snapshot`] and
//! [`Game::PIECE_KINDS`]; `convert` derives foreign moves from the difference between
//! two snapshots and matches foreign moves by comparing snapshots, so it needs nothing
//! else from a game.
//!
//! [`Game::snapshot`]: crate::games::Game::snapshot
//! [`Game::PIECE_KINDS`]: crate::games::Game::PIECE_KINDS

use crate::games::Color;

/// A kind of piece as foreign programs name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceKind {
    /// The Zillions name, one word or several (`Pawn`, `Promoted Bishop`).
    pub name: &'static str,
    /// The Game Courier label for White, without spaces (`P`, `+B`); Black's is the same
    /// in lowercase.
    pub label: &'static str,
}

/// One piece on a place: its side and its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Man {
    /// Whose piece it is.
    pub color: Color,
    /// What it is.
    pub kind: PieceKind,
}

impl Man {
    /// The Game Courier label: the kind's label, lowercase for Black.
    #[must_use]
    pub fn label(self) -> String {
        match self.color {
            Color::White => self.kind.label.to_owned(),
            Color::Black => self.kind.label.to_ascii_lowercase(),
        }
    }
}

/// How many pieces a place holds and whether their order counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stacking {
    /// At most one piece: a piece moved or dropped onto an occupied place replaces what
    /// was there (a capture).
    Single,
    /// Several pieces in no particular order (stones of a square): pieces are compared
    /// as a set.
    Unordered,
    /// Several pieces bottom to top, and the order matters (stacks).
    Ordered,
}

/// One place and its pieces, bottom to top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The place's name as both formats write it (`e4`, `w0`).
    pub name: String,
    /// The pieces, bottom to top (empty for an empty place).
    pub pieces: Vec<Man>,
}

/// Every place of a position, in a fixed order that does not depend on the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// How places hold pieces.
    pub stacking: Stacking,
    /// The places, in the game's fixed order.
    pub places: Vec<Place>,
}

impl Snapshot {
    /// An empty snapshot of the given places.
    #[must_use]
    pub fn new(stacking: Stacking, names: impl IntoIterator<Item = String>) -> Snapshot {
        Snapshot {
            stacking,
            places: names
                .into_iter()
                .map(|name| Place {
                    name,
                    pieces: Vec::new(),
                })
                .collect(),
        }
    }

    /// A snapshot of the given places holding the given pieces, place by place in the
    /// same order (an `Option<Man>` for a place of one piece, any list for a stack).
    #[must_use]
    pub fn filled<P: IntoIterator<Item = Man>>(
        stacking: Stacking,
        names: impl IntoIterator<Item = String>,
        contents: impl IntoIterator<Item = P>,
    ) -> Snapshot {
        let mut snapshot = Snapshot::new(stacking, names);
        for (place, pieces) in snapshot.places.iter_mut().zip(contents) {
            place.pieces.extend(pieces);
        }
        snapshot
    }

    /// The index of the place with this name (compared case-insensitively).
    #[must_use]
    pub fn find(&self, name: &str) -> Option<usize> {
        self.places
            .iter()
            .position(|place| place.name.eq_ignore_ascii_case(name))
    }

    /// The same snapshot with each place's pieces in a canonical order when their order
    /// does not count, so that two snapshots compare as the game compares positions.
    #[must_use]
    pub fn normalized(mut self) -> Snapshot {
        if self.stacking == Stacking::Unordered {
            for place in &mut self.places {
                place.pieces.sort();
            }
        }
        self
    }
}

/// The names `a1`..`h8` of the 64 squares, a1 first, rank by rank.
pub fn square_names() -> impl Iterator<Item = String> {
    (0..64u8).map(|index| {
        let file = char::from(b'a' + index % 8);
        let rank = char::from(b'1' + index / 8);
        format!("{file}{rank}")
    })
}
