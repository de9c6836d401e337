//! Turns and their mechanics: single-stone steps, the touchstone stepping out of its
//! group, and group sowings, simulated square by square on a copy of the board; legal
//! generation keeps the turns that neither capture the enemy touchstone (never captured:
//! such a turn is only a threat) nor leave the mover's own touchstone capturable.

use std::fmt;

use super::African;
use super::board::{Board, Cell, MAX_STONES};
use crate::games::Color;
use crate::games::chess::Square;

/// One of the eight directions a group is sown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Toward the eighth rank.
    N,
    /// Toward h8.
    NE,
    /// Toward the h-file.
    E,
    /// Toward h1.
    SE,
    /// Toward the first rank.
    S,
    /// Toward a1.
    SW,
    /// Toward the a-file.
    W,
    /// Toward a8.
    NW,
}

impl Direction {
    /// Every direction, clockwise from north.
    pub const ALL: [Direction; 8] = [
        Direction::N,
        Direction::NE,
        Direction::E,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::W,
        Direction::NW,
    ];

    /// The letters the notation writes: `N`, `NE`, ... `NW`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Direction::N => "N",
            Direction::NE => "NE",
            Direction::E => "E",
            Direction::SE => "SE",
            Direction::S => "S",
            Direction::SW => "SW",
            Direction::W => "W",
            Direction::NW => "NW",
        }
    }

    /// Reads `N`, `NE`, ... `NW`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The step in files and ranks.
    #[must_use]
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::N => (0, 1),
            Direction::NE => (1, 1),
            Direction::E => (1, 0),
            Direction::SE => (1, -1),
            Direction::S => (0, -1),
            Direction::SW => (-1, -1),
            Direction::W => (-1, 0),
            Direction::NW => (-1, 1),
        }
    }

    /// The square `distance` steps from `from` this way, if it is on the board.
    #[must_use]
    pub fn walk(self, from: Square, distance: i8) -> Option<Square> {
        let (df, dr) = self.delta();
        let file = from.file() as i8 + df * distance;
        let rank = from.rank() as i8 + dr * distance;
        ((0..8).contains(&file) && (0..8).contains(&rank))
            .then(|| Square::from_coords(file as u8, rank as u8))
    }

    /// The direction from one square to an adjacent one.
    #[must_use]
    pub fn between(from: Square, to: Square) -> Option<Direction> {
        Direction::ALL
            .into_iter()
            .find(|d| d.walk(from, 1) == Some(to))
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a turn does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TurnKind {
    /// One stone steps to an adjacent square: a single stone, or the touchstone out of
    /// its group.
    Step {
        /// Where it goes.
        to: Square,
        /// Whether the stepping stone is the touchstone.
        touchstone: bool,
    },
    /// The group on the origin is sown one stone a square.
    Sow {
        /// Which way.
        direction: Direction,
        /// Where the touchstone ends, when it is in the group.
        touchstone: Option<Square>,
    },
}

/// A legal turn of African Chess.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    from: Square,
    kind: TurnKind,
    /// For a sowing with the touchstone: its place in the sowing order (0 = first).
    order: u8,
}

impl Turn {
    /// The square the stone or the group leaves.
    #[must_use]
    pub const fn from(self) -> Square {
        self.from
    }

    /// What the turn does.
    #[must_use]
    pub const fn kind(self) -> TurnKind {
        self.kind
    }

    pub(crate) const fn step(from: Square, to: Square, touchstone: bool) -> Turn {
        Turn {
            from,
            kind: TurnKind::Step { to, touchstone },
            order: 0,
        }
    }

    /// The turn with where the touchstone ends written in, when it is a sowing.
    pub(crate) const fn landing_touchstone(mut self, square: Option<Square>) -> Turn {
        if let TurnKind::Sow { touchstone, .. } = &mut self.kind {
            *touchstone = square;
        }
        self
    }

    pub(crate) const fn sow(from: Square, direction: Direction, order: u8) -> Turn {
        Turn {
            from,
            kind: TurnKind::Sow {
                direction,
                touchstone: None,
            },
            order,
        }
    }
}

