//! Chesscala's turn tokens. The grammar, also in `notation/chesscala.md`:
//!
//! ```ebnf
//! turn     = move [ "," move ] [ marker ] ;
//! move     = capture | step | sowing ;
//! capture  = [ piece ] square [ "-" square ] "x" [ piece ] square ;  (* landing for the Hammer *)
//! step     = [ piece ] square "-" square ;          (* King move or pawn double move *)
//! sowing   = square [ ":" laid { laid } ] ;
//! laid     = capital | small ;        (* capital: the mover's piece; small: the opponent's *)
//! piece    = "K" | "Q" | "R" | "B" | "N" | "H" | "O" | "M" | "P" ;
//! square   = "a".."f" "1".."8" ;
//! marker   = "+" | "#" ;
//! ```

use std::fmt;

use crate::games::{Color, Game, IllegalKind, IllegalTurn, TurnSyntaxError};

use super::Chesscala;
use super::board::{FULL, Piece, Role, Sq};
use super::movegen::{Move, Turn, for_each_distinct_order, landing, sowing};

/// One move of a token, read without a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveSyntax {
    /// `Qa1xRa3`, `He1-d2xBc3`, `Oe5xNe5`.
    Capture {
        /// The capturing piece, if written.
        role: Option<Role>,
        /// Its square.
        from: Sq,
        /// The Hammer's landing square, if written.
        landing: Option<Sq>,
        /// The captured piece, if written.
        victim: Option<Role>,
        /// The square of the captured piece.
        target: Sq,
    },
    /// `Kd1-c1`, `Pb2-b4`.
    Step {
        /// `K` or `P`, if written.
        role: Option<Role>,
        /// Where the piece stands.
        from: Sq,
        /// Where it goes.
        to: Sq,
    },
    /// `b1`, `b1:NBP`, `e2:PbO`.
    Sow {
        /// The sown square.
        from: Sq,
        /// The pieces in the order laid down, each with whether it is the opponent's.
        order: [(Role, bool); FULL],
        /// How many are written (0: the order is not written).
        len: u8,
    },
}

impl MoveSyntax {
    /// The square the move starts from.
    #[must_use]
    pub const fn from(&self) -> Sq {
        match *self {
            MoveSyntax::Capture { from, .. }
            | MoveSyntax::Step { from, .. }
            | MoveSyntax::Sow { from, .. } => from,
        }
    }
}

/// The check marker at the end of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    /// No marker.
    None,
    /// `+`: a King of the opponent is in check.
    Check,
    /// `#`: the opponent has a checkmated King.
    Mate,
}

/// A turn token read without a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Notation {
    moves: [MoveSyntax; 2],
    len: u8,
    /// The marker written at the end.
    pub marker: Marker,
}

impl Notation {
    /// The moves written, in order.
    #[must_use]
    pub fn moves(&self) -> &[MoveSyntax] {
        &self.moves[..usize::from(self.len)]
    }

    /// Reads a token (see the module's grammar).
    pub fn parse(token: &str) -> Result<Notation, TurnSyntaxError> {
        let bytes = token.as_bytes();
        if bytes.is_empty() {
            return Err(TurnSyntaxError::new(0, "empty turn"));
        }
        let (body, marker) = match bytes[bytes.len() - 1] {
            b'+' => (&bytes[..bytes.len() - 1], Marker::Check),
            b'#' => (&bytes[..bytes.len() - 1], Marker::Mate),
            _ => (bytes, Marker::None),
        };
        let mut moves = [MoveSyntax::Sow {
            from: Sq(0),
            order: [(Role::Pawn, false); FULL],
            len: 0,
        }; 2];
        let mut len = 0;
        let mut at = 0;
        loop {
            if len == 2 {
                return Err(TurnSyntaxError::new(at, "a turn has at most two moves"));
            }
            let (parsed, end) = parse_move(body, at)?;
            moves[len] = parsed;
            len += 1;
            at = end;
            match body.get(at) {
                None => break,
                Some(b',') => at += 1,
                Some(_) => {
                    return Err(TurnSyntaxError::new(
                        at,
                        format!("unexpected '{}' after a move", char::from(body[at])),
                    ));
                }
            }
        }
        Ok(Notation {
            moves,
            len: len as u8,
            marker,
        })
    }
}

