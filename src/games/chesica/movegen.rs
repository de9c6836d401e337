//! Turns and their generation: jumps first (compulsory for the whole side, continued as
//! long as the jumping piece can), then, only when no piece can jump, steps, slides and
//! replacement captures.

use crate::games::chess::Square;

use super::Chesica;
use super::board::{Board, Piece, step};

/// The most jumps one turn can make. A piece that only jumps two squares diagonally lands
/// on squares of one 4x4 lattice and jumps over the 3x3 squares between them; each of
/// those can hold one piece, taken at once, so a chain has at most nine jumps.
pub const MAX_JUMPS: usize = 9;

/// The four diagonal directions, forward ones (for White) first.
const DIAGONALS: [(i8, i8); 4] = [(-1, 1), (1, 1), (-1, -1), (1, -1)];
/// Forward, the two sideways directions and backward (for White).
const ORTHOGONALS: [(i8, i8); 4] = [(0, 1), (-1, 0), (1, 0), (0, -1)];

/// What a turn does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TurnKind {
    /// A step or slide to an empty square.
    Move,
    /// A capture by replacement: onto the square of an opposing piece.
    Capture,
    /// One or more jumps over opposing pieces, each taken at once.
    Jump,
}

/// A legal turn: the piece on `from` moves, by a step, a replacement capture or a chain of
/// jumps through every square in [`Turn::landings`]. Fixed size, no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    from: Square,
    kind: TurnKind,
    landings: [Square; MAX_JUMPS],
    len: u8,
    promotes: bool,
}

impl Turn {
    fn single(from: Square, to: Square, kind: TurnKind, promotes: bool) -> Turn {
        let mut landings = [from; MAX_JUMPS];
        landings[0] = to;
        Turn {
            from,
            kind,
            landings,
            len: 1,
            promotes,
        }
    }

    /// The square the piece starts from.
    #[must_use]
    pub fn from(&self) -> Square {
        self.from
    }

    /// The square the piece ends on.
    #[must_use]
    pub fn to(&self) -> Square {
        self.landings[usize::from(self.len) - 1]
    }

    /// A step, a replacement capture or jumps.
    #[must_use]
    pub fn kind(&self) -> TurnKind {
        self.kind
    }

    /// Every square the piece lands on, in order (one for a step or replacement capture).
    #[must_use]
    pub fn landings(&self) -> &[Square] {
        &self.landings[..usize::from(self.len)]
    }

    /// Whether the piece promotes (an unpromoted piece reaching the far rank).
    #[must_use]
    pub fn promotes(&self) -> bool {
        self.promotes
    }

    /// Whether the turn takes at least one piece.
    #[must_use]
    pub fn is_capture(&self) -> bool {
        self.kind != TurnKind::Move
    }

    /// The squares of the pieces a jump chain takes, in order (empty for other turns).
    pub fn jumped(&self) -> impl Iterator<Item = Square> + '_ {
        let jumps = if self.kind == TurnKind::Jump {
            self.landings()
        } else {
            &[]
        };
        let mut at = self.from;
        jumps.iter().map(move |&land| {
            let over = midpoint(at, land);
            at = land;
            over
        })
    }
}

/// The square halfway between two squares two apart on a diagonal.
pub(crate) fn midpoint(a: Square, b: Square) -> Square {
    Square::from_coords((a.file() + b.file()) / 2, (a.rank() + b.rank()) / 2)
}

/// The diagonal directions a piece may jump (and step as a checker) in: forward only
/// while unpromoted, all four once promoted.
pub(crate) fn checker_directions(piece: Piece) -> &'static [(i8, i8)] {
    match (piece.promoted, piece.color) {
        (true, _) => &DIAGONALS,
        (false, crate::games::Color::White) => &DIAGONALS[..2],
        (false, crate::games::Color::Black) => &DIAGONALS[2..],
    }
}

/// Where a jump from `at` in direction `(df, dr)` goes, if it is possible on `board`: the
/// opposing piece jumped over and the empty landing square.
pub(crate) fn jump_target(
    board: &Board,
    piece: Piece,
    at: Square,
    (df, dr): (i8, i8),
) -> Option<(Square, Square)> {
    let over = step(at, df, dr)?;
    let land = step(over, df, dr)?;
    let victim = board[over.index()]?;
    (victim.color != piece.color && board[land.index()].is_none()).then_some((over, land))
}

impl Chesica {
    /// Appends every legal turn: all jump chains when any piece can jump, else every step,
    /// slide and replacement capture.
    pub(crate) fn generate(&self, out: &mut Vec<Turn>) {
        let before = out.len();
        for from in self.own_squares() {
            self.jumps_from(from, out);
        }
        if out.len() > before {
            return;
        }
        for from in self.own_squares() {
            self.moves_from(from, out);
        }
    }

    /// Whether the side to move has any legal turn (found without listing them).
    #[must_use]
    pub fn has_legal_turn(&self) -> bool {
        self.own_squares().any(|from| {
            let piece = self.board[from.index()].expect("an own square holds a piece");
            checker_directions(piece)
                .iter()
                .any(|&direction| jump_target(&self.board, piece, from, direction).is_some())
                || self.any_move_from(from, piece)
        })
    }