/// Why a turn cannot be made at all, before any question of the touchstones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The mover has no stone on the origin.
    NoStone,
    /// A single stone steps only to an adjacent square.
    NotAdjacent,
    /// Two or more own stones are a group and are sown; only the touchstone steps out.
    GroupMustSow,
    /// A single stone steps; only groups are sown.
    SingleMustStep,
    /// The square stepped into already holds four stones.
    TargetFull(Square),
    /// The first square of a sowing is off the board.
    FirstSquareOffBoard,
    /// The first square of a sowing already holds four stones.
    FirstSquareFull(Square),
    /// The stones deposited on the last square reached would make more than four.
    Overfull(Square, u8),
}

/// The result of a turn's mechanics.
#[derive(Clone, Copy, Debug)]
pub struct Applied {
    /// The board after the turn.
    pub board: Board,
    /// The squares where stones were captured, as a bit set (a1 = bit 0).
    pub captures: u64,
    /// Whether the turn would capture the enemy touchstone.
    pub takes_touchstone: bool,
    /// Where the mover's touchstone ends (when it moved).
    pub touchstone: Option<Square>,
}

/// What a turn did to the board it was made on in place ([`make`]), and the squares it
/// changed as they were before, to take it back ([`Effect::undo`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Effect {
    /// The squares where stones were captured, as a bit set (a1 = bit 0).
    pub captures: u64,
    /// Whether the turn would capture the enemy touchstone.
    pub takes_touchstone: bool,
    /// Where the mover's touchstone ends (when it moved).
    pub touchstone: Option<Square>,
    /// The squares whose stones the turn changed, as a bit set.
    pub touched: u64,
    /// Each changed square with its stones before the turn (the origin and at most seven
    /// squares of one line).
    saved: [(u8, Cell); 8],
    saved_len: u8,
}

impl Effect {
    const fn new() -> Effect {
        Effect {
            captures: 0,
            takes_touchstone: false,
            touchstone: None,
            touched: 0,
            saved: [(0, Cell::EMPTY); 8],
            saved_len: 0,
        }
    }

    /// The square's stones, to change: the first time, they are saved for [`Effect::undo`].
    fn cell<'b>(&mut self, board: &'b mut Board, square: Square) -> &'b mut Cell {
        let index = square.index();
        let bit = 1u64 << index;
        if self.touched & bit == 0 {
            self.touched |= bit;
            self.saved[usize::from(self.saved_len)] = (index as u8, board[index]);
            self.saved_len += 1;
        }
        &mut board[index]
    }

    /// Puts back the stones of every square the turn changed.
    pub(crate) fn undo(&self, board: &mut Board) {
        for &(index, cell) in &self.saved[..usize::from(self.saved_len)] {
            board[usize::from(index)] = cell;
        }
    }
}

/// A stone of `color` enters `square`: captures by ruling 4 (a single or last stone, by
/// what the square held before it arrived) or ruling 5 (the touchstone takes every enemy
/// stone), then it is put down. The 4-stone limit is the caller's.
fn enter(
    board: &mut Board,
    effect: &mut Effect,
    square: Square,
    color: Color,
    touchstone: bool,
    last: bool,
) {
    let enemy = color.other();
    let cell = effect.cell(board, square);
    let before = *cell;
    if touchstone {
        if before.stones(enemy) > 0 {
            effect.takes_touchstone |= before.has_touchstone(enemy);
            cell.clear(enemy);
            effect.captures |= 1 << square.index();
        }
        effect.touchstone = Some(square);
    } else if last {
        if before.has_touchstone(enemy) {
            effect.takes_touchstone = true;
            cell.remove(enemy, true);
            effect.captures |= 1 << square.index();
        } else if (before.total() == 1 && before.plain(enemy) == 1)
            || (before.total() == 3 && before.stones(color) == 1 && before.plain(enemy) == 2)
        {
            cell.clear(enemy);
            effect.captures |= 1 << square.index();
        }
    }
    cell.add(color, touchstone);
}

/// The mechanics of a turn of `color` on `board`, or why it cannot be made.
pub fn apply(board: &Board, color: Color, turn: &Turn) -> Result<Applied, Failure> {
    let mut after = *board;
    let effect = make(&mut after, color, turn)?;
    Ok(Applied {
        board: after,
        captures: effect.captures,
        takes_touchstone: effect.takes_touchstone,
        touchstone: effect.touchstone,
    })
}

