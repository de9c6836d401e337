//! Cascudo's turn tokens: a cascade written link by link. The grammar, also in
//! `notation/cascudo.md`:
//!
//! ```ebnf
//! cascade   = [ piece ] cell link { link | whole } [ marker ] ;
//! link      = ( "-" | "x" ) cell [ promotion ] ;   (* origin and mover follow *)
//! whole     = ":" [ piece ] cell link ;            (* a link written out in full *)
//! promotion = "=" ( "Q" | "R" | "B" | "N" ) ;
//! piece     = "K" | "Q" | "R" | "B" | "N" | "P" ;
//! cell      = file rank ;                          (* a cell of the board, a1 to g5 *)
//! marker    = "+" | "#" ;
//! ```
//!
//! The short form (`Ke1-d2-c4`) gives the first mover and its origin, then each link's
//! destination only: a link starts where the previous one ended and moves the token
//! displaced there. The whole form (`Ke1-d2:Bd2-c4`) repeats the origin, and may name
//! the mover, which the board must bear out. `x` marks the last move's capture; `=Q`
//! the promotion a pawn makes on that link. `+` says the opponent is in check, `#` that
//! the opponent has no cascade (and so has lost).

use std::fmt;

use crate::games::{Color, Game as _, IllegalKind, IllegalTurn, TurnSyntaxError};

use super::Cascudo;
use super::hex::Cell;
use super::movegen::{
    MAX_LINKS, Piece, Role, Turn, for_each_target, in_check, king_cell, promotes_on,
};

/// The check marker a token ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    /// No marker.
    None,
    /// `+`: the opponent is in check.
    Check,
    /// `#`: the opponent has no cascade.
    Mate,
}

/// A turn token read without a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Notation {
    /// The first mover's letter, if written.
    pub role: Option<Role>,
    cells: [Cell; MAX_LINKS + 1],
    promotions: [Option<Role>; MAX_LINKS],
    /// The mover's letter of each link written in the whole form (the first link's is
    /// `role`).
    movers: [Option<Role>; MAX_LINKS],
    /// Whether each link is written in the whole form.
    whole: [bool; MAX_LINKS],
    links: u8,
    /// Whether the last link is written with `x`.
    pub capture: bool,
    /// The check marker.
    pub marker: Marker,
}

impl Notation {
    /// The origin, then every link's destination.
    #[must_use]
    pub fn cells(&self) -> &[Cell] {
        &self.cells[..usize::from(self.links) + 1]
    }

    /// The promotion written on each link.
    #[must_use]
    pub fn promotions(&self) -> &[Option<Role>] {
        &self.promotions[..usize::from(self.links)]
    }

