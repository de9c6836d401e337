//! The board-free token ([`Notation`]), resolving it against a position with the reasons
//! in words, and the canonical writer.
//!
//! ```text
//! turn      = step | sowing ;
//! step      = [ "T" ] square ( "-" | "x" | "" ) square [ marker ] ;
//! sowing    = square direction [ "=" square ] { "x" square } [ marker ] ;
//! direction = "NE" | "NW" | "SE" | "SW" | "N" | "E" | "S" | "W" ;
//! marker    = "+" | "#" ;
//! ```

use std::fmt;

use super::African;
use super::movegen::{Applied, Direction, Failure, Turn, TurnKind, apply, is_guarded};
use crate::games::chess::Square;
use crate::games::{Game, IllegalKind, IllegalTurn, TurnSyntaxError};

/// The guard or touch claim that ends a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    /// No claim.
    None,
    /// `+`: the turn guards the enemy touchstone (check).
    Guard,
    /// `#`: touch, the guarded side has no legal turn (checkmate).
    Touch,
}

/// What a token says is done.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A stone steps to an adjacent square.
    Step {
        /// Where it goes.
        to: Square,
        /// Whether `x` was written.
        capture: bool,
    },
    /// The group on the origin is sown.
    Sow {
        /// Which way.
        direction: Direction,
        /// Where the touchstone ends, when written (`=e3`).
        place: Option<Square>,
        /// The squares written after `x`, in the order written.
        captures: Vec<Square>,
    },
}

/// A turn token read without a board.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Notation {
    /// Whether the token starts with `T` (the touchstone steps).
    pub touchstone: bool,
    /// The square the stone or group leaves.
    pub from: Square,
    /// The step or the sowing.
    pub action: Action,
    /// The guard or touch claim.
    pub marker: Marker,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn unexpected(&self) -> TurnSyntaxError {
        match self.peek() {
            Some(c) => {
                TurnSyntaxError::new(self.at, format!("unexpected character '{}'", char::from(c)))
            }
            None => TurnSyntaxError::new(self.at, "the turn ends too soon"),
        }
    }

    fn square(&mut self) -> Result<Square, TurnSyntaxError> {
        let name = self.bytes.get(self.at..self.at + 2).unwrap_or_default();
        match std::str::from_utf8(name).ok().and_then(Square::from_name) {
            Some(square) => {
                self.at += 2;
                Ok(square)
            }
            None if matches!(self.peek(), Some(b'a'..=b'h')) => Err(TurnSyntaxError::new(
                self.at,
                "expected a whole square here",
            )),
            None => Err(self.unexpected()),
        }
    }
}

impl Notation {
    /// Reads a token.
    pub fn parse(token: &str) -> Result<Notation, TurnSyntaxError> {
        if token.is_empty() {
            return Err(TurnSyntaxError::new(0, "empty turn"));
        }
        let mut cursor = Cursor {
            bytes: token.as_bytes(),
            at: 0,
        };
        let touchstone = cursor.peek() == Some(b'T');
        if touchstone {
            cursor.at += 1;
        }
        let from = cursor.square()?;
        let action = match cursor.peek() {
            Some(b'-' | b'x') | Some(b'a'..=b'h') => {
                let capture = cursor.peek() == Some(b'x');
                if matches!(cursor.peek(), Some(b'-' | b'x')) {
                    cursor.at += 1;
                }
                Action::Step {
                    to: cursor.square()?,
                    capture,
                }
            }
            Some(b'N' | b'E' | b'S' | b'W') => {
                if touchstone {
                    return Err(TurnSyntaxError::new(
                        0,
                        "a sowing does not start with 'T' (write where the touchstone goes with '=')",
                    ));
                }
                let two = token
                    .get(cursor.at..cursor.at + 2)
                    .and_then(Direction::from_name);
                let direction = match two {
                    Some(direction) => {
                        cursor.at += 2;
                        direction
                    }
                    None => {
                        let one = token
                            .get(cursor.at..=cursor.at)
                            .and_then(Direction::from_name);
                        cursor.at += 1;
                        one.ok_or_else(|| cursor.unexpected())?
                    }
                };
                let place = if cursor.peek() == Some(b'=') {
                    cursor.at += 1;
                    Some(cursor.square()?)
                } else {
                    None
                };
                let mut captures = Vec::new();
                while cursor.peek() == Some(b'x') {
                    cursor.at += 1;
                    if captures.len() == 4 {
                        return Err(TurnSyntaxError::new(
                            cursor.at - 1,
                            "too many captures (a group of four captures on at most four squares)",
                        ));
                    }
                    captures.push(cursor.square()?);
                }
                Action::Sow {
                    direction,
                    place,
                    captures,
                }
            }
            None => {
                return Err(TurnSyntaxError::new(
                    cursor.at,
                    "a turn needs a target square or a direction after its origin",
                ));
            }
            Some(_) => return Err(cursor.unexpected()),
        };
        let marker = match cursor.peek() {
            Some(b'+') => Marker::Guard,
            Some(b'#') => Marker::Touch,
            _ => Marker::None,
        };
        if marker != Marker::None {
            cursor.at += 1;
        }
        if cursor.at < token.len() {
            return Err(cursor.unexpected());
        }
        Ok(Notation {
            touchstone,
            from,
            action,
            marker,
        })
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.touchstone {
            f.write_str("T")?;
        }
        write!(f, "{}", self.from)?;
        match &self.action {
            Action::Step { to, capture } => {
                write!(f, "{}{to}", if *capture { 'x' } else { '-' })?;
            }
            Action::Sow {
                direction,
                place,
                captures,
            } => {
                write!(f, "{direction}")?;
                if let Some(place) = place {
                    write!(f, "={place}")?;
                }
                for square in captures {
                    write!(f, "x{square}")?;
                }
            }
        }
        match self.marker {
            Marker::None => Ok(()),
            Marker::Guard => f.write_str("+"),
            Marker::Touch => f.write_str("#"),
        }
    }
}