fn square_at(bytes: &[u8], at: usize) -> Option<Sq> {
    Sq::from_chars(*bytes.get(at)?, *bytes.get(at + 1)?)
}

fn piece_at(bytes: &[u8], at: usize) -> Option<Role> {
    bytes
        .get(at)
        .filter(|b| b.is_ascii_uppercase())
        .and_then(|&b| Role::from_char(char::from(b)))
}

fn expect_square(bytes: &[u8], at: usize, what: &str) -> Result<Sq, TurnSyntaxError> {
    square_at(bytes, at)
        .ok_or_else(|| TurnSyntaxError::new(at, format!("expected {what} (a1 to f8)")))
}

/// move = capture | step | sowing ;
fn parse_move(bytes: &[u8], start: usize) -> Result<(MoveSyntax, usize), TurnSyntaxError> {
    let mut at = start;
    let role = piece_at(bytes, at);
    if role.is_some() {
        at += 1;
    }
    let from = expect_square(bytes, at, "a square")?;
    at += 2;
    let mut landing = None;
    if bytes.get(at) == Some(&b'-') {
        let to = expect_square(bytes, at + 1, "a square after '-'")?;
        at += 3;
        if bytes.get(at) != Some(&b'x') {
            return Ok((MoveSyntax::Step { role, from, to }, at));
        }
        landing = Some(to);
    }
    if bytes.get(at) == Some(&b'x') {
        at += 1;
        let victim = if square_at(bytes, at).is_none() {
            let victim = bytes
                .get(at)
                .and_then(|&b| Role::from_char(char::from(b)))
                .ok_or_else(|| {
                    TurnSyntaxError::new(at, "expected the captured piece or its square after 'x'")
                })?;
            at += 1;
            Some(victim)
        } else {
            None
        };
        let target = expect_square(bytes, at, "the square of the captured piece")?;
        at += 2;
        return Ok((
            MoveSyntax::Capture {
                role,
                from,
                landing,
                victim,
                target,
            },
            at,
        ));
    }
    if role.is_some() {
        return Err(TurnSyntaxError::new(
            at,
            "a piece letter starts a capture ('x') or a step ('-'); a sowing starts with its square",
        ));
    }
    let mut order = [(Role::Pawn, false); FULL];
    let mut len = 0;
    if bytes.get(at) == Some(&b':') {
        at += 1;
        while let Some(&b) = bytes.get(at) {
            if b == b',' {
                break;
            }
            let role = Role::from_char(char::from(b))
                .filter(|role| *role != Role::King)
                .ok_or_else(|| {
                    TurnSyntaxError::new(
                        at,
                        format!("'{}' is not a piece that is sown", char::from(b)),
                    )
                })?;
            if len == FULL {
                return Err(TurnSyntaxError::new(
                    at,
                    "a sowing lays down at most 4 pieces",
                ));
            }
            order[len] = (role, b.is_ascii_lowercase());
            len += 1;
            at += 1;
        }
        if len == 0 {
            return Err(TurnSyntaxError::new(
                at,
                "expected the pieces in the order laid down after ':'",
            ));
        }
    }
    Ok((
        MoveSyntax::Sow {
            from,
            order,
            len: len as u8,
        },
        at,
    ))
}

impl fmt::Display for MoveSyntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MoveSyntax::Capture {
                role,
                from,
                landing,
                victim,
                target,
            } => {
                if let Some(role) = role {
                    write!(f, "{}", role.upper())?;
                }
                write!(f, "{from}")?;
                if let Some(landing) = landing {
                    write!(f, "-{landing}")?;
                }
                f.write_str("x")?;
                if let Some(victim) = victim {
                    write!(f, "{}", victim.upper())?;
                }
                write!(f, "{target}")
            }
            MoveSyntax::Step { role, from, to } => {
                if let Some(role) = role {
                    write!(f, "{}", role.upper())?;
                }
                write!(f, "{from}-{to}")
            }
            MoveSyntax::Sow { from, order, len } => {
                write!(f, "{from}")?;
                if len > 0 {
                    f.write_str(":")?;
                    for (role, theirs) in &order[..usize::from(len)] {
                        let c = role.upper();
                        write!(f, "{}", if *theirs { c.to_ascii_lowercase() } else { c })?;
                    }
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, step) in self.moves().iter().enumerate() {
            if index > 0 {
                f.write_str(",")?;
            }
            write!(f, "{step}")?;
        }
        match self.marker {
            Marker::None => Ok(()),
            Marker::Check => f.write_str("+"),
            Marker::Mate => f.write_str("#"),
        }
    }
}