    /// Reads a token (see the module's grammar).
    pub fn parse(token: &str) -> Result<Notation, TurnSyntaxError> {
        let mut reader = Reader {
            bytes: token.as_bytes(),
            at: 0,
        };
        if token.is_empty() {
            return Err(TurnSyntaxError::new(0, "empty turn"));
        }
        let role = reader.piece();
        let origin = reader.cell()?;
        let mut notation = Notation {
            role,
            cells: [origin; MAX_LINKS + 1],
            promotions: [None; MAX_LINKS],
            movers: [None; MAX_LINKS],
            whole: [false; MAX_LINKS],
            links: 0,
            capture: false,
            marker: Marker::None,
        };
        loop {
            let start = reader.at;
            let (mover, whole) = match reader.peek() {
                None => break,
                Some(b'+' | b'#') => {
                    notation.marker = if reader.peek() == Some(b'+') {
                        Marker::Check
                    } else {
                        Marker::Mate
                    };
                    reader.at += 1;
                    if let Some(b) = reader.peek() {
                        return Err(TurnSyntaxError::new(
                            reader.at,
                            format!(
                                "unexpected '{}' after the check marker, which ends the turn",
                                char::from(b)
                            ),
                        ));
                    }
                    break;
                }
                Some(b':') => {
                    reader.at += 1;
                    let mover = reader.piece();
                    let cell_at = reader.at;
                    let from = reader.cell()?;
                    let previous = notation.cells[usize::from(notation.links)];
                    if from != previous {
                        return Err(TurnSyntaxError::new(
                            cell_at,
                            format!(
                                "a link starts where the previous one ended, on {previous}, not on {from}"
                            ),
                        ));
                    }
                    (mover, true)
                }
                Some(b'-' | b'x') => (None, false),
                Some(b) => {
                    return Err(TurnSyntaxError::new(
                        start,
                        format!("unexpected character '{}'", char::from(b)),
                    ));
                }
            };
            if notation.capture {
                return Err(TurnSyntaxError::new(
                    start,
                    "only the last move of a cascade captures ('x'), so nothing follows it",
                ));
            }
            let capture = match reader.peek() {
                Some(b'-') => false,
                Some(b'x') => true,
                Some(b) => {
                    return Err(TurnSyntaxError::new(
                        reader.at,
                        format!("expected '-' or 'x', found '{}'", char::from(b)),
                    ));
                }
                None => {
                    return Err(TurnSyntaxError::new(
                        reader.at,
                        "expected '-' or 'x' and a cell",
                    ));
                }
            };
            reader.at += 1;
            let to = reader.cell()?;
            let promotion = if reader.peek() == Some(b'=') {
                reader.at += 1;
                let letter_at = reader.at;
                match reader.piece() {
                    Some(role) if Role::PROMOTIONS.contains(&role) => Some(role),
                    Some(role) => {
                        return Err(TurnSyntaxError::new(
                            letter_at,
                            format!("a pawn cannot promote to a {}", role.name()),
                        ));
                    }
                    None => {
                        return Err(TurnSyntaxError::new(
                            letter_at,
                            "expected Q, R, B or N after '='",
                        ));
                    }
                }
            } else {
                None
            };
            let index = usize::from(notation.links);
            if index == MAX_LINKS {
                return Err(TurnSyntaxError::new(
                    start,
                    format!("too many moves (a cascade has at most {MAX_LINKS})"),
                ));
            }
            notation.cells[index + 1] = to;
            notation.promotions[index] = promotion;
            notation.movers[index] = if index == 0 { role } else { mover };
            notation.whole[index] = whole;
            notation.capture = capture;
            notation.links += 1;
        }
        if notation.links == 0 {
            return Err(TurnSyntaxError::new(
                reader.at,
                "expected '-' or 'x' and a cell after the origin",
            ));
        }
        Ok(notation)
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn piece(&mut self) -> Option<Role> {
        let role = Role::from_upper_char(char::from(self.peek()?))?;
        self.at += 1;
        Some(role)
    }

    fn cell(&mut self) -> Result<Cell, TurnSyntaxError> {
        let start = self.at;
        let file = self.peek().filter(u8::is_ascii_lowercase);
        let rank = self
            .bytes
            .get(start + 1)
            .copied()
            .filter(u8::is_ascii_digit);
        match (file, rank) {
            (Some(file), Some(rank)) => {
                self.at += 2;
                Cell::from_name(&format!("{}{}", char::from(file), char::from(rank))).ok_or_else(
                    || {
                        TurnSyntaxError::new(
                            start,
                            format!(
                                "{}{} is not a cell of the board",
                                char::from(file),
                                char::from(rank)
                            ),
                        )
                    },
                )
            }
            _ => Err(match self.peek() {
                Some(b) => TurnSyntaxError::new(
                    start,
                    format!("expected a cell, found '{}'", char::from(b)),
                ),
                None => TurnSyntaxError::new(start, "expected a cell at the end"),
            }),
        }
    }
}

impl fmt::Display for Notation {
    /// The token in one spelling: links in the short form unless written whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(role) = self.role {
            write!(f, "{}", role.upper_char())?;
        }
        write!(f, "{}", self.cells[0])?;
        let links = usize::from(self.links);
        for index in 0..links {
            if self.whole[index] {
                f.write_str(":")?;
                if let Some(role) = self.movers[index] {
                    write!(f, "{}", role.upper_char())?;
                }
                write!(f, "{}", self.cells[index])?;
            }
            let separator = if self.capture && index + 1 == links {
                "x"
            } else {
                "-"
            };
            write!(f, "{separator}{}", self.cells[index + 1])?;
            if let Some(role) = self.promotions[index] {
                write!(f, "={}", role.upper_char())?;
            }
        }
        match self.marker {
            Marker::None => Ok(()),
            Marker::Check => f.write_str("+"),
            Marker::Mate => f.write_str("#"),
        }
    }
}

