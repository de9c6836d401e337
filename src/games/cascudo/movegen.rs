//! Pieces, single moves, attacks and cascade generation.
//!
//! A cascade is found by a depth-first search over chains on one scratch board, changed
//! and restored in place: each link moves the token in hand; a move onto an unmoved
//! friendly token places the mover there and takes that token in hand for the next link
//! (an internal move); a move to an empty cell or onto an enemy token other than the King
//! ends the chain (an external move), allowed from the second link on. A bit set of
//! cells holding tokens that already moved keeps every token to one move. Whether the
//! mover's King is in check is asked only at the leaves, and for one first mover it
//! depends only on the chain's last cell and the King's cell: most leaves are answered
//! from the board with the first mover lifted (the cells a last move could change the
//! King's lines through), the rest remembered by those two cells. Nothing is allocated
//! per node: the chain lives in a fixed array and finished turns are pushed to the
//! caller's vector (perft's last level only counts them).

use std::fmt;

use crate::games::Color;

use super::Cascudo;
use super::hex::{
    BLACK_PAWN_CAPTURES, CELLS, Cell, CellSet, DIAGONAL, DOWN, ORTHOGONAL, UP, WHITE_PAWN_CAPTURES,
    grows,
};

/// A kind of token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// One cell straight forward; captures one cell sideways-forward.
    Pawn,
    /// Glinski's knight: twelve leaps.
    Knight,
    /// Slides along the six vertex directions, keeping to its colour.
    Bishop,
    /// Slides along the six edge directions.
    Rook,
    /// Rook and bishop.
    Queen,
    /// Queen and knight; never captured.
    King,
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

    /// What a pawn may promote to.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// The uppercase letter.
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

    /// The kind for an uppercase letter.
    #[must_use]
    pub const fn from_upper_char(c: char) -> Option<Role> {
        match c {
            'P' => Some(Role::Pawn),
            'N' => Some(Role::Knight),
            'B' => Some(Role::Bishop),
            'R' => Some(Role::Rook),
            'Q' => Some(Role::Queen),
            'K' => Some(Role::King),
            _ => None,
        }
    }

    /// The kind's name in words.
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

    const fn slides_orthogonally(self) -> bool {
        matches!(self, Role::Rook | Role::Queen | Role::King)
    }

    const fn slides_diagonally(self) -> bool {
        matches!(self, Role::Bishop | Role::Queen | Role::King)
    }

    const fn leaps(self) -> bool {
        matches!(self, Role::Knight | Role::King)
    }
}

/// A token: its side and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose token it is.
    pub color: Color,
    /// Its kind.
    pub role: Role,
}

impl Piece {
    /// The letter of the position string: uppercase for White, lowercase for Black.
    #[must_use]
    pub const fn char(self) -> char {
        let upper = self.role.upper_char();
        match self.color {
            Color::White => upper,
            Color::Black => upper.to_ascii_lowercase(),
        }
    }

    /// The token for a letter of the position string.
    #[must_use]
    pub fn from_char(c: char) -> Option<Piece> {
        let role = Role::from_upper_char(c.to_ascii_uppercase())?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, role })
    }

    /// An index `0..12` over side and kind, for hashing.
    pub(crate) const fn index(self) -> usize {
        let color = match self.color {
            Color::White => 0,
            Color::Black => 6,
        };
        color + self.role as usize
    }
}

impl fmt::Display for Piece {
    /// `white knight`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let color = match self.color {
            Color::White => "white",
            Color::Black => "black",
        };
        write!(f, "{color} {}", self.role.name())
    }
}

/// The 44 cells, each empty or holding one token.
pub type Board = [Option<Piece>; CELLS];

/// The cell where a side's pawn on `cell` promotes: the end of its file in its direction.
#[must_use]
pub const fn promotes_on(color: Color, cell: Cell) -> bool {
    match color {
        Color::White => cell.is_top(),
        Color::Black => cell.is_bottom(),
    }
}

