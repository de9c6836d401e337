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

/// The cells `piece` on `from` could move to by its own move, as [`for_each_target`]
/// visits them, with the cells of each side's tokens `sides` ([`sides_of`]).
fn target_set(sides: &[CellSet; 2], from: Cell, piece: Piece) -> CellSet {
    let own = sides[side(piece.color)];
    let occupied = sides[0] | sides[1];
    let role = piece.role;
    if role == Role::Pawn {
        let (forward, captures) = match piece.color {
            Color::White => (UP, WHITE_PAWN_CAPTURES),
            Color::Black => (DOWN, BLACK_PAWN_CAPTURES),
        };
        let enemies = occupied & !own;
        let mut set = from.step(forward).map_or(0, Cell::bit) & !enemies;
        for direction in captures {
            set |= from.step(direction).map_or(0, Cell::bit) & enemies;
        }
        return set;
    }
    let mut set = if role.leaps() { from.knight_set() } else { 0 };
    if role.slides_orthogonally() {
        for direction in ORTHOGONAL {
            set |= slide(from, direction, occupied);
        }
    }
    if role.slides_diagonally() {
        for direction in DIAGONAL {
            set |= slide(from, direction, occupied);
        }
    }
    set
}

/// The cells from `from` along `direction` up to the first token of `occupied`
/// (included), or to the edge.
fn slide(from: Cell, direction: usize, occupied: CellSet) -> CellSet {
    let ray = from.ray_set(direction);
    match Cell::nearest(ray & occupied, direction) {
        None => ray,
        Some(stop) if grows(direction) => ray & ((stop.bit() << 1) - 1),
        Some(stop) => ray & !(stop.bit() - 1),
    }
}

/// By side (as [`side`] numbers them), the cells where its pawns promote.
const PROMOTION_CELLS: [CellSet; 2] = {
    let mut sets = [0; 2];
    let mut index = 0;
    while index < CELLS as u8 {
        if let Some(cell) = Cell::new(index) {
            if promotes_on(Color::White, cell) {
                sets[0] |= cell.bit();
            }
            if promotes_on(Color::Black, cell) {
                sets[1] |= cell.bit();
            }
        }
        index += 1;
    }
    sets
};

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

    /// Takes `count` turns at once (only when [`Sink::KEEPS_TURNS`] is false); `true`
    /// stops the search.
    fn found_many(&mut self, count: u64) -> bool;
}

impl Sink for Vec<Turn> {
    const KEEPS_TURNS: bool = true;

    fn found(&mut self, turn: &Turn) -> bool {
        self.push(*turn);
        false
    }