/// The canonical token: the short form, the first mover's letter (none for a pawn), `x`
/// before a captured cell, `=X` after each promotion, `#` when the opponent is left
/// without a cascade, else `+` when in check.
pub(crate) fn write(position: &Cascudo, turn: &Turn) -> String {
    let mut out = String::with_capacity(4 + 3 * turn.links());
    let mut after = position.clone();
    let capture = position.is_capture(turn);
    if let Some(piece) = position.board[turn.origin().index()]
        && piece.role != Role::Pawn
    {
        out.push(piece.role.upper_char());
    }
    out.push_str(&turn.origin().to_string());
    let links = turn.links();
    for (index, (to, promotion)) in turn.cells()[1..].iter().zip(turn.promotions()).enumerate() {
        out.push(if capture && index + 1 == links {
            'x'
        } else {
            '-'
        });
        out.push_str(&to.to_string());
        if let Some(role) = promotion {
            out.push('=');
            out.push(role.upper_char());
        }
    }
    after.play(turn);
    if !after.has_legal_turn() {
        out.push('#');
    } else if after.is_check() {
        out.push('+');
    }
    out
}

/// The legal cascade a token means, or why there is none.
pub(crate) fn resolve(position: &Cascudo, notation: &Notation) -> Result<Turn, IllegalTurn> {
    // Only the cascades of the written first mover can match; the others are generated
    // only to tell a finished game.
    let mut legal = Vec::new();
    position.generate_from(notation.cells[0], &mut legal);
    if legal.is_empty() && !position.has_legal_turn() {
        return Err(IllegalTurn::new(
            IllegalKind::GameOver,
            format!("the game is over: {} has no cascade", position.turn),
        ));
    }
    let found = legal.iter().find(|turn| {
        turn.cells() == notation.cells()
            && turn
                .promotions()
                .iter()
                .zip(notation.promotions())
                .all(|(made, written)| written.is_none_or(|role| Some(role) == *made))
    });
    let Some(turn) = found else {
        return Err(explain(position, notation, &legal));
    };
    // The chain is legal; now the claims the token makes about it.
    walk(position, notation)?;
    if notation.capture && !position.is_capture(turn) {
        return Err(IllegalTurn::new(
            IllegalKind::Other,
            format!(
                "no capture on {} ({} is not an enemy's cell)",
                turn.last(),
                turn.last()
            ),
        ));
    }
    Ok(*turn)
}

/// Replays the written chain on the board and returns the first thing wrong with it, as
/// the rules say it; `Ok` when every link is a legal move of the chain (the King may still
/// be left in check).
fn walk(position: &Cascudo, notation: &Notation) -> Result<(), IllegalTurn> {
    let side = position.turn;
    let other = |message: String| Err(IllegalTurn::new(IllegalKind::Other, message));
    let cells = notation.cells();
    let origin = cells[0];
    let mut board = position.board;
    let Some(mut hand) = board[origin.index()] else {
        return Err(IllegalTurn::new(
            IllegalKind::NoSuchPiece,
            format!("there is no token on {origin}"),
        ));
    };
    if hand.color != side {
        return Err(IllegalTurn::new(
            IllegalKind::NoSuchPiece,
            format!("{origin} holds a {hand}, not a {} token", name(side)),
        ));
    }
    board[origin.index()] = None;
    let mut moved = 0u64;
    let links = cells.len() - 1;
    for index in 0..links {
        let (from, to) = (cells[index], cells[index + 1]);
        if let Some(role) = notation.movers[index]
            && role != hand.role
        {
            let mover = Piece { color: side, role };
            return Err(IllegalTurn::new(
                IllegalKind::NoSuchPiece,
                format!("the token that moves from {from} is a {hand}, not a {mover}"),
            ));
        }
        if !for_each_target(&board, from, hand, |target| target == to) {
            return Err(move_problem(from, hand, to));
        }
        let occupant = board[to.index()];
        let internal = occupant.is_some_and(|p| p.color == side);
        if occupant.is_some_and(|p| p.color == side) && moved & (1 << to.index()) != 0 {
            return other(format!(
                "the {} on {to} has already moved in this cascade",
                occupant.expect("a token").role.name()
            ));
        }
        if let Some(enemy) = occupant.filter(|p| p.color != side && p.role == Role::King) {
            return other(format!(
                "the {enemy} on {to} cannot be captured, only checkmated"
            ));
        }
        if index == 0 && !internal {
            return other(format!(
                "a cascade starts by displacing a friendly token, and {to} holds none (a turn is at least two moves)"
            ));
        }
        if !internal && index + 1 < links {
            return other(format!(
                "the cascade ends on {to}, which holds no friendly token to move on"
            ));
        }
        if internal && index + 1 == links {
            return other(format!(
                "the cascade cannot end on {to}: the {} displaced there must move on",
                occupant.expect("a token").role.name()
            ));
        }
        let promotes = hand.role == Role::Pawn && promotes_on(side, to);
        match (promotes, notation.promotions[index]) {
            (true, None) => {
                return other(format!(
                    "the pawn promotes on {to}: write {from}-{to}=Q, =R, =B or =N"
                ));
            }
            (false, Some(_)) => {
                return other(format!(
                    "nothing promotes on {to}: only a pawn reaching the end of its file does"
                ));
            }
            (true, Some(role)) => hand.role = role,
            (false, None) => {}
        }
        board[to.index()] = Some(hand);
        if internal {
            moved |= 1 << to.index();
            hand = occupant.expect("a token");
        }
    }
    if let Some(king) = king_cell(&board, side)
        && in_check(&board, king, side.other())
    {
        return Err(IllegalTurn::new(
            IllegalKind::LeavesKingInCheck,
            format!(
                "the cascade leaves the {} king on {king} in check",
                name(side)
            ),
        ));
    }
    Ok(())
}