/// The most links a cascade can have: every token of a side moves at most once, and a
/// position holds at most 16 tokens a side.
pub const MAX_LINKS: usize = 16;

/// The most tokens a side may have (as at the start).
pub const MAX_TOKENS: usize = 16;

/// A legal turn: the cells of the chain (the first mover's origin, then each link's
/// destination) and the promotion made on each link, if any. Fixed size, no allocation.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Turn {
    cells: [Cell; MAX_LINKS + 1],
    promotions: [Option<Role>; MAX_LINKS],
    links: u8,
}

impl Turn {
    pub(crate) fn empty(origin: Cell) -> Turn {
        Turn {
            cells: [origin; MAX_LINKS + 1],
            promotions: [None; MAX_LINKS],
            links: 0,
        }
    }

    /// The first mover's origin.
    #[must_use]
    pub fn origin(&self) -> Cell {
        self.cells[0]
    }

    /// The number of links (moves), at least two.
    #[must_use]
    pub fn links(&self) -> usize {
        usize::from(self.links)
    }

    /// The origin, then every link's destination: `links() + 1` cells.
    #[must_use]
    pub fn cells(&self) -> &[Cell] {
        &self.cells[..self.links() + 1]
    }

    /// The promotion made on each link, in order.
    #[must_use]
    pub fn promotions(&self) -> &[Option<Role>] {
        &self.promotions[..self.links()]
    }

    /// The destination of the last (external) move.
    #[must_use]
    pub fn last(&self) -> Cell {
        self.cells[self.links()]
    }

    pub(crate) fn push(&mut self, to: Cell, promotion: Option<Role>) {
        let links = self.links();
        self.cells[links + 1] = to;
        self.promotions[links] = promotion;
        self.links += 1;
    }

    /// Undoes the last `push`, clearing its entries so that equal chains compare equal.
    pub(crate) fn pop(&mut self) {
        self.links -= 1;
        let links = self.links();
        self.cells[links + 1] = self.cells[0];
        self.promotions[links] = None;
    }
}

impl fmt::Debug for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Turn({}", self.origin())?;
        for (to, promotion) in self.cells()[1..].iter().zip(self.promotions()) {
            write!(f, "-{to}")?;
            if let Some(role) = promotion {
                write!(f, "={}", role.upper_char())?;
            }
        }
        f.write_str(")")
    }
}

/// Calls `visit(target)` for each cell the `piece` on `from` could move to on `board` by
/// its own move, whatever stands there (own tokens included: sliders stop on the first
/// token they meet). Pawns: forward onto any cell, sideways-forward only onto enemies.
/// Stops early and returns `true` when `visit` does.
pub(crate) fn for_each_target(
    board: &Board,
    from: Cell,
    piece: Piece,
    mut visit: impl FnMut(Cell) -> bool,
) -> bool {
    let role = piece.role;
    if role == Role::Pawn {
        let (forward, captures) = match piece.color {
            Color::White => (UP, WHITE_PAWN_CAPTURES),
            Color::Black => (DOWN, BLACK_PAWN_CAPTURES),
        };
        if let Some(to) = from.step(forward)
            && board[to.index()].is_none_or(|other| other.color == piece.color)
            && visit(to)
        {
            return true;
        }
        for direction in captures {
            if let Some(to) = from.step(direction)
                && board[to.index()].is_some_and(|other| other.color != piece.color)
                && visit(to)
            {
                return true;
            }
        }
        return false;
    }
    if role.leaps() {
        for &to in from.knight_targets() {
            if visit(Cell::new(to).expect("a table cell")) {
                return true;
            }
        }
    }
    let mut directions = [0usize; 12];
    let mut count = 0;
    if role.slides_orthogonally() {
        for d in ORTHOGONAL {
            directions[count] = d;
            count += 1;
        }
    }
    if role.slides_diagonally() {
        for d in DIAGONAL {
            directions[count] = d;
            count += 1;
        }
    }
    for &direction in &directions[..count] {
        let mut at = from;
        while let Some(next) = at.step(direction) {
            if visit(next) {
                return true;
            }
            if board[next.index()].is_some() {
                break;
            }
            at = next;
        }
    }
    false
}