/// The capture squares of a turn, in the order the stones reach them.
fn capture_squares(turn: &Turn, applied: &Applied) -> Vec<Square> {
    let mut squares = Vec::new();
    match turn.kind() {
        TurnKind::Step { to, .. } => {
            if applied.captures & (1 << to.index()) != 0 {
                squares.push(to);
            }
        }
        TurnKind::Sow { direction, .. } => {
            for distance in 1..=4 {
                if let Some(square) = direction.walk(turn.from(), distance)
                    && applied.captures & (1 << square.index()) != 0
                {
                    squares.push(square);
                }
            }
        }
    }
    squares
}

fn sowings_from(position: &African, from: Square, direction: Direction) -> Vec<Turn> {
    let mut turns = Vec::new();
    position.generate(Some(from), &mut turns);
    turns
        .retain(|turn| matches!(turn.kind(), TurnKind::Sow { direction: d, .. } if d == direction));
    turns
}

/// The canonical token of a legal turn, without its marker.
fn notation_of(position: &African, turn: &Turn) -> Notation {
    let color = position.side_to_move();
    let applied = apply(&position.board, color, turn);
    let captures = applied
        .as_ref()
        .map(|applied| capture_squares(turn, applied))
        .unwrap_or_default();
    match turn.kind() {
        TurnKind::Step { to, touchstone } => Notation {
            touchstone,
            from: turn.from(),
            action: Action::Step {
                to,
                capture: !captures.is_empty(),
            },
            marker: Marker::None,
        },
        TurnKind::Sow {
            direction,
            touchstone,
        } => {
            let place =
                touchstone.filter(|_| sowings_from(position, turn.from(), direction).len() > 1);
            Notation {
                touchstone: false,
                from: turn.from(),
                action: Action::Sow {
                    direction,
                    place,
                    captures,
                },
                marker: Marker::None,
            }
        }
    }
}

/// The canonical token of a legal turn, with `+` when it guards and `#` when it touches.
pub fn write(position: &African, turn: &Turn) -> String {
    let mut notation = notation_of(position, turn);
    let mut next = position.clone();
    next.play(turn);
    if is_guarded(&next.board, next.side_to_move()) {
        notation.marker = if next.has_legal_turn() {
            Marker::Guard
        } else {
            Marker::Touch
        };
    }
    notation.to_string()
}

fn explain(position: &African, turn: &Turn) -> IllegalTurn {
    let color = position.side_to_move();
    let own = color.name().to_lowercase();
    let enemy = color.other().name().to_lowercase();
    match apply(&position.board, color, turn) {
        Err(Failure::NoStone) => IllegalTurn::new(
            IllegalKind::NoSuchPiece,
            format!("the {own} touchstone is not on {}", turn.from()),
        ),
        Err(Failure::NotAdjacent) => IllegalTurn::new(
            IllegalKind::NoSuchPiece,
            match turn.kind() {
                TurnKind::Step { to, .. } => {
                    format!(
                        "a stone steps one square: {to} is not next to {}",
                        turn.from()
                    )
                }
                TurnKind::Sow { .. } => "a stone steps one square".to_owned(),
            },
        ),
        Err(Failure::GroupMustSow) => IllegalTurn::new(
            IllegalKind::Other,
            format!(
                "the {own} stones on {} are a group and must be sown whole",
                turn.from()
            ),
        ),
        Err(Failure::SingleMustStep) => IllegalTurn::new(
            IllegalKind::Other,
            format!(
                "{} holds a single {own} stone, which steps (only a group is sown)",
                turn.from()
            ),
        ),
        Err(Failure::TargetFull(square)) => IllegalTurn::new(
            IllegalKind::Blocked,
            format!("{square} already holds 4 stones"),
        ),
        Err(Failure::FirstSquareOffBoard) => IllegalTurn::new(
            IllegalKind::Blocked,
            format!(
                "the first square is blocked: the edge of the board is next to {}",
                turn.from()
            ),
        ),
        Err(Failure::FirstSquareFull(square)) => IllegalTurn::new(
            IllegalKind::Blocked,
            format!("the first square is blocked: {square} already holds 4 stones"),
        ),
        Err(Failure::Overfull(square, stones)) => IllegalTurn::new(
            IllegalKind::Blocked,
            format!("the stones left would make {stones} on {square} (at most 4)"),
        ),
        Ok(applied) if applied.takes_touchstone => IllegalTurn::new(
            IllegalKind::Other,
            format!(
                "it would capture the {enemy} touchstone, which is never captured (it is only guarded)"
            ),
        ),
        Ok(_) => IllegalTurn::new(
            IllegalKind::LeavesKingInCheck,
            format!("it would leave the {own} touchstone capturable"),
        ),
    }
}