/// Why a written chain is not legal, with the legal cascades that start like it (`legal`
/// holds those of the written first mover).
fn explain(position: &Cascudo, notation: &Notation, legal: &[Turn]) -> IllegalTurn {
    let mut error = match walk(position, notation) {
        Err(error) => error,
        Ok(()) => IllegalTurn::new(IllegalKind::Other, "not a legal cascade"),
    };
    let first = &notation.cells()[..2];
    let same_start = legal.iter().any(|turn| turn.cells().starts_with(first));
    let mut close: Vec<String> = legal
        .iter()
        .filter(|turn| !same_start || turn.cells().starts_with(first))
        .map(|turn| write(position, turn))
        .collect();
    if !close.is_empty() {
        close.sort();
        let shown = close.len().min(6);
        let more = if close.len() > shown {
            format!(" and {} more", close.len() - shown)
        } else {
            String::new()
        };
        error.message = format!(
            "{} (legal: {}{more})",
            error.message,
            close[..shown].join(", ")
        );
    }
    error
}

/// Why the `piece` on `from` cannot move to `to` on `board`.
fn move_problem(from: Cell, piece: Piece, to: Cell) -> IllegalTurn {
    if piece.role == Role::Pawn {
        let forward = for_each_target(&[None; super::hex::CELLS], from, piece, |t| t == to);
        let message = if forward {
            format!(
                "a pawn moves straight forward only to an empty or friendly cell, and {to} holds an enemy token"
            )
        } else if to.file() != from.file() && (to.height() - from.height()).abs() == 1 {
            format!("a pawn moves sideways-forward only to capture, and {to} holds no enemy token")
        } else {
            format!("a {piece} cannot move from {from} to {to}")
        };
        return IllegalTurn::new(IllegalKind::Other, message);
    }
    let mut empty = [None; super::hex::CELLS];
    empty[from.index()] = Some(piece);
    if for_each_target(&empty, from, piece, |t| t == to) {
        return IllegalTurn::new(
            IllegalKind::Blocked,
            format!("the {piece} on {from} is blocked on its way to {to}"),
        );
    }
    IllegalTurn::new(
        IllegalKind::Other,
        format!("a {} cannot move from {from} to {to}", piece.role.name()),
    )
}

/// A complaint about a check marker the position after the turn does not bear out.
pub(crate) fn marker_mismatch(after: &Cascudo, notation: &Notation) -> Option<String> {
    let side = after.turn.name();
    match notation.marker {
        Marker::None => None,
        Marker::Check if !after.is_check() => {
            Some(format!("claims check but {side} is not in check"))
        }
        Marker::Check => None,
        Marker::Mate => {
            let mut turns = Vec::new();
            after.generate(&mut turns);
            let example = turns.first()?;
            Some(format!(
                "claims mate but {side} has cascades, e.g. {}",
                write(after, example)
            ))
        }
    }
}

fn name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}