/// Makes a turn of `color` on `board` in place ([`Effect::undo`] takes it back), or says
/// why it cannot be made and leaves the board as it was.
pub(crate) fn make(board: &mut Board, color: Color, turn: &Turn) -> Result<Effect, Failure> {
    let mut effect = Effect::new();
    match make_on(board, color, turn, &mut effect) {
        Ok(()) => Ok(effect),
        Err(failure) => {
            effect.undo(board);
            Err(failure)
        }
    }
}

fn make_on(
    board: &mut Board,
    color: Color,
    turn: &Turn,
    effect: &mut Effect,
) -> Result<(), Failure> {
    let origin = board[turn.from.index()];
    let own = origin.stones(color);
    if own == 0 {
        return Err(Failure::NoStone);
    }
    match turn.kind {
        TurnKind::Step { to, touchstone } => {
            let (files, ranks) = (
                turn.from.file().abs_diff(to.file()),
                turn.from.rank().abs_diff(to.rank()),
            );
            if files > 1 || ranks > 1 || turn.from == to {
                return Err(Failure::NotAdjacent);
            }
            let stepping_touchstone = origin.has_touchstone(color);
            if own > 1 && !(touchstone && stepping_touchstone) {
                return Err(Failure::GroupMustSow);
            }
            if touchstone != stepping_touchstone {
                return Err(Failure::NoStone);
            }
            let target = board[to.index()];
            if !touchstone && target.total() >= MAX_STONES {
                return Err(Failure::TargetFull(to));
            }
            effect.cell(board, turn.from).remove(color, touchstone);
            enter(board, effect, to, color, touchstone, true);
            if board[to.index()].total() > MAX_STONES {
                return Err(Failure::TargetFull(to));
            }
        }
        TurnKind::Sow { direction, .. } => {
            if own < 2 {
                return Err(Failure::SingleMustStep);
            }
            let with_touchstone = origin.has_touchstone(color);
            let order = if with_touchstone { turn.order } else { u8::MAX };
            effect.cell(board, turn.from).clear(color);
            let mut last_reached: Option<Square> = None;
            let mut placed = 0;
            let mut distance = 1;
            while placed < own {
                let is_touchstone = placed == order;
                let next = direction.walk(turn.from, distance);
                let blocked = match next {
                    None => true,
                    Some(square) => {
                        let cell = board[square.index()];
                        let staying = if is_touchstone {
                            cell.stones(color)
                        } else {
                            cell.total()
                        };
                        staying >= MAX_STONES
                    }
                };
                if blocked {
                    let Some(deposit) = last_reached else {
                        return Err(match next {
                            None => Failure::FirstSquareOffBoard,
                            Some(square) => Failure::FirstSquareFull(square),
                        });
                    };
                    // The stones left count against the limit with what the square
                    // holds, less what the touchstone among them would capture (ruling 5);
                    // a plain stone's capture does not make room (ruling 3).
                    let cell = board[deposit.index()];
                    let staying = if (placed..own).contains(&order) {
                        cell.stones(color)
                    } else {
                        cell.total()
                    };
                    if staying + own - placed > MAX_STONES {
                        return Err(Failure::Overfull(deposit, staying + own - placed));
                    }
                    for index in placed..own {
                        enter(
                            board,
                            effect,
                            deposit,
                            color,
                            index == order,
                            index + 1 == own,
                        );
                    }
                    break;
                }
                let square = next.unwrap_or(turn.from);
                enter(
                    board,
                    effect,
                    square,
                    color,
                    is_touchstone,
                    placed + 1 == own,
                );
                last_reached = Some(square);
                placed += 1;
                distance += 1;
            }
        }
    }
    Ok(())
}

/// Where a colour's touchstone stands.
#[must_use]
pub fn touchstone_square(board: &Board, color: Color) -> Option<Square> {
    board
        .iter()
        .position(|cell| cell.has_touchstone(color))
        .map(|index| Square::new(index as u8))
}

/// The squares a guard against a touchstone on `target` depends on, as a bit set: the
/// target and the squares of the eight lines through it up to four away. A turn that
/// can capture on the target starts at most four squares away on one of those lines and
/// reads only squares of that line within four squares of its origin, at most three
/// beyond the target; so a turn that changes none of these squares and does not move
/// the touchstone leaves the guard as it was.
fn guard_squares(target: Square) -> u64 {
    GUARD_SQUARES[target.index()]
}

