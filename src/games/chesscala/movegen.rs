//! Turn generation: captures of every piece kind (the Hammer's three modes, the Bomb),
//! sowings in every distinct order, King moves, the pawn double move, the Bomb's capture
//! after its sowing, the two-move turns of a side under multiple checks; and the attack
//! test behind check.

use crate::games::Color;
use crate::games::chess::attacks::KNIGHT_DELTAS as KNIGHT;

use super::Chesscala;
use super::board::{
    Board, FULL, Piece, Role, SQUARES, Sq, Stack, field_partner, sowing_squares,
    sowing_squares_leaving,
};

/// One move of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `piece` leaves `from`, takes `victim` on `target` and stands on `to` (the target,
    /// except for the Hammer, which lands before its target).
    Capture {
        /// The capturing piece.
        piece: Piece,
        /// Where it stood.
        from: Sq,
        /// Where it stands after the capture.
        to: Sq,
        /// The square of the captured piece.
        target: Sq,
        /// The captured piece.
        victim: Piece,
    },
    /// Every piece of the stack on `from` but the Kings, laid down in `order`.
    Sow {
        /// The sown square.
        from: Sq,
        /// The pieces in the order they are laid down (the first `len`).
        order: [Piece; FULL],
        /// How many pieces are sown.
        len: u8,
    },
    /// A King steps to the other square of its field.
    King {
        /// Where it stood.
        from: Sq,
        /// The other square of its field.
        to: Sq,
    },
    /// The Pawn alone on its attacking line's second rank goes two sowing steps.
    Double {
        /// Where it stood.
        from: Sq,
        /// Where it lands.
        to: Sq,
    },
}

impl Move {
    /// Whether the move is a capturing move (as opposed to a sowing move).
    #[must_use]
    pub const fn is_capture(&self) -> bool {
        matches!(self, Move::Capture { .. })
    }

    /// The pieces a sowing lays down, in order (empty for other moves).
    #[must_use]
    pub fn sown(&self) -> &[Piece] {
        match self {
            Move::Sow { order, len, .. } => &order[..usize::from(*len)],
            _ => &[],
        }
    }
}

/// A turn: one or two moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    moves: [Move; 2],
    len: u8,
}

impl Turn {
    /// A turn of one move.
    #[must_use]
    pub const fn one(first: Move) -> Turn {
        Turn {
            moves: [first, first],
            len: 1,
        }
    }

    /// A turn of two moves.
    #[must_use]
    pub const fn two(first: Move, second: Move) -> Turn {
        Turn {
            moves: [first, second],
            len: 2,
        }
    }

    /// The moves in order.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves[..usize::from(self.len)]
    }
}

/// The permutations of `0..n` in lexicographic order, for each `n` up to [`FULL`] (the
/// first `n!` rows of table `n`), worked out at compile time.
const PERMUTATIONS: [[[usize; FULL]; 24]; FULL + 1] = {
    let mut tables = [[[0; FULL]; 24]; FULL + 1];
    let mut n = 0;
    while n <= FULL {
        let mut p = [0, 1, 2, 3];
        let mut row = 0;
        loop {
            tables[n][row] = p;
            row += 1;
            // The next permutation of p[..n] in lexicographic order, or stop.
            let mut i = n;
            while i > 1 && p[i - 2] >= p[i - 1] {
                i -= 1;
            }
            if i <= 1 {
                break;
            }
            let mut j = n - 1;
            while p[j] <= p[i - 2] {
                j -= 1;
            }
            let swap = p[i - 2];
            p[i - 2] = p[j];
            p[j] = swap;
            let (mut a, mut b) = (i - 1, n - 1);
            while a < b {
                let swap = p[a];
                p[a] = p[b];
                p[b] = swap;
                a += 1;
                b -= 1;
            }
        }
        n += 1;
    }
    tables
};

/// `n!` for `n` up to [`FULL`].
const FACTORIALS: [usize; FULL + 1] = [1, 1, 2, 6, 24];

/// Calls `f` with every permutation of `0..n` in lexicographic order.
fn for_each_permutation(n: usize, mut f: impl FnMut(&[usize])) {
    for p in &PERMUTATIONS[n][..FACTORIALS[n]] {
        f(&p[..n]);
    }
}

/// The sowing of the stack on `from`: the pieces and the squares they land on, or `None`
/// when there is nothing but Kings to sow.
pub(crate) fn sowing(board: &Board, from: Sq) -> Option<([Piece; FULL], usize, [Sq; FULL])> {
    let mut stack = board[from.index()];
    let (pieces, count) = stack.lift();
    if count == 0 {
        return None;
    }
    let squares = sowing_squares_leaving(board, from, stack.len(), count);
    Some((pieces, count, squares))
}