/// The sown pieces of a written order, as pieces of the mover's position.
fn written_pieces(order: &[(Role, bool)], mover: Color) -> [Piece; FULL] {
    let mut pieces = [Piece::new(mover, Role::Pawn); FULL];
    for (index, (role, theirs)) in order.iter().enumerate() {
        let color = if *theirs { mover.other() } else { mover };
        pieces[index] = Piece::new(color, *role);
    }
    pieces
}

/// Whether two lists hold the same pieces, in any order.
fn same_pieces(a: &[Piece], b: &[Piece]) -> bool {
    let sorted = |pieces: &[Piece]| {
        let mut codes: Vec<u8> = pieces.iter().map(|p| p.code()).collect();
        codes.sort_unstable();
        codes
    };
    sorted(a) == sorted(b)
}

/// Whether a written move means `step` in `position` (before the move).
fn matches(position: &Chesscala, syntax: &MoveSyntax, step: &Move) -> bool {
    match (*syntax, *step) {
        (
            MoveSyntax::Capture {
                role,
                from,
                landing,
                victim,
                target,
            },
            Move::Capture {
                piece,
                from: f,
                to,
                target: t,
                victim: v,
            },
        ) => {
            from == f
                && target == t
                && role.is_none_or(|r| r == piece.role())
                && victim.is_none_or(|r| r == v.role())
                && landing.is_none_or(|l| l == to && piece.role() == Role::Hammer)
        }
        (MoveSyntax::Step { role, from, to }, Move::King { from: f, to: t }) => {
            from == f && to == t && role.is_none_or(|r| r == Role::King)
        }
        (MoveSyntax::Step { role, from, to }, Move::Double { from: f, to: t }) => {
            from == f && to == t && role.is_none_or(|r| r == Role::Pawn)
        }
        (MoveSyntax::Sow { from, order, len }, Move::Sow { from: f, .. }) => {
            if from != f {
                return false;
            }
            if len == 0 {
                return true;
            }
            let count = usize::from(len);
            let Some((pieces, lifted, squares)) = sowing(&position.board, from) else {
                return false;
            };
            if lifted != count {
                return false;
            }
            let written = written_pieces(&order[..count], position.turn);
            same_pieces(&pieces[..count], &written[..count])
                && landing(&written[..count], &squares) == landing(step.sown(), &squares)
        }
        _ => false,
    }
}

/// Whether the written moves, in order, mean the moves of `turn`.
fn fits(position: &Chesscala, written: &[MoveSyntax], turn: &Turn) -> bool {
    let moves = turn.moves();
    moves.len() == written.len()
        && !written.is_empty()
        && matches(position, &written[0], &moves[0])
        && (moves.len() == 1 || {
            let mut at = position.clone();
            at.apply(&moves[0]);
            moves[1..]
                .iter()
                .zip(&written[1..])
                .all(|(step, syn)| matches(&at, syn, step))
        })
}

/// Finds the legal turn a token means, or says why there is none.
pub fn resolve(position: &Chesscala, syntax: &Notation) -> Result<Turn, IllegalTurn> {
    if position.outcome.is_some() {
        return Err(IllegalTurn::new(IllegalKind::GameOver, "the game is over"));
    }
    let written = syntax.moves();
    // Every written move names its square, and a turn fits only if its first move starts
    // there: only those turns are generated; all of them only to explain a refusal.
    let mut turns = Vec::new();
    position.generate_from(written.first().map(MoveSyntax::from), &mut turns);
    let found: Vec<Turn> = turns
        .iter()
        .filter(|turn| fits(position, written, turn))
        .copied()
        .collect();
    match found.as_slice() {
        [turn] => Ok(*turn),
        [] => {
            turns.clear();
            position.generate(&mut turns);
            Err(explain(position, syntax, &turns))
        }
        several => {
            let tokens: Vec<String> = several.iter().map(|t| write(position, t)).collect();
            Err(IllegalTurn::new(
                IllegalKind::Ambiguous(tokens.clone()),
                format!("ambiguous: could be {}", tokens.join(", ")),
            ))
        }
    }
}