/// Whether the King on `king` is in check (ruling 7): `by`, moving now, could make a
/// cascade (ruling 4, its own King's safety aside) whose last move lands on `king`.
///
/// Exact, without generating `by`'s cascades, from two facts. A cascade empties one cell
/// only, its first mover's origin: every other cell it passes keeps the token that arrived
/// there. So each of its moves, the last included, sees the board with that one cell
/// emptied. The last mover therefore attacks the King either at once or through the
/// first mover's origin (the only token between them on a line), and it must be set
/// moving: reached from that origin by a chain of moves onto unmoved own tokens. Most
/// positions have no such attacker, and the chains are followed only for those there are.
pub(crate) fn in_check(board: &Board, king: Cell, by: Color) -> bool {
    in_check_with(board, &sides_of(board), king, by)
}

/// The cells holding White's tokens and those holding Black's.
pub(crate) fn sides_of(board: &Board) -> [CellSet; 2] {
    let mut sides = [0; 2];
    for cell in Cell::all() {
        if let Some(piece) = board[cell.index()] {
            sides[side(piece.color)] |= cell.bit();
        }
    }
    sides
}

/// The index of a side in the cell sets of [`sides_of`].
const fn side(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// [`in_check`] with the cells of each side's tokens (`sides`, as [`sides_of`] gives
/// them) already known: the lines from the King are looked along as sets.
pub(crate) fn in_check_with(board: &Board, sides: &[CellSet; 2], king: Cell, by: Color) -> bool {
    let own = sides[side(by)];
    let occupied = sides[0] | sides[1];
    let mut leapers = king.knight_set() & own;
    while leapers != 0 {
        let cell = Cell::lowest(leapers);
        leapers &= leapers - 1;
        if board[cell.index()].is_some_and(|piece| piece.role.leaps())
            && set_moving(board, sides, cell, by)
        {
            return true;
        }
    }
    // A pawn of `by` lands on the cells its captures reach: it stands where the King's
    // side's own pawn captures would go.
    let from_pawn = match by {
        Color::White => BLACK_PAWN_CAPTURES,
        Color::Black => WHITE_PAWN_CAPTURES,
    };
    for direction in from_pawn {
        if let Some(cell) = king.step(direction)
            && own & cell.bit() != 0
            && board[cell.index()].is_some_and(|piece| piece.role == Role::Pawn)
            && set_moving(board, sides, cell, by)
        {
            return true;
        }
    }
    for direction in 0..DIRECTION_COUNT {
        let tokens = king.ray_set(direction) & occupied;
        let Some(first) = Cell::nearest(tokens, direction) else {
            continue;
        };
        if own & first.bit() == 0 {
            continue;
        }
        let Some(piece) = board[first.index()] else {
            continue;
        };
        let fits = slides_along(direction);
        if fits(piece.role) && set_moving(board, sides, first, by) {
            return true;
        }
        // Behind an own token, which only a first mover leaves.
        if let Some(second) = Cell::nearest(tokens & !first.bit(), direction)
            && own & second.bit() != 0
            && board[second.index()].is_some_and(|piece| fits(piece.role))
            && reaches(board, first, second, by)
        {
            return true;
        }
    }
    false
}

/// The cells on which a change could put the King on `king` in check by `by`, on a board
/// whose tokens are `sides`, when the King is safe at once for plain reasons: no leaper
/// of `by` stands a knight's leap from it and no pawn of `by` a pawn's capture, and on
/// each line from it the first token is none of `by`'s, or one of `by`'s that does not
/// slide along that line with no token of `by` that does right behind it. Then the cells
/// from the King up to that first token (the second one, behind a token of `by`), or to
/// the edge. All cells otherwise.
///
/// A chain's leaf differs from the board with its first mover lifted only by its last
/// cell filled with a token of the mover (taking `by`'s token there); the cells between
/// hold the mover's tokens, the King perhaps moved among them. With the King's cell at the
/// leaf as `king` and that board as `board`: if the last cell lies beyond those segments,
/// every line from the King meets the same first two tokens and `by` has no leaper or
/// pawn more, so [`in_check_with`] finds nothing: the King is safe.
fn shield(board: &Board, sides: &[CellSet; 2], king: Cell, by: Color) -> CellSet {
    let theirs = sides[side(by)];
    let occupied = sides[0] | sides[1];
    let role = |cell: Cell, fits: fn(Role) -> bool| {
        theirs & cell.bit() != 0 && board[cell.index()].is_some_and(|piece| fits(piece.role))
    };
    let mut leapers = king.knight_set() & theirs;
    while leapers != 0 {
        let cell = Cell::lowest(leapers);
        leapers &= leapers - 1;
        if role(cell, Role::leaps) {
            return CellSet::MAX;
        }
    }
    let pawn_cells = match by {
        Color::White => BLACK_PAWN_CAPTURES,
        Color::Black => WHITE_PAWN_CAPTURES,
    };
    for direction in pawn_cells {
        if king
            .step(direction)
            .is_some_and(|cell| role(cell, |role| role == Role::Pawn))
        {
            return CellSet::MAX;
        }
    }
    let mut exposed = 0;
    for direction in 0..DIRECTION_COUNT {
        let ray = king.ray_set(direction);
        let tokens = ray & occupied;
        let mut last = Cell::nearest(tokens, direction);
        if let Some(first) = last
            && theirs & first.bit() != 0
        {
            let fits = slides_along(direction);
            if role(first, fits) {
                return CellSet::MAX;
            }
            last = Cell::nearest(tokens & !first.bit(), direction);
            if last.is_some_and(|second| role(second, fits)) {
                return CellSet::MAX;
            }
        }
        exposed |= match last {
            None => ray,
            Some(last) if grows(direction) => ray & ((last.bit() << 1) - 1),
            Some(last) => ray & !(last.bit() - 1),
        };
    }
    exposed
}

/// The number of directions, edge and vertex.
const DIRECTION_COUNT: usize = 12;

/// Which roles slide along `direction`.
fn slides_along(direction: usize) -> fn(Role) -> bool {
    if ORTHOGONAL.contains(&direction) {
        Role::slides_orthogonally
    } else {
        Role::slides_diagonally
    }
}

/// Whether some cascade of `by` sets the token on `cell` (one of `by`'s) moving: another
/// of its tokens can move onto it at once, as a first mover, or a chain from some first
/// mover reaches it; a move the board as it stands does not allow can only pass through
/// the first mover's origin, the nearest token on a line from `cell`.
fn set_moving(board: &Board, sides: &[CellSet; 2], cell: Cell, by: Color) -> bool {
    if entered(board, sides, cell, by) {
        return true;
    }
    let own = sides[side(by)];
    let occupied = sides[0] | sides[1];
    for direction in 0..DIRECTION_COUNT {
        let tokens = cell.ray_set(direction) & occupied;
        if let Some(origin) = Cell::nearest(tokens, direction)
            && own & origin.bit() != 0
            && let Some(behind) = Cell::nearest(tokens & !origin.bit(), direction)
            && own & behind.bit() != 0
            && board[behind.index()].is_some_and(|piece| slides_along(direction)(piece.role))
            && reaches(board, origin, cell, by)
        {
            return true;
        }
    }
    false
}

/// Whether another token of `by` can move onto `cell` (holding one of `by`'s) on `board`.
fn entered(board: &Board, sides: &[CellSet; 2], cell: Cell, by: Color) -> bool {
    let own = sides[side(by)];
    let occupied = sides[0] | sides[1];
    let fits = |c: Cell, fits: fn(Role) -> bool| board[c.index()].is_some_and(|p| fits(p.role));
    let mut leapers = cell.knight_set() & own;
    while leapers != 0 {
        let leaper = Cell::lowest(leapers);
        leapers &= leapers - 1;
        if fits(leaper, Role::leaps) {
            return true;
        }
    }
    // A pawn enters a friendly token's cell only straight forward.
    let behind = match by {
        Color::White => DOWN,
        Color::Black => UP,
    };
    if cell
        .step(behind)
        .is_some_and(|c| own & c.bit() != 0 && fits(c, |role| role == Role::Pawn))
    {
        return true;
    }
    (0..DIRECTION_COUNT).any(|direction| {
        Cell::nearest(cell.ray_set(direction) & occupied, direction)
            .is_some_and(|hit| own & hit.bit() != 0 && fits(hit, slides_along(direction)))
    })
}

/// Whether a cascade of `by` whose first mover stands on `origin` can set the token on
/// `target` moving: a search over the moves onto own tokens, on the board with `origin`
/// emptied (the one cell a cascade empties); no token is entered twice.
fn reaches(board: &Board, origin: Cell, target: Cell, by: Color) -> bool {
    let mut scratch = *board;
    scratch[origin.index()] = None;
    let mut seen = 1u64 << origin.index();
    let mut stack = [origin; CELLS];
    let mut depth = 1;
    while depth > 0 {
        depth -= 1;
        let from = stack[depth];
        let Some(piece) = board[from.index()] else {
            continue;
        };
        let found = for_each_target(&scratch, from, piece, |to| {
            if seen & (1 << to.index()) != 0
                || scratch[to.index()].is_none_or(|other| other.color != by)
            {
                return false;
            }
            if to == target {
                return true;
            }
            seen |= 1 << to.index();
            stack[depth] = to;
            depth += 1;
            false
        });
        if found {
            return true;
        }
    }
    false
}

/// Where a side's King stands.
pub(crate) fn king_cell(board: &Board, color: Color) -> Option<Cell> {
    Cell::all().find(|c| board[c.index()].is_some_and(|p| p.color == color && p.role == Role::King))
}

/// What the search does with each legal turn it finds: collect it, or stop at the first.
trait Sink {
    /// Whether [`Sink::found`] looks at the turn; when not, it is handed the chain
    /// without its last move.
    const KEEPS_TURNS: bool;

    /// Takes a turn; `true` stops the search.
    fn found(&mut self, turn: &Turn) -> bool;
}

impl Sink for Vec<Turn> {
    const KEEPS_TURNS: bool = true;

    fn found(&mut self, turn: &Turn) -> bool {
        self.push(*turn);
        false
    }
}

/// Counts the legal turns (for perft's last level).
struct Count(u64);

impl Sink for Count {
    const KEEPS_TURNS: bool = false;

    fn found(&mut self, _: &Turn) -> bool {
        self.0 += 1;
        false
    }
}

/// Stops at the first legal turn (for [`Cascudo::has_legal_turn`]).
struct Any;

impl Sink for Any {
    const KEEPS_TURNS: bool = false;

    fn found(&mut self, _: &Turn) -> bool {
        true
    }
}

/// The scratch state of the search.
struct Search<'a, S: Sink> {
    board: Board,
    /// The cells of each side's tokens on `board` ([`sides_of`]), kept with it.
    sides: [CellSet; 2],
    /// Cells holding a token that has moved this turn.
    moved: u64,
    side: Color,
    king: Cell,
    /// The board when the first mover has just been lifted, and its cells of each side.
    origin_board: Board,
    origin_sides: [CellSet; 2],
    /// Whether the King is in check after a chain from this first mover's origin, by the
    /// King's cell and the chain's last cell (`king * CELLS + last`): 0 not known yet, 1
    /// safe, 2 in check. A chain leaves the board as it was with the first mover lifted
    /// but for the last cell, filled by an own token (an enemy one taken there), and own
    /// tokens, the King among them, changed about among the cells between; check by
    /// cascade reads only which cells are full, the enemy tokens and the King's cell, so
    /// the answer depends on the King's cell and the last cell alone.
    checks: Box<[u8; CELLS * CELLS]>,
    /// By the King's cell, what [`shield`] says of the board with the first mover lifted
    /// (0: not worked out yet; a shield is never empty).
    exposed: [CellSet; CELLS],
    /// Tests every leaf's check on its board, without `checks` and `exposed` (the plain
    /// definition, which a test compares with).
    plain: bool,
    chain: Turn,
    sink: &'a mut S,
}