/// [`sowing`], with the board as it is once the pieces are lifted.
pub(crate) fn lift(board: &Board, from: Sq) -> Option<(Board, [Piece; FULL], usize, [Sq; FULL])> {
    let (pieces, count, squares) = sowing(board, from)?;
    let mut lifted = *board;
    lifted[from.index()].lift();
    Some((lifted, pieces, count, squares))
}

/// What lands where: each piece of `order` as placed on its square of `squares`
/// (promoted or not), as (square, piece code) pairs in sorted order. Stacks have no
/// order, so two orders leave the same position exactly when their landings are equal,
/// even when a sowing that wraps round puts several pieces on one square.
pub(crate) fn landing(order: &[Piece], squares: &[Sq; FULL]) -> [(u8, u8); FULL] {
    let mut pairs = [(u8::MAX, 0); FULL];
    for (index, piece) in order.iter().enumerate() {
        pairs[index] = (squares[index].0, piece.placed_on(squares[index]).code());
    }
    pairs.sort_unstable();
    pairs
}

/// Calls `f` with one order of each distinct outcome of sowing `pieces` onto `squares`
/// (orders that leave the same position are one sowing): the first such order in
/// lexicographic order of the permutations, which is the order the writer gives.
pub(crate) fn for_each_distinct_order(
    pieces: &[Piece; FULL],
    count: usize,
    squares: &[Sq; FULL],
    mut f: impl FnMut([Piece; FULL]),
) {
    let distinct_squares = (1..count).all(|i| !squares[..i].contains(&squares[i]));
    if distinct_squares {
        // Each square takes one piece: two orders land alike exactly when every slot's
        // piece, as placed, is the same, so the placed codes of the slots, packed, tell
        // the landings apart without sorting them.
        let mut placed = [[0u8; FULL]; FULL];
        for (index, row) in placed.iter_mut().enumerate().take(count) {
            for (slot, code) in row.iter_mut().enumerate().take(count) {
                *code = pieces[index].placed_on(squares[slot]).code();
            }
        }
        let mut seen = [0u32; 24];
        let mut seen_len = 0;
        for_each_permutation(count, |perm| {
            let mut key = 0u32;
            for (slot, &index) in perm.iter().enumerate() {
                key |= u32::from(placed[index][slot]) << (8 * slot);
            }
            if seen[..seen_len].contains(&key) {
                return;
            }
            seen[seen_len] = key;
            seen_len += 1;
            let mut order = *pieces;
            for (slot, &index) in perm.iter().enumerate() {
                order[slot] = pieces[index];
            }
            f(order);
        });
        return;
    }
    let mut seen = [[(0u8, 0u8); FULL]; 24];
    let mut seen_len = 0;
    for_each_permutation(count, |perm| {
        let mut order = *pieces;
        for (slot, &index) in perm.iter().enumerate() {
            order[slot] = pieces[index];
        }
        let codes = landing(&order[..count], squares);
        if seen[..seen_len].contains(&codes) {
            return;
        }
        seen[seen_len] = codes;
        seen_len += 1;
        f(order);
    });
}

const QUEEN: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// The direction a side's Pawns capture in (rank step).
const fn forward(color: Color) -> i8 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// Where a Hammer of `side` on `from` lands to capture on `target`, if it can (rule 10):
/// as a queen-advancer, by a knight vector, or by a double knight vector.
pub(crate) fn hammer_landing(board: &Board, side: Color, from: Sq, target: Sq) -> Option<Sq> {
    let df = i8::try_from(target.file()).ok()? - i8::try_from(from.file()).ok()?;
    let dr = i8::try_from(target.rank()).ok()? - i8::try_from(from.rank()).ok()?;
    let (af, ar) = (df.abs(), dr.abs());
    let (sf, sr) = (df.signum(), dr.signum());
    let open = |square: Sq| !board[square.index()].is_full();
    if (af == 0 || ar == 0 || af == ar) && af.max(ar) >= 2 {
        // Queen-advancer: empty squares up to the landing square just before the target.
        let landing = target.offset(-sf, -sr)?;
        let mut at = from.offset(sf, sr)?;
        while at != landing {
            if !board[at.index()].is_empty() {
                return None;
            }
            at = at.offset(sf, sr)?;
        }
        return open(landing).then_some(landing);
    }
    if (af, ar) == (1, 2) || (af, ar) == (2, 1) {
        let landing = from.offset(sf, sr)?;
        return open(landing).then_some(landing);
    }
    if (af, ar) == (2, 4) || (af, ar) == (4, 2) {
        let middle = from.offset(df / 2, dr / 2)?;
        let stack = board[middle.index()];
        if stack.is_full() || !stack.controlled_by(side) {
            return None;
        }
        let landing = middle.offset(sf, sr)?;
        return open(landing).then_some(landing);
    }
    None
}