/// [`guard_squares`] of every square.
const GUARD_SQUARES: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut index = 0;
    while index < 64 {
        let (file, rank) = ((index % 8) as i8, (index / 8) as i8);
        let mut squares = 1u64 << index;
        let mut direction = 0;
        while direction < 8 {
            let (df, dr) = Direction::ALL[direction].delta();
            let mut distance = 1;
            while distance <= 4 {
                let (f, r) = (file + df * distance, rank + dr * distance);
                if f >= 0 && f < 8 && r >= 0 && r < 8 {
                    squares |= 1 << (r * 8 + f);
                }
                distance += 1;
            }
            direction += 1;
        }
        table[index] = squares;
        index += 1;
    }
    table
};

/// Whether `attacker` has a turn (legal or not for its own touchstone) that would capture
/// the touchstone of the other side: guard, the check of this game. Only stones on the
/// eight lines through the touchstone, at most four squares away, can reach it.
#[must_use]
pub fn is_guarded(board: &Board, defender: Color) -> bool {
    let mut scratch = *board;
    guarded_in(&mut scratch, defender)
}

/// [`is_guarded`] on a board it makes the attacker's turns on and takes them back (the
/// board ends as it was).
fn guarded_in(board: &mut Board, defender: Color) -> bool {
    touchstone_square(board, defender).is_some_and(|target| guarded_at(board, defender, target))
}

/// [`guarded_in`] with the defender's touchstone on `target`.
fn guarded_at(board: &mut Board, defender: Color, target: Square) -> bool {
    let attacker = defender.other();
    let takes = |board: &mut Board, turn: Turn| match make(board, attacker, &turn) {
        Ok(effect) => {
            effect.undo(board);
            effect.takes_touchstone
        }
        Err(_) => false,
    };
    for direction in Direction::ALL {
        for distance in 1..=4i8 {
            // The origin lies `distance` squares back from the target.
            let Some(origin) = direction.walk(target, -distance) else {
                break;
            };
            let cell: Cell = board[origin.index()];
            let stones = cell.stones(attacker);
            if stones == 0 {
                continue;
            }
            if distance == 1
                && (stones == 1 || cell.has_touchstone(attacker))
                && takes(
                    board,
                    Turn::step(origin, target, cell.has_touchstone(attacker)),
                )
            {
                return true;
            }
            if stones >= 2 && i8::try_from(stones).unwrap_or(4) >= distance {
                let orders = if cell.has_touchstone(attacker) {
                    stones
                } else {
                    1
                };
                if (0..orders).any(|order| takes(board, Turn::sow(origin, direction, order))) {
                    return true;
                }
            }
        }
    }
    false
}

/// Whether the mover's touchstone is guarded after a turn, worked out again only when
/// the turn moves it, or changes a square the guard depends on ([`guard_squares`]) while
/// an enemy stone stands on one of them (a turn never adds enemy stones); otherwise it is
/// the guard before the turn.
struct Guard {
    color: Color,
    /// Where the mover's touchstone stands (none: it is never guarded).
    home: Option<Square>,
    /// [`guard_squares`] of `home` (none without a touchstone).
    watched: u64,
    /// The squares holding enemy stones before the turn (a turn never adds any).
    enemies: u64,
    /// Whether an enemy stone stands on a watched square.
    enemy_near: bool,
    /// Whether the touchstone is guarded before the turn.
    before: bool,
}

impl Guard {
    fn new(board: &mut Board, color: Color) -> Guard {
        let home = touchstone_square(board, color);
        let watched = home.map_or(0, guard_squares);
        let enemies = board
            .iter()
            .enumerate()
            .filter(|(_, cell)| cell.stones(color.other()) > 0)
            .fold(0u64, |set, (index, _)| set | 1 << index);
        let enemy_near = watched & enemies != 0;
        let before = enemy_near && home.is_some_and(|home| guarded_at(board, color, home));
        Guard {
            color,
            home,
            watched,
            enemies,
            enemy_near,
            before,
        }
    }