impl<S: Sink> Search<'_, S> {
    /// Moves the token in hand (`piece`, leaving `from`) by every move it has; returns
    /// `true` when the sink stops the search.
    fn extend(&mut self, from: Cell, piece: Piece) -> bool {
        // Knight leaps never land on a line, so a token has at most 43 targets.
        let mut targets = [Cell::new(0).expect("a1"); 48];
        let mut count = 0;
        for_each_target(&self.board, from, piece, |to| {
            targets[count] = to;
            count += 1;
            false
        });
        for &to in &targets[..count] {
            if self.link(to, piece) {
                return true;
            }
        }
        false
    }

    /// One link to `to` by `piece`, with each promotion it may make.
    fn link(&mut self, to: Cell, piece: Piece) -> bool {
        let occupant = self.board[to.index()];
        let first = self.chain.links() == 0;
        let internal = match occupant {
            Some(other) if other.color == self.side => {
                if self.moved & (1 << to.index()) != 0 {
                    return false;
                }
                true
            }
            // The first move must be internal, and the enemy King is never captured.
            _ if first => return false,
            Some(other) if other.role == Role::King => return false,
            _ => false,
        };
        if piece.role == Role::Pawn && promotes_on(self.side, to) {
            for role in Role::PROMOTIONS {
                let promoted = Piece {
                    color: self.side,
                    role,
                };
                if self.place(to, promoted, Some(role), occupant, internal) {
                    return true;
                }
            }
            return false;
        }
        self.place(to, piece, None, occupant, internal)
    }

    /// Whether the chain ending with `piece` moving to `last`, the King then on `king`,
    /// leaves the King in check.
    fn leaves_check(&mut self, last: Cell, piece: Piece, king: Cell) -> bool {
        let them = self.side.other();
        if self.plain {
            return self.check_on_board(last, piece, king);
        }
        let mut exposed = self.exposed[king.index()];
        if exposed == 0 {
            exposed = shield(&self.origin_board, &self.origin_sides, king, them);
            self.exposed[king.index()] = exposed;
        }
        if exposed & last.bit() == 0 {
            return false;
        }
        let slot = king.index() * CELLS + last.index();
        match self.checks[slot] {
            1 => false,
            2 => true,
            _ => {
                let check = self.check_on_board(last, piece, king);
                self.checks[slot] = 1 + u8::from(check);
                check
            }
        }
    }

    /// [`Search::leaves_check`] worked out on the board with `piece` put on `last`.
    fn check_on_board(&mut self, last: Cell, piece: Piece, king: Cell) -> bool {
        let them = self.side.other();
        let occupant = self.board[last.index()];
        let sides = self.sides;
        self.board[last.index()] = Some(piece);
        self.sides[side(them)] &= !last.bit();
        self.sides[side(self.side)] |= last.bit();
        let check = in_check_with(&self.board, &self.sides, king, them);
        self.board[last.index()] = occupant;
        self.sides = sides;
        check
    }

    /// Puts `piece` (promoted, if it just did) on `to`; an internal move then moves the
    /// displaced token on, an external one ends the chain, which is legal when the
    /// mover's King is not attacked. Undoes everything before returning.
    fn place(
        &mut self,
        to: Cell,
        piece: Piece,
        promotion: Option<Role>,
        occupant: Option<Piece>,
        internal: bool,
    ) -> bool {
        if self.chain.links() == MAX_LINKS {
            return false;
        }
        if !internal {
            let king = if piece.role == Role::King {
                to
            } else {
                self.king
            };
            if self.leaves_check(to, piece, king) {
                return false;
            }
            if !S::KEEPS_TURNS {
                return self.sink.found(&self.chain);
            }
            self.chain.push(to, promotion);
            let stop = self.sink.found(&self.chain);
            self.chain.pop();
            return stop;
        }
        // An own token stands on `to` before and after: the sides' cells stay as they are.
        let displaced = occupant.expect("an internal move displaces a token");
        self.board[to.index()] = Some(piece);
        self.chain.push(to, promotion);
        self.moved |= to.bit();
        let saved_king = self.king;
        if piece.role == Role::King {
            self.king = to;
        }
        let stop = self.extend(to, displaced);
        self.king = saved_king;
        self.moved &= !to.bit();
        self.chain.pop();
        self.board[to.index()] = occupant;
        stop
    }
}