    /// Whether some piece of the side to move can jump (and so must).
    #[must_use]
    pub fn must_jump(&self) -> bool {
        self.own_squares().any(|from| {
            let piece = self.board[from.index()].expect("an own square holds a piece");
            checker_directions(piece)
                .iter()
                .any(|&direction| jump_target(&self.board, piece, from, direction).is_some())
        })
    }

    /// The squares holding a piece of the side to move, a1 first.
    pub(crate) fn own_squares(&self) -> impl Iterator<Item = Square> + '_ {
        (0..64u8)
            .map(Square::new)
            .filter(|square| self.board[square.index()].is_some_and(|p| p.color == self.turn))
    }

    /// Appends every complete jump chain of the piece on `from`.
    pub(crate) fn jumps_from(&self, from: Square, out: &mut Vec<Turn>) {
        let Some(piece) = self.board[from.index()] else {
            return;
        };
        let mut board = self.board;
        board[from.index()] = None;
        let mut turn = Turn {
            from,
            kind: TurnKind::Jump,
            landings: [from; MAX_JUMPS],
            len: 0,
            promotes: false,
        };
        extend_chain(&mut board, piece, from, &mut turn, out);
    }

    /// Appends the steps, slides and replacement captures of the piece on `from`.
    fn moves_from(&self, from: Square, out: &mut Vec<Turn>) {
        let Some(piece) = self.board[from.index()] else {
            return;
        };
        self.for_each_move(from, piece, |to, kind| {
            let promotes = !piece.promoted && to.rank() == Piece::promotion_rank(piece.color);
            out.push(Turn::single(from, to, kind, promotes));
            false
        });
    }

    fn any_move_from(&self, from: Square, piece: Piece) -> bool {
        self.for_each_move(from, piece, |_, _| true)
    }

    /// Calls `found` with each target of a step, slide or replacement capture of `piece`
    /// on `from` (each target once) until it returns true; returns whether it did.
    ///
    /// Unpromoted: one square diagonally forward to an empty square (all kinds), a
    /// capture there (Bishop, Queen), one square forward or sideways to an empty square or
    /// a capture (Rook, Queen). Promoted: one square on any diagonal to an empty square
    /// (all kinds), diagonal slides and captures (Bishop, Queen), orthogonal slides and
    /// captures (Rook, Queen).
    pub(crate) fn for_each_move(
        &self,
        from: Square,
        piece: Piece,
        mut found: impl FnMut(Square, TurnKind) -> bool,
    ) -> bool {
        let forward = Piece::forward(piece.color);
        let diagonals: &[(i8, i8)] = checker_directions(piece);
        let orthogonals: &[(i8, i8)] = if piece.promoted {
            &ORTHOGONALS
        } else {
            &ORTHOGONALS[..3]
        };
        let diagonal_range = if piece.promoted && piece.role.diagonal() {
            7
        } else {
            1
        };
        // Diagonal directions are absolute; the orthogonal ones are turned for Black.
        for &(df, dr) in diagonals {
            let captures = piece.role.diagonal();
            if self.ray(from, piece, (df, dr), diagonal_range, captures, &mut found) {
                return true;
            }
        }
        if piece.role.orthogonal() {
            let range = if piece.promoted { 7 } else { 1 };
            for &(df, dr) in orthogonals {
                if self.ray(from, piece, (df, dr * forward), range, true, &mut found) {
                    return true;
                }
            }
        }
        false
    }

    /// Walks up to `range` squares from `from` along `(df, dr)`: empty squares are moves,
    /// the first occupied square ends the ray and is a capture when `captures` allows it
    /// and the piece there is an opponent's.
    fn ray(
        &self,
        from: Square,
        piece: Piece,
        (df, dr): (i8, i8),
        range: u8,
        captures: bool,
        found: &mut impl FnMut(Square, TurnKind) -> bool,
    ) -> bool {
        let mut at = from;
        for _ in 0..range {
            let Some(next) = step(at, df, dr) else {
                return false;
            };
            match self.board[next.index()] {
                None => {
                    if found(next, TurnKind::Move) {
                        return true;
                    }
                }
                Some(other) => {
                    return captures
                        && other.color != piece.color
                        && found(next, TurnKind::Capture);
                }
            }
            at = next;
        }
        false
    }
}

/// Depth-first search over the jumps from `at`: every chain is followed until the piece
/// can jump no more or promotes, and only then recorded. `board` has the jumping piece
/// lifted off and the pieces taken so far removed.
fn extend_chain(board: &mut Board, piece: Piece, at: Square, turn: &mut Turn, out: &mut Vec<Turn>) {
    let mut jumped = false;
    for &direction in checker_directions(piece) {
        let Some((over, land)) = jump_target(board, piece, at, direction) else {
            continue;
        };
        jumped = true;
        let taken = board[over.index()].take();
        turn.landings[usize::from(turn.len)] = land;
        turn.len += 1;
        if !piece.promoted && land.rank() == Piece::promotion_rank(piece.color) {
            out.push(Turn {
                promotes: true,
                ..*turn
            });
        } else {
            extend_chain(board, piece, land, turn, out);
        }
        turn.len -= 1;
        turn.landings[usize::from(turn.len)] = turn.from;
        board[over.index()] = taken;
    }
    if !jumped && turn.len > 0 {
        out.push(*turn);
    }
}