    /// Whether a turn that changes only the squares `touched` and leaves the touchstone
    /// where it stands leaves the guard as it was.
    const fn unchanged_by(&self, touched: u64) -> bool {
        touched & self.watched == 0 || !self.enemy_near
    }

    /// Whether the touchstone is guarded on `board`, which a turn (its effect given) has
    /// just been made on. A touchstone that moved is guarded only with an enemy stone on
    /// a square its guard depends on.
    fn after(&self, board: &mut Board, effect: &Effect) -> bool {
        if let Some(moved) = effect.touchstone {
            guard_squares(moved) & self.enemies != 0 && guarded_at(board, self.color, moved)
        } else if self.unchanged_by(effect.touched) {
            self.before
        } else {
            self.home
                .is_some_and(|home| guarded_at(board, self.color, home))
        }
    }
}

/// Where generated turns go: a list, or a count of them (perft's last level).
pub(crate) trait Sink {
    /// Takes one turn.
    fn push(&mut self, turn: Turn);
}

impl Sink for Vec<Turn> {
    fn push(&mut self, turn: Turn) {
        Vec::push(self, turn);
    }
}

impl Sink for u64 {
    fn push(&mut self, _turn: Turn) {
        *self += 1;
    }
}

impl African {
    /// Appends every legal turn of the side to move, or of the origin only when given.
    ///
    /// Each candidate is made on one working board and taken back, and kept when it does
    /// not take the enemy touchstone and leaves the mover's unguarded ([`Guard`]). A
    /// single plain stone's step is judged without being made: it cannot be made onto a
    /// full square, takes the enemy touchstone exactly when it is on the square stepped
    /// into, and changes only its two squares.
    pub(crate) fn generate(&self, only_from: Option<Square>, out: &mut impl Sink) {
        let color = self.turn;
        let mut board = self.board;
        let guard = Guard::new(&mut board, color);
        // Makes the turn; keeps it when legal; takes it back. `None` when it cannot be made.
        let keep = |board: &mut Board, turn: Turn, out: &mut dyn FnMut(Turn)| -> Option<Effect> {
            let effect = make(board, color, &turn).ok()?;
            let legal = !effect.takes_touchstone && !guard.after(board, &effect);
            effect.undo(board);
            if legal {
                out(turn.landing_touchstone(effect.touchstone));
            }
            Some(effect)
        };
        let out = &mut |turn: Turn| out.push(turn);
        for index in 0..64u8 {
            let from = Square::new(index);
            if only_from.is_some_and(|only| only != from) {
                continue;
            }
            let cell = board[from.index()];
            let stones = cell.stones(color);
            if stones == 0 {
                continue;
            }
            let touchstone = cell.has_touchstone(color);
            if stones == 1 && !touchstone {
                for direction in Direction::ALL {
                    let Some(to) = direction.walk(from, 1) else {
                        continue;
                    };
                    let target = board[to.index()];
                    if target.total() >= MAX_STONES || target.has_touchstone(color.other()) {
                        continue;
                    }
                    let turn = Turn::step(from, to, false);
                    let touched = 1 << from.index() | 1 << to.index();
                    if guard.unchanged_by(touched) {
                        if !guard.before {
                            out(turn);
                        }
                    } else {
                        keep(&mut board, turn, out);
                    }
                }
            } else if touchstone {
                for direction in Direction::ALL {
                    if let Some(to) = direction.walk(from, 1) {
                        keep(&mut board, Turn::step(from, to, touchstone), out);
                    }
                }
            }
            if stones < 2 {
                continue;
            }
            for direction in Direction::ALL {
                if !touchstone {
                    keep(&mut board, Turn::sow(from, direction, 0), out);
                    continue;
                }
                // Orders that leave the touchstone on the same square give the same
                // position: one turn, the first such order.
                let mut seen: [Option<Square>; 4] = [None; 4];
                let mut count = 0;
                for order in 0..stones {
                    let turn = Turn::sow(from, direction, order);
                    let Ok(effect) = make(&mut board, color, &turn) else {
                        continue;
                    };
                    effect.undo(&mut board);
                    if seen[..count].contains(&effect.touchstone) {
                        continue;
                    }
                    seen[count] = effect.touchstone;
                    count += 1;
                    keep(&mut board, turn, out);
                }
            }
        }
    }
}