impl Cascudo {
    /// Runs the search with every own token as first mover, or only the one on `origin`.
    fn search<S: Sink>(&self, origin: Option<Cell>, sink: &mut S) -> bool {
        self.search_with(origin, false, sink)
    }

    /// [`Cascudo::search`], with `plain` testing every leaf's check on its board.
    fn search_with<S: Sink>(&self, origin: Option<Cell>, plain: bool, sink: &mut S) -> bool {
        let Some(king) = king_cell(&self.board, self.turn) else {
            return false;
        };
        let mut search = Search {
            board: self.board,
            sides: sides_of(&self.board),
            moved: 0,
            side: self.turn,
            king,
            origin_board: self.board,
            origin_sides: [0; 2],
            checks: Box::new([0; CELLS * CELLS]),
            exposed: [0; CELLS],
            plain,
            chain: Turn::empty(king),
            sink,
        };
        let mut only = origin.into_iter();
        let mut every = Cell::all();
        let origins: &mut dyn Iterator<Item = Cell> = if origin.is_some() {
            &mut only
        } else {
            &mut every
        };
        for origin in origins {
            let Some(piece) = self.board[origin.index()] else {
                continue;
            };
            if piece.color != self.turn {
                continue;
            }
            search.chain = Turn::empty(origin);
            search.checks.fill(0);
            search.board[origin.index()] = None;
            search.sides[side(piece.color)] &= !origin.bit();
            search.origin_board = search.board;
            search.origin_sides = search.sides;
            search.exposed = [0; CELLS];
            let stop = search.extend(origin, piece);
            search.board[origin.index()] = Some(piece);
            search.sides[side(piece.color)] |= origin.bit();
            if stop {
                return true;
            }
        }
        false
    }