/// Finds the legal turn a token means, or says why there is none.
pub fn resolve(position: &African, notation: &Notation) -> Result<Turn, IllegalTurn> {
    let color = position.side_to_move();
    let own = color.name().to_lowercase();
    let from = notation.from;
    let cell = position.board[from.index()];
    if cell.stones(color) == 0 {
        return Err(IllegalTurn::new(
            IllegalKind::NoSuchPiece,
            format!("no {own} stone on {from}"),
        ));
    }
    let has_touchstone = cell.has_touchstone(color);
    let mut legal = Vec::new();
    position.generate(Some(from), &mut legal);
    match &notation.action {
        Action::Step { to, capture } => {
            if notation.touchstone && !has_touchstone {
                return Err(IllegalTurn::new(
                    IllegalKind::NoSuchPiece,
                    format!("the {own} touchstone is not on {from}"),
                ));
            }
            let turn = Turn::step(from, *to, has_touchstone);
            if !legal.contains(&turn) {
                return Err(explain(position, &turn));
            }
            if *capture {
                let applied = apply(&position.board, color, &turn);
                if applied.is_ok_and(|applied| applied.captures == 0) {
                    let written = notation_of(position, &turn);
                    return Err(IllegalTurn::new(
                        IllegalKind::Other,
                        format!("no capture on {to} ({written} is a move)"),
                    ));
                }
            }
            Ok(turn)
        }
        Action::Sow {
            direction,
            place,
            captures,
        } => {
            if place.is_some() && !has_touchstone {
                return Err(IllegalTurn::new(
                    IllegalKind::Other,
                    format!("the {own} touchstone is not in the group on {from}"),
                ));
            }
            let mut candidates: Vec<Turn> = legal
                .iter()
                .copied()
                .filter(|turn| {
                    matches!(turn.kind(), TurnKind::Sow { direction: d, touchstone }
                        if d == *direction && place.is_none_or(|p| touchstone == Some(p)))
                })
                .collect();
            let Some(&turn) = candidates.first() else {
                // Explain with the order that puts the touchstone where the token says.
                let stones = if has_touchstone {
                    cell.stones(color)
                } else {
                    1
                };
                let mut tried = None;
                for order in 0..stones {
                    let turn = Turn::sow(from, *direction, order);
                    match apply(&position.board, color, &turn) {
                        Ok(applied) if place.is_some_and(|p| applied.touchstone != Some(p)) => {}
                        _ => {
                            tried = Some(turn);
                            break;
                        }
                    }
                }
                return Err(match tried {
                    Some(turn) => explain(position, &turn),
                    None => IllegalTurn::new(
                        IllegalKind::Other,
                        format!(
                            "sowing {from} {direction} cannot leave the touchstone on {}",
                            place.unwrap_or(from)
                        ),
                    ),
                });
            };
            if candidates.len() > 1 {
                let tokens: Vec<String> = candidates
                    .drain(..)
                    .map(|turn| notation_of(position, &turn).to_string())
                    .collect();
                let message = format!(
                    "ambiguous: {} (say where the touchstone goes)",
                    tokens.join(" or ")
                );
                return Err(IllegalTurn::new(IllegalKind::Ambiguous(tokens), message));
            }
            if !captures.is_empty()
                && let Ok(applied) = apply(&position.board, color, &turn)
            {
                let actual = capture_squares(&turn, &applied);
                if actual != *captures {
                    let names = |squares: &[Square]| -> String {
                        if squares.is_empty() {
                            return "nothing".to_owned();
                        }
                        let names: Vec<String> = squares.iter().map(Square::to_string).collect();
                        format!("on {}", names.join(", "))
                    };
                    return Err(IllegalTurn::new(
                        IllegalKind::Other,
                        format!(
                            "the sowing captures {}, not {} ({} is the turn)",
                            names(&actual),
                            names(captures),
                            notation_of(position, &turn)
                        ),
                    ));
                }
            }
            Ok(turn)
        }
    }
}