fn side_name(color: Color) -> String {
    color.name().to_ascii_lowercase()
}

/// Why no legal turn fits a token: the first written move that nothing matches, in words.
fn explain(position: &Chesscala, syntax: &Notation, turns: &[Turn]) -> IllegalTurn {
    let side = position.turn;
    let written = syntax.moves();
    // Does any legal turn start with the first written move?
    let first_fits = turns
        .iter()
        .any(|turn| matches(position, &written[0], &turn.moves()[0]));
    if !first_fits {
        return explain_move(position, &written[0]);
    }
    if written.len() == 1 {
        if matches!(written[0], MoveSyntax::Capture { .. }) {
            return IllegalTurn::new(
                IllegalKind::Other,
                "a capture must be followed by a sowing move (a sowing, a king move or a pawn double move)",
            );
        }
        return IllegalTurn::new(IllegalKind::Other, "this move cannot end the turn");
    }
    let multiple = position.check_count(side) >= 2;
    let kinds = (written[0], written[1]);
    if !multiple {
        match kinds {
            (MoveSyntax::Capture { .. }, MoveSyntax::Capture { .. }) => {
                return IllegalTurn::new(
                    IllegalKind::Other,
                    "two captures in one turn need multiple checks against the mover's kings",
                );
            }
            (MoveSyntax::Capture { .. }, _) => {}
            (_, MoveSyntax::Capture { .. }) => {
                return IllegalTurn::new(
                    IllegalKind::Other,
                    "after a sowing only a bomb it laid down may capture, on its own square (or any capture under multiple checks)",
                );
            }
            _ => {
                return IllegalTurn::new(
                    IllegalKind::Other,
                    "two sowing moves in one turn need multiple checks against the mover's kings",
                );
            }
        }
    }
    // The first move is fine: explain the second after it.
    for turn in turns {
        if matches(position, &written[0], &turn.moves()[0]) {
            let mut next = position.clone();
            next.apply(&turn.moves()[0]);
            return explain_move(&next, &written[1]);
        }
    }
    IllegalTurn::new(IllegalKind::Other, "no legal turn fits")
}