    fn found_many(&mut self, _: u64) -> bool {
        unreachable!("a list of turns takes each turn")
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

    fn found_many(&mut self, count: u64) -> bool {
        self.0 += count;
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

    fn found_many(&mut self, count: u64) -> bool {
        count > 0
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
    /// By the King's cell, whether [`in_check_with`] finds it attacked on the board with
    /// the first mover lifted (0: not worked out yet, 1: safe, 2: attacked).
    attacked: [u8; CELLS],
    /// The board before any first mover is lifted, its cells of each side, and by the
    /// King's cell what [`shield`] says of it (0: not worked out yet).
    whole_board: Board,
    whole_sides: [CellSet; 2],
    whole_shield: [CellSet; CELLS],
    /// For [`Search::count_chains`]: the cells whose [`target_set`] is in `targets`,
    /// and the count of legal external moves by cell and King cell (`from * CELLS +
    /// king`; `u8::MAX`: not worked out yet).
    known_targets: CellSet,
    targets: [CellSet; CELLS],
    leaves: Box<[u8; CELLS * CELLS]>,
    /// The enemy King's cell, as a set (never captured).
    their_king: CellSet,
    /// Tests every leaf's check on its board, without `checks` and `exposed`, and visits
    /// every target one by one (the plain definition, which a test compares with).
    plain: bool,
    chain: Turn,
    sink: &'a mut S,
}

impl<S: Sink> Search<'_, S> {
    /// Moves the token in hand (`piece`, leaving `from`) by every move it has; returns
    /// `true` when the sink stops the search.
    fn extend(&mut self, from: Cell, piece: Piece) -> bool {
        if !S::KEEPS_TURNS && !self.plain {
            return self.extend_counting(from, piece);
        }
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

    /// [`Search::extend`] for a sink that does not keep turns: the targets as a set
    /// ([`target_set`]), the external moves (from the second link on) counted at once,
    /// their check answered as [`Search::leaves_check`] answers it (the cells off the
    /// King's [`shield`] all at once when the King stays), a promoting pawn's move four
    /// times; then each internal move, in no particular order.
    fn extend_counting(&mut self, from: Cell, piece: Piece) -> bool {
        let links = self.chain.links();
        if links == MAX_LINKS {
            return false;
        }
        let us = side(self.side);
        let own = self.sides[us];
        let targets = target_set(&self.sides, from, piece);
        if links > 0 {
            let external = targets & !own & !self.their_king;
            if external != 0 {
                let count = if piece.role == Role::King {
                    let mut count = 0;
                    let mut cells = external;
                    while cells != 0 {
                        let to = Cell::lowest(cells);
                        cells &= cells - 1;
                        count += u64::from(!self.leaves_check(to, piece, to));
                    }
                    count
                } else {
                    let king = self.king;
                    let exposed = self.exposed_at(king);
                    let mut legal = external & !exposed;
                    let mut risky = external & exposed;
                    while risky != 0 {
                        let to = Cell::lowest(risky);
                        risky &= risky - 1;
                        if !self.leaves_check(to, piece, king) {
                            legal |= to.bit();
                        }
                    }
                    let mut count = u64::from(legal.count_ones());
                    if piece.role == Role::Pawn {
                        count += 3 * u64::from((legal & PROMOTION_CELLS[us]).count_ones());
                    }
                    count
                };
                if self.sink.found_many(count) {
                    return true;
                }
            }
        }
        let mut internal = targets & own & !self.moved;
        while internal != 0 {
            let to = Cell::lowest(internal);
            internal &= internal - 1;
            if self.link(to, piece) {
                return true;
            }
        }
        false
    }

    /// The number of legal cascades whose first mover, `piece`, has just been lifted
    /// from `origin`, found without playing the chains out.
    ///
    /// Every board along a chain has the same full cells (the first mover's origin
    /// emptied), and the token in hand on a cell is the one that stood there. So what a
    /// token can reach ([`target_set`]) is worked out once per cell, and what the chains
    /// ending on a cell add is worked out once per cell and King cell
    /// ([`Search::leaves_from`]): the count is a walk over the own tokens' cells, each
    /// entered once, a promotion counted four times.
    fn count_chains(&mut self, origin: Cell, piece: Piece) -> u64 {
        self.known_targets = 0;
        self.leaves.fill(u8::MAX);
        self.count_from(origin, piece, self.king, 0, 0)
    }

    /// [`Search::count_chains`] from the token `piece` in hand on `from` after `links`
    /// links, the King on `king` and the cells `moved` entered.
    fn count_from(
        &mut self,
        from: Cell,
        piece: Piece,
        king: Cell,
        moved: CellSet,
        links: usize,
    ) -> u64 {
        if links == MAX_LINKS {
            return 0;
        }
        let targets = self.targets_from(from, piece);
        let mut count = if links > 0 {
            self.leaves_from(from, piece, king, targets)
        } else {
            0
        };
        let mut internal = targets & self.origin_sides[side(self.side)] & !moved;
        while internal != 0 {
            let to = Cell::lowest(internal);
            internal &= internal - 1;
            let next = self.origin_board[to.index()].expect("an own token");
            let king = if piece.role == Role::King { to } else { king };
            let chains = self.count_from(to, next, king, moved | to.bit(), links + 1);
            count += if piece.role == Role::Pawn && promotes_on(self.side, to) {
                4 * chains
            } else {
                chains
            };
        }
        count
    }

    /// The [`target_set`] of `piece` on `from` on the board with the first mover lifted
    /// (worked out once per cell).
    fn targets_from(&mut self, from: Cell, piece: Piece) -> CellSet {
        if self.known_targets & from.bit() == 0 {
            self.targets[from.index()] = target_set(&self.origin_sides, from, piece);
            self.known_targets |= from.bit();
        }
        self.targets[from.index()]
    }

    /// The legal external moves of `piece` on `from` (its `targets`), the King on
    /// `king` unless it is the King that moves, a promotion counted four times (worked
    /// out once per cell and King cell).
    fn leaves_from(&mut self, from: Cell, piece: Piece, king: Cell, targets: CellSet) -> u64 {
        let slot = from.index() * CELLS + king.index();
        if self.leaves[slot] != u8::MAX {
            return u64::from(self.leaves[slot]);
        }
        let mut external = targets & !self.origin_sides[side(self.side)] & !self.their_king;
        let mut count = 0u8;
        while external != 0 {
            let to = Cell::lowest(external);
            external &= external - 1;
            let king = if piece.role == Role::King { to } else { king };
            if !self.leaves_check(to, piece, king) {
                count += if piece.role == Role::Pawn && promotes_on(self.side, to) {
                    4
                } else {
                    1
                };
            }
        }
        self.leaves[slot] = count;
        u64::from(count)
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
        if self.plain {
            return self.check_on_board(last, piece, king);
        }
        if king != last && !self.attacked_at(king) {
            return false;
        }
        if self.exposed_at(king) & last.bit() == 0 {
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

    /// Whether the King on `king`, a cell full on the board with the first mover lifted,
    /// would be in check on that board (worked out once per first mover and King cell).
    ///
    /// A chain's leaf is that board with one more cell full, the last, taken by the
    /// mover's side (its token there captured, if any), and the mover's own tokens
    /// changed about among full cells, which check by cascade does not tell apart. The
    /// enemy gains nothing by that: a slide of theirs stops earlier, a cell of theirs
    /// they could enter is gone, a pawn's new capture ends their cascade off the King.
    /// So when the King is safe there, it is safe at every leaf that leaves it there.
    fn attacked_at(&mut self, king: Cell) -> bool {
        let known = self.attacked[king.index()];
        if known != 0 {
            return known == 2;
        }
        // Lifting the first mover changes nothing off the King's shield on the whole
        // board: every line from the King meets the same first two tokens.
        let mut whole = self.whole_shield[king.index()];
        if whole == 0 {
            whole = shield(
                &self.whole_board,
                &self.whole_sides,
                king,
                self.side.other(),
            );
            self.whole_shield[king.index()] = whole;
        }
        if whole & self.chain.origin().bit() == 0 {
            self.attacked[king.index()] = 1;
            return false;
        }
        let attacked = in_check_with(
            &self.origin_board,
            &self.origin_sides,
            king,
            self.side.other(),
        );
        self.attacked[king.index()] = 1 + u8::from(attacked);
        attacked
    }

    /// What [`shield`] says of the board with the first mover lifted, the King on `king`
    /// (worked out once per first mover and King cell).
    fn exposed_at(&mut self, king: Cell) -> CellSet {
        let mut exposed = self.exposed[king.index()];
        if exposed == 0 {
            exposed = shield(
                &self.origin_board,
                &self.origin_sides,
                king,
                self.side.other(),
            );
            self.exposed[king.index()] = exposed;
        }
        exposed
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
        self.search_by(origin, plain, sink, |search, origin, piece| {
            search.extend(origin, piece)
        })
    }

    /// Runs `each(search, origin, piece)` for every own token as first mover, or only
    /// the one on `origin`, the token lifted from its cell; stops when it returns `true`.
    fn search_by<S: Sink>(
        &self,
        origin: Option<Cell>,
        plain: bool,
        sink: &mut S,
        mut each: impl FnMut(&mut Search<'_, S>, Cell, Piece) -> bool,
    ) -> bool {
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
            attacked: [0; CELLS],
            whole_board: self.board,
            whole_sides: sides_of(&self.board),
            whole_shield: [0; CELLS],
            known_targets: 0,
            targets: [0; CELLS],
            leaves: Box::new([u8::MAX; CELLS * CELLS]),
            their_king: king_cell(&self.board, self.turn.other()).map_or(0, Cell::bit),
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
            search.attacked = [0; CELLS];
            let stop = each(&mut search, origin, piece);
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
        self.search_by(None, false, &mut count, |search, origin, piece| {
            search.sink.0 += search.count_chains(origin, piece);
            false
        });
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