/// Whether `piece` on `from` could capture on `target` by its own capturing move (the
/// target's contents aside). The Bomb's sow-then-capture is not included.
fn reaches(board: &Board, piece: Piece, from: Sq, target: Sq) -> bool {
    let df = i16::from(target.file()) - i16::from(from.file());
    let dr = i16::from(target.rank()) - i16::from(from.rank());
    let color = piece.color();
    match piece.role() {
        Role::King => field_partner(color, from) == Some(target),
        Role::Pawn => dr == i16::from(forward(color)) && df.abs() == 1,
        Role::Man => df.abs().max(dr.abs()) == 1,
        Role::Knight => (df.abs(), dr.abs()) == (1, 2) || (df.abs(), dr.abs()) == (2, 1),
        Role::Bomb => from == target,
        Role::Hammer => hammer_landing(board, color, from, target).is_some(),
        role => {
            let straight = df == 0 || dr == 0;
            let diagonal = df.abs() == dr.abs();
            let fits = match role {
                Role::Rook => straight,
                Role::Bishop => diagonal,
                _ => straight || diagonal,
            };
            if !fits || from == target {
                return false;
            }
            let (sf, sr) = (df.signum() as i8, dr.signum() as i8);
            let mut at = from;
            loop {
                let Some(next) = at.offset(sf, sr) else {
                    return false;
                };
                if next == target {
                    return true;
                }
                if !board[next.index()].is_empty() {
                    return false;
                }
                at = next;
            }
        }
    }
}

impl Chesscala {
    /// Calls `f` with every capturing move of `side` (Kings are never taken).
    pub(crate) fn for_each_capture(&self, side: Color, f: impl FnMut(Move)) {
        self.for_each_capture_from(side, None, f);
    }