/// Why one written move cannot be made in `position`.
fn explain_move(position: &Chesscala, syntax: &MoveSyntax) -> IllegalTurn {
    let side = position.turn;
    let other = side.other();
    let name = side_name(side);
    let no_draws = || {
        IllegalTurn::new(
            IllegalKind::LeavesKingInCheck,
            "under the \"no draws\" option a turn may not leave an own king in check",
        )
    };
    match *syntax {
        MoveSyntax::Capture {
            role,
            from,
            victim,
            target,
            ..
        } => {
            let stack = position.board[from.index()];
            let mine = stack
                .pieces()
                .any(|p| p.color() == side && role.is_none_or(|r| r == p.role()));
            if !mine {
                let what = role.map_or("piece".to_owned(), |r| r.name().to_owned());
                return IllegalTurn::new(
                    IllegalKind::NoSuchPiece,
                    format!("no {name} {what} on {from}"),
                );
            }
            let target_stack = position.board[target.index()];
            if victim == Some(Role::King) {
                return IllegalTurn::new(
                    IllegalKind::Other,
                    "kings are never captured: a king in reach is in check",
                );
            }
            let has_victim = target_stack.pieces().any(|p| {
                p.color() == other && p.role() != Role::King && victim.is_none_or(|r| r == p.role())
            });
            if !has_victim {
                let what = victim.map_or("piece".to_owned(), |r| r.name().to_owned());
                return IllegalTurn::new(
                    IllegalKind::Other,
                    format!("no {} {what} to capture on {target}", side_name(other)),
                );
            }
            let mut any = false;
            let mut landing_elsewhere = None;
            position.for_each_capture(side, |step| {
                any |= matches(position, syntax, &step);
                if let Move::Capture {
                    from: f,
                    to,
                    target: t,
                    piece,
                    ..
                } = step
                    && f == from
                    && t == target
                    && piece.role() == Role::Hammer
                {
                    landing_elsewhere = Some(to);
                }
            });
            if any {
                return no_draws();
            }
            if let Some(to) = landing_elsewhere {
                return IllegalTurn::new(
                    IllegalKind::Other,
                    format!("the hammer on {from} captures on {target} from {to}"),
                );
            }
            IllegalTurn::new(
                IllegalKind::Blocked,
                format!(
                    "the {name} piece on {from} cannot capture on {target} (out of reach, blocked, or no room to land)"
                ),
            )
        }
        MoveSyntax::Step { from, to, .. } => {
            if position.first_turn_forbids(from) {
                return first_turn();
            }
            let stack = position.board[from.index()];
            if stack.contains(Piece::new(side, Role::King)) {
                if super::board::field_partner(side, from) != Some(to) {
                    return IllegalTurn::new(
                        IllegalKind::Other,
                        format!(
                            "a king moves only to the other square of its field, and {to} is not"
                        ),
                    );
                }
                if position.board[to.index()].is_full() {
                    return IllegalTurn::new(IllegalKind::Blocked, format!("{to} is full"));
                }
                return no_draws();
            }
            if stack.contains(Piece::new(side, Role::Pawn)) {
                if position
                    .double_move(side, from.mancala())
                    .is_some_and(|(f, _)| f == from)
                {
                    return IllegalTurn::new(
                        IllegalKind::Other,
                        format!("the pawn double move from {from} lands elsewhere"),
                    );
                }
                return IllegalTurn::new(
                    IllegalKind::Other,
                    format!(
                        "no pawn double move from {from}: only a pawn alone on its attacking line's second rank may make it, before any sowing or king move from its mancala"
                    ),
                );
            }
            IllegalTurn::new(
                IllegalKind::NoSuchPiece,
                format!("no {name} king or pawn on {from}"),
            )
        }
        MoveSyntax::Sow { from, order, len } => {
            let stack = position.board[from.index()];
            if stack.is_empty() {
                return IllegalTurn::new(IllegalKind::NoSuchPiece, format!("no stack on {from}"));
            }
            if position.first_turn_forbids(from) {
                return first_turn();
            }
            if !stack.controlled_by(side) {
                return IllegalTurn::new(
                    IllegalKind::Other,
                    format!(
                        "the stack on {from} is under {}'s control",
                        side_name(other)
                    ),
                );
            }
            let Some((pieces, count, _)) = sowing(&position.board, from) else {
                return IllegalTurn::new(
                    IllegalKind::Other,
                    format!("the stack on {from} holds only a king, which is never sown"),
                );
            };
            if len > 0 {
                let written = written_pieces(&order[..usize::from(len)], side);
                if !same_pieces(&pieces[..count], &written[..usize::from(len)]) {
                    let listed: String = pieces[..count]
                        .iter()
                        .map(|p| relative_letter(*p, side))
                        .collect();
                    return IllegalTurn::new(
                        IllegalKind::Other,
                        format!(
                            "the order must lay down each piece sown from {from} once: {listed} (capitals the mover's, small the opponent's)"
                        ),
                    );
                }
            }
            no_draws()
        }
    }
}

fn first_turn() -> IllegalTurn {
    IllegalTurn::new(
        IllegalKind::Other,
        "white's first turn may only sow or move a king from the b, d, e or f file",
    )
}

/// A piece's letter in a sowing: capital for the mover's, small for the opponent's.
fn relative_letter(piece: Piece, mover: Color) -> char {
    if piece.color() == mover {
        piece.role().upper()
    } else {
        piece.role().upper().to_ascii_lowercase()
    }
}

/// How many distinct sowings the stack on `from` has.
fn distinct_orders(position: &Chesscala, from: Sq) -> usize {
    let Some((pieces, count, squares)) = sowing(&position.board, from) else {
        return 0;
    };
    let mut n = 0;
    for_each_distinct_order(&pieces, count, &squares, |_| n += 1);
    n
}

/// The canonical syntax of one move in `position` (before it).
fn move_syntax(position: &Chesscala, step: &Move) -> MoveSyntax {
    match *step {
        Move::Capture {
            piece,
            from,
            to,
            target,
            victim,
        } => MoveSyntax::Capture {
            role: Some(piece.role()),
            from,
            landing: (piece.role() == Role::Hammer).then_some(to),
            victim: Some(victim.role()),
            target,
        },
        Move::King { from, to } => MoveSyntax::Step {
            role: Some(Role::King),
            from,
            to,
        },
        Move::Double { from, to } => MoveSyntax::Step {
            role: Some(Role::Pawn),
            from,
            to,
        },
        Move::Sow { from, order, len } => {
            let mut written = [(Role::Pawn, false); FULL];
            let mut written_len = 0;
            if distinct_orders(position, from) > 1 {
                for (index, piece) in order[..usize::from(len)].iter().enumerate() {
                    written[index] = (piece.role(), piece.color() != position.turn);
                }
                written_len = len;
            }
            MoveSyntax::Sow {
                from,
                order: written,
                len: written_len,
            }
        }
    }
}