    /// Appends every legal cascade.
    pub(crate) fn generate(&self, out: &mut Vec<Turn>) {
        self.search(None, out);
    }

    /// Appends every legal cascade whose first mover stands on `origin`.
    pub(crate) fn generate_from(&self, origin: Cell, out: &mut Vec<Turn>) {
        self.search(Some(origin), out);
    }

    /// Every legal cascade, each leaf's check tested on its board (the plain definition).
    #[cfg(test)]
    pub(crate) fn generate_plainly(&self, out: &mut Vec<Turn>) {
        self.search_with(None, true, out);
    }

    /// The number of legal cascades, found as [`Cascudo::generate`] finds them but not
    /// kept.
    pub(crate) fn count_turns(&self) -> u64 {
        let mut count = Count(0);
        self.search(None, &mut count);
        count.0
    }

    /// Whether the side to move has a legal cascade (stops at the first).
    pub(crate) fn has_legal_turn(&self) -> bool {
        self.search(None, &mut Any)
    }

    /// Whether the side to move's King is in check: the opponent, moving now, could make
    /// a cascade whose last move lands on it (ruling 7).
    #[must_use]
    pub fn is_check(&self) -> bool {
        king_cell(&self.board, self.turn)
            .is_some_and(|king| in_check(&self.board, king, self.turn.other()))
    }
}