    /// [`Chesscala::for_each_capture`], of the pieces on `only` alone when it is given.
    fn for_each_capture_from(&self, side: Color, only: Option<Sq>, mut f: impl FnMut(Move)) {
        let board = &self.board;
        let other = side.other();
        let mut emit = |piece: Piece, from: Sq, to: Sq, target: Sq| {
            for victim in board[target.index()].distinct() {
                if victim.color() == other && victim.role() != Role::King {
                    f(Move::Capture {
                        piece,
                        from,
                        to,
                        target,
                        victim,
                    });
                }
            }
        };
        for index in squares(only) {
            let from = Sq(index as u8);
            for piece in board[index].distinct() {
                if piece.color() != side {
                    continue;
                }
                let has_victim = |square: Sq| board[square.index()].has_capturable(other);
                match piece.role() {
                    Role::King => {
                        if let Some(to) = field_partner(side, from).filter(|&s| has_victim(s)) {
                            emit(piece, from, to, to);
                        }
                    }
                    Role::Bomb => {
                        if has_victim(from) {
                            emit(piece, from, from, from);
                        }
                    }
                    Role::Pawn => {
                        for df in [-1, 1] {
                            if let Some(to) =
                                from.offset(df, forward(side)).filter(|&s| has_victim(s))
                            {
                                emit(piece, from, to, to);
                            }
                        }
                    }
                    Role::Man => {
                        for (df, dr) in QUEEN {
                            if let Some(to) = from.offset(df, dr).filter(|&s| has_victim(s)) {
                                emit(piece, from, to, to);
                            }
                        }
                    }
                    Role::Knight => {
                        for (df, dr) in KNIGHT {
                            if let Some(to) = from.offset(df, dr).filter(|&s| has_victim(s)) {
                                emit(piece, from, to, to);
                            }
                        }
                    }
                    Role::Hammer => {
                        for target_index in 0..SQUARES {
                            let target = Sq(target_index as u8);
                            if !has_victim(target) {
                                continue;
                            }
                            if let Some(landing) = hammer_landing(board, side, from, target) {
                                emit(piece, from, landing, target);
                            }
                        }
                    }
                    role => {
                        for (index, (df, dr)) in QUEEN.into_iter().enumerate() {
                            let diagonal = index % 2 == 1;
                            if (role == Role::Rook && diagonal)
                                || (role == Role::Bishop && !diagonal)
                            {
                                continue;
                            }
                            let mut at = from;
                            while let Some(next) = at.offset(df, dr) {
                                if !board[next.index()].is_empty() {
                                    if has_victim(next) {
                                        emit(piece, from, next, next);
                                    }
                                    break;
                                }
                                at = next;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Calls `f` with every sowing move of `side`: sowings in each distinct order, King
    /// moves and pawn double moves, within White's first-turn restriction.
    pub(crate) fn for_each_sowing(&self, side: Color, f: impl FnMut(Move)) {
        self.for_each_sowing_from(side, None, f);
    }

    /// [`Chesscala::for_each_sowing`], from `only` alone when it is given.
    fn for_each_sowing_from(&self, side: Color, only: Option<Sq>, mut f: impl FnMut(Move)) {
        let board = &self.board;
        for index in squares(only) {
            let from = Sq(index as u8);
            let stack = board[index];
            if stack.is_empty() || self.first_turn_forbids(from) {
                continue;
            }
            if stack.contains(Piece::new(side, Role::King))
                && let Some(to) = field_partner(side, from)
                && !board[to.index()].is_full()
            {
                f(Move::King { from, to });
            }
            if !stack.controlled_by(side) {
                continue;
            }
            let Some((pieces, count, squares)) = sowing(board, from) else {
                continue;
            };
            for_each_distinct_order(&pieces, count, &squares, |order| {
                f(Move::Sow {
                    from,
                    order,
                    len: count as u8,
                });
            });
        }
        for mancala in 0..3 {
            if let Some((from, to)) = self.double_move(side, mancala)
                && only.is_none_or(|only| only == from)
            {
                f(Move::Double { from, to });
            }
        }
    }

    /// The pawn double move of `side` on a mancala, if it is open.
    pub(crate) fn double_move(&self, side: Color, mancala: u8) -> Option<(Sq, Sq)> {
        if !self.double_allowed(side, mancala) {
            return None;
        }
        let from = double_square(side, mancala);
        let mut alone = Stack::default();
        alone.push(Piece::new(side, Role::Pawn));
        if self.board[from.index()] != alone {
            return None;
        }
        let mut lifted = self.board;
        lifted[from.index()] = Stack::default();
        let squares = sowing_squares(&lifted, from, 2);
        Some((from, squares[1]))
    }

    /// Calls `f` with the Bomb captures that may follow a sowing just made (rule 7): an
    /// own Bomb it laid down takes an opposing piece where it landed.
    fn for_each_bomb_follow_up(
        &self,
        side: Color,
        sowing: &Move,
        landed: &[Sq; FULL],
        mut f: impl FnMut(Move),
    ) {
        let bomb = Piece::new(side, Role::Bomb);
        let mut done = [Sq(0); FULL];
        let mut done_len = 0;
        for (index, piece) in sowing.sown().iter().enumerate() {
            let square = landed[index];
            if *piece != bomb || done[..done_len].contains(&square) {
                continue;
            }
            done[done_len] = square;
            done_len += 1;
            for victim in self.board[square.index()].distinct() {
                if victim.color() != side && victim.role() != Role::King {
                    f(Move::Capture {
                        piece: bomb,
                        from: square,
                        to: square,
                        target: square,
                        victim,
                    });
                }
            }
        }
    }

    /// Appends every legal turn (rules 7 and 8; under the "no draws" option, rule 17).
    pub(crate) fn generate(&self, out: &mut Vec<Turn>) {
        self.generate_from(None, out);
    }

    /// Appends the legal turns whose first move starts on `origin` (all of them when it is
    /// `None`), in the order [`Chesscala::generate`] gives them.
    pub(crate) fn generate_from(&self, origin: Option<Sq>, out: &mut Vec<Turn>) {
        if self.outcome.is_some() {
            return;
        }
        let start = out.len();
        let side = self.turn;
        let multiple = self.check_count(side) >= 2;
        let bomb = Piece::new(side, Role::Bomb);
        self.for_each_sowing_from(side, origin, |sowing| {
            out.push(Turn::one(sowing));
            // Without multiple checks only a Bomb the sowing laid down may follow it up.
            if !multiple && !sowing.sown().contains(&bomb) {
                return;
            }
            let mut next = self.clone();
            let landed = next.apply(&sowing);
            if multiple {
                next.for_each_capture(side, |second| out.push(Turn::two(sowing, second)));
                next.for_each_sowing(side, |second| out.push(Turn::two(sowing, second)));
            } else {
                next.for_each_bomb_follow_up(side, &sowing, &landed, |second| {
                    out.push(Turn::two(sowing, second));
                });
            }
        });
        self.for_each_capture_from(side, origin, |capture| {
            let mut next = self.clone();
            next.apply(&capture);
            next.for_each_sowing(side, |second| out.push(Turn::two(capture, second)));
            if multiple {
                next.for_each_capture(side, |second| out.push(Turn::two(capture, second)));
            }
        });
        if self.no_draws() {
            let mut keep = start;
            for index in start..out.len() {
                let mut next = self.clone();
                for step in out[index].moves() {
                    next.apply(step);
                }
                if !next.in_check(side) {
                    out[keep] = out[index];
                    keep += 1;
                }
            }
            out.truncate(keep);
        }
    }

    /// Plays one move for the side to move; returns where a sowing laid its pieces.
    pub(crate) fn apply(&mut self, step: &Move) -> [Sq; FULL] {
        let side = self.turn;
        match *step {
            Move::Capture {
                piece,
                from,
                to,
                target,
                victim,
            } => {
                self.board[from.index()].remove(piece);
                self.board[target.index()].remove(victim);
                self.board[to.index()].push(piece.placed_on(to));
                self.lost[victim.color() as usize] += 1;
                [Sq(0); FULL]
            }
            Move::Sow { from, order, len } => {
                let count = usize::from(len);
                // Nothing but Kings to sow: not a legal move; leave the board alone.
                let Some((lifted, _, _, squares)) = lift(&self.board, from) else {
                    return [Sq(0); FULL];
                };
                self.board = lifted;
                for (index, piece) in order[..count].iter().enumerate() {
                    let square = squares[index];
                    self.board[square.index()].push(piece.placed_on(square));
                }
                self.close_double(side, from.mancala());
                squares
            }
            Move::King { from, to } | Move::Double { from, to } => {
                let stack = &mut self.board[from.index()];
                let piece = stack
                    .pieces()
                    .find(|p| {
                        p.color() == side
                            && (p.role() == Role::King) == matches!(step, Move::King { .. })
                    })
                    .unwrap_or(Piece::new(side, Role::King));
                stack.remove(piece);
                self.board[to.index()].push(piece);
                self.close_double(side, from.mancala());
                [Sq(0); FULL]
            }
        }
    }

    /// How many pairs of attacking piece and attacked King there are against `side`'s
    /// Kings (rule 8).
    pub(crate) fn check_count(&self, side: Color) -> usize {
        self.king_squares(side)
            .map(|square| self.attackers(square, side.other(), usize::MAX))
            .sum()
    }

    /// Whether a King of `side` is in check (rule 13).
    pub(crate) fn in_check(&self, side: Color) -> bool {
        self.king_squares(side)
            .any(|square| self.attackers(square, side.other(), 1) > 0)
    }

    fn king_squares(&self, side: Color) -> impl Iterator<Item = Sq> + '_ {
        let king = Piece::new(side, Role::King);
        (0..SQUARES)
            .filter(move |&index| self.board[index].contains(king))
            .map(|index| Sq(index as u8))
    }

    /// How many pieces of `attacker` could take a piece on `target` (counted up to
    /// `limit`): by a capturing move, or by a sowing that lays a Bomb there.
    pub(crate) fn attackers(&self, target: Sq, attacker: Color, limit: usize) -> usize {
        let board = &self.board;
        let mut count = 0;
        for index in 0..SQUARES {
            let from = Sq(index as u8);
            for piece in board[index].pieces() {
                if piece.color() == attacker && reaches(board, piece, from, target) {
                    count += 1;
                    if count >= limit {
                        return count;
                    }
                }
            }
            if from != target
                && from.mancala() == target.mancala()
                && board[index].controlled_by(attacker)
                && board[index].contains(Piece::new(attacker, Role::Bomb))
                && let Some((pieces, len, squares)) = sowing(board, from)
                && squares[..len].contains(&target)
            {
                let bombs = pieces[..len]
                    .iter()
                    .filter(|p| **p == Piece::new(attacker, Role::Bomb))
                    .count();
                count += bombs;
                if count >= limit {
                    return count;
                }
            }
        }
        count
    }
}

/// The indices of the squares a generation looks at: `only`, or all of them.
fn squares(only: Option<Sq>) -> std::ops::Range<usize> {
    match only {
        Some(square) => square.index()..square.index() + 1,
        None => 0..SQUARES,
    }
}

/// The square of a side's Pawn that may double-move on a mancala: b2, d2, f2 for White,
/// a7, c7, e7 for Black.
#[must_use]
pub const fn double_square(side: Color, mancala: u8) -> Sq {
    match side {
        Color::White => Sq::new(mancala * 2 + 1, 1),
        Color::Black => Sq::new(mancala * 2, 6),
    }
}