/// The marker a turn earns: `#` when the opponent then has a checkmated King, `+` when
/// one of its Kings is in check.
fn marker_after(next: &Chesscala) -> Marker {
    let opponent = next.turn;
    if !next.in_check(opponent) {
        Marker::None
    } else if next.is_mated(opponent) {
        Marker::Mate
    } else {
        Marker::Check
    }
}

/// The canonical token of a legal turn.
pub fn write(position: &Chesscala, turn: &Turn) -> String {
    write_with(position, turn, None)
}

/// [`write`], with every legal turn of `position` given.
#[must_use]
pub fn write_among(position: &Chesscala, turn: &Turn, legal: &[Turn]) -> String {
    write_with(position, turn, Some(legal))
}

/// [`write`], with the legal turns if known (else generated when a sowing needs them).
fn write_with(position: &Chesscala, turn: &Turn, known: Option<&[Turn]>) -> String {
    let mut at = position.clone();
    let mut moves = [MoveSyntax::Step {
        role: None,
        from: Sq(0),
        to: Sq(0),
    }; 2];
    for (index, step) in turn.moves().iter().enumerate() {
        moves[index] = move_syntax(&at, step);
        at.apply(step);
    }
    // A sowing's order is written when its pieces can land in several ways; among legal
    // turns only: when no other legal turn differs from this one by that order alone,
    // the order is left out.
    let count = turn.moves().len();
    let mut generated = Vec::new();
    for index in 0..count {
        let MoveSyntax::Sow { from, len, .. } = moves[index] else {
            continue;
        };
        if len == 0 {
            continue;
        }
        let legal = match known {
            Some(legal) => legal,
            None => {
                if generated.is_empty() {
                    position.generate(&mut generated);
                }
                &generated[..]
            }
        };
        let mut shorter = moves;
        shorter[index] = MoveSyntax::Sow {
            from,
            order: [(Role::Pawn, false); FULL],
            len: 0,
        };
        let readings = legal
            .iter()
            .filter(|other| fits(position, &shorter[..count], other))
            .take(2)
            .count();
        if readings == 1 {
            moves = shorter;
        }
    }
    let mut next = position.clone();
    next.play(turn);
    Notation {
        moves,
        len: turn.moves().len() as u8,
        marker: marker_after(&next),
    }
    .to_string()
}

/// [`annotation_mismatch`] by its plain definition: the marker the turn earns worked out
/// in full (a mate test whenever a King is in check), then compared with the token's.
#[cfg(test)]
pub(crate) fn annotation_mismatch_plainly(after: &Chesscala, syntax: &Notation) -> Option<String> {
    match (syntax.marker, marker_after(after)) {
        (Marker::Mate, Marker::Check | Marker::None) => {
            Some("the turn is marked '#' but it is not checkmate".to_owned())
        }
        (Marker::Check, Marker::None) => {
            Some("the turn is marked '+' but no king is in check".to_owned())
        }
        _ => None,
    }
}

/// A complaint when a token's marker is not borne out by the position it led to.
pub fn annotation_mismatch(after: &Chesscala, syntax: &Notation) -> Option<String> {
    // Only what the token claims is tested: a check for `+`, a mate only for `#`.
    let actual = match syntax.marker {
        Marker::None => return None,
        Marker::Check if after.in_check(after.turn) => Marker::Check,
        Marker::Check => Marker::None,
        Marker::Mate => marker_after(after),
    };
    match (syntax.marker, actual) {
        (Marker::Mate, Marker::Check | Marker::None) => {
            Some("the turn is marked '#' but it is not checkmate".to_owned())
        }
        (Marker::Check, Marker::None) => {
            Some("the turn is marked '+' but no king is in check".to_owned())
        }
        _ => None,
    }
}
