//! Chesica's turn tokens: steps and replacement captures in chess style (`Bd4`, `Rxc5`,
//! `Qcd4`), jumps in draughts style with every landing square (`c3xe5xg7`), `+` for a
//! promotion. The grammar, also in `notation/chesica.md`:
//!
//! ```ebnf
//! turn      = [ piece ] [ origin ] landing { landing } [ promotion ] ;
//! origin    = square | file | rank ;
//! landing   = [ separator ] square ;
//! separator = "x" | ":" | "-" ;              (* "x" and ":" claim a capture *)
//! piece     = "B" | "R" | "Q" ;
//! promotion = "+" ;
//! ```
//!
//! Without a piece letter the origin must be a whole square; more than one landing
//! square (a written-out multi-jump) needs a whole origin square too.

use std::fmt;

use crate::games::chess::Square;
use crate::games::{Forbidden, IllegalKind, IllegalTurn, TurnSyntaxError};

use super::Chesica;
use super::board::{Piece, Role};
use super::movegen::{MAX_JUMPS, Turn, TurnKind, checker_directions, jump_target, midpoint};

/// A turn token read without a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Notation {
    /// The piece letter, if written.
    pub role: Option<Role>,
    /// The origin's file (0 = a), if written.
    pub from_file: Option<u8>,
    /// The origin's rank (0 = the first), if written.
    pub from_rank: Option<u8>,
    landings: [Square; MAX_JUMPS],
    len: u8,
    /// Whether a separator claims a capture (`x` or `:`).
    pub capture: bool,
    /// Whether the token ends with the promotion marker `+`.
    pub promotion: bool,
}

impl Notation {
    /// The squares written after the origin, in order.
    #[must_use]
    pub fn landings(&self) -> &[Square] {
        &self.landings[..usize::from(self.len)]
    }

    /// The whole origin square, when both its file and rank are written.
    #[must_use]
    pub fn origin(&self) -> Option<Square> {
        Some(Square::from_coords(self.from_file?, self.from_rank?))
    }

    /// Reads a token (see the module's grammar).
    pub fn parse(token: &str) -> Result<Notation, TurnSyntaxError> {
        let bytes = token.as_bytes();
        if bytes.is_empty() {
            return Err(TurnSyntaxError::new(0, "empty turn"));
        }
        let mut i = 0;
        let role = Role::from_upper_char(char::from(bytes[0]));
        if role.is_some() {
            i = 1;
        }
        let mut parts = [Part::default(); MAX_JUMPS + 1];
        let mut count = 0;
        let mut promotion = false;
        while i < bytes.len() {
            let start = i;
            if bytes[i] == b'+' {
                if i + 1 != bytes.len() {
                    return Err(TurnSyntaxError::new(
                        i,
                        "the promotion marker '+' ends the turn",
                    ));
                }
                promotion = true;
                break;
            }
            let separator = matches!(bytes[i], b'x' | b':' | b'-').then(|| bytes[i]);
            if separator.is_some() {
                i += 1;
            }
            let file = bytes
                .get(i)
                .filter(|b| (b'a'..=b'h').contains(b))
                .map(|b| b - b'a');
            if file.is_some() {
                i += 1;
            }
            let rank = bytes
                .get(i)
                .filter(|b| (b'1'..=b'8').contains(b))
                .map(|b| b - b'1');
            if rank.is_some() {
                i += 1;
            }
            if file.is_none() && rank.is_none() {
                return Err(match bytes.get(i) {
                    Some(&b) => {
                        TurnSyntaxError::new(i, format!("unexpected character '{}'", char::from(b)))
                    }
                    None => TurnSyntaxError::new(i, "expected a square at the end"),
                });
            }
            if count == parts.len() {
                return Err(TurnSyntaxError::new(
                    start,
                    format!("too many squares (a turn jumps at most {MAX_JUMPS} times)"),
                ));
            }
            parts[count] = Part {
                start,
                separator,
                file,
                rank,
            };
            count += 1;
        }
        if count == 0 {
            return Err(TurnSyntaxError::new(i, "expected a square"));
        }
        let (origin, landings) = if count == 1 {
            (None, &parts[..1])
        } else {
            (Some(parts[0]), &parts[1..count])
        };
        if let Some(Part {
            start,
            separator: Some(separator),
            ..
        }) = origin
        {
            return Err(TurnSyntaxError::new(
                start,
                format!("unexpected '{}' before the origin", char::from(separator)),
            ));
        }
        let mut notation = Notation {
            role,
            from_file: origin.and_then(|part| part.file),
            from_rank: origin.and_then(|part| part.rank),
            landings: [Square::new(0); MAX_JUMPS],
            len: 0,
            capture: false,
            promotion,
        };
        for &Part {
            start,
            separator,
            file,
            rank,
        } in landings
        {
            let (Some(file), Some(rank)) = (file, rank) else {
                return Err(TurnSyntaxError::new(start, "expected a whole square here"));
            };
            notation.capture |= matches!(separator, Some(b'x' | b':'));
            notation.landings[usize::from(notation.len)] = Square::from_coords(file, rank);
            notation.len += 1;
        }
        let whole_origin = notation.origin().is_some();
        if role.is_none() && !whole_origin {
            let at = origin.map_or(0, |part| part.start);
            return Err(TurnSyntaxError::new(
                at,
                "a turn needs a piece letter (B, R, Q) or its origin square",
            ));
        }
        if notation.len > 1 && !whole_origin {
            let at = origin.map_or(0, |part| part.start);
            return Err(TurnSyntaxError::new(
                at,
                "a multi-jump starts from its whole origin square",
            ));
        }
        Ok(notation)
    }
}

/// One square (or origin file or rank) of a token as read.
#[derive(Clone, Copy, Debug, Default)]
struct Part {
    /// Where it starts in the token (its separator included).
    start: usize,
    /// The separator before it, if any.
    separator: Option<u8>,
    file: Option<u8>,
    rank: Option<u8>,
}

impl fmt::Display for Notation {
    /// The token as read, in a standard spelling: `x` between squares when any capture
    /// was claimed, else `-` between squares without a piece letter (`c3-d4`, `Bc3d4`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(role) = self.role {
            write!(f, "{}", role.upper_char())?;
        }
        if let Some(file) = self.from_file {
            write!(f, "{}", char::from(b'a' + file))?;
        }
        if let Some(rank) = self.from_rank {
            write!(f, "{}", char::from(b'1' + rank))?;
        }
        let whole_origin = self.origin().is_some();
        for (index, square) in self.landings().iter().enumerate() {
            if self.capture {
                f.write_str("x")?;
            } else if index > 0 || (whole_origin && self.role.is_none()) {
                f.write_str("-")?;
            }
            write!(f, "{square}")?;
        }
        if self.promotion {
            f.write_str("+")?;
        }
        Ok(())
    }
}

/// The canonical token of a legal turn among every legal turn (see [`write_among`]).
pub(crate) fn write(position: &Chesica, turn: &Turn) -> String {
    let mut legal = Vec::new();
    position.generate(&mut legal);
    write_among(position, turn, &legal)
}

/// The canonical token of a legal turn among the turns the history does not forbid.
pub(crate) fn write_except(position: &Chesica, turn: &Turn, forbidden: &Forbidden) -> String {
    let mut legal = Vec::new();
    position.generate(&mut legal);
    legal.retain(|other| !forbidden.forbids(position, other));
    write_among(position, turn, &legal)
}

/// The canonical token of a legal turn (see `notation/chesica.md`): a jump chain as its
/// origin and every landing square joined by `x`; a step or replacement capture as the
/// piece letter, the origin's file, rank or both when another piece of the same kind
/// could go there too by one of the turns in `legal` (the legal turns the history does
/// not forbid, as PGN counts only legal moves), `x` for a capture, the target; `+` after
/// a promotion.
fn write_among(position: &Chesica, turn: &Turn, legal: &[Turn]) -> String {
    let mut out = String::with_capacity(8);
    if turn.kind() == TurnKind::Jump {
        out.push_str(&turn.from().to_string());
        for square in turn.landings() {
            out.push('x');
            out.push_str(&square.to_string());
        }
    } else {
        let piece = position.board[turn.from().index()].expect("a legal turn moves a piece");
        out.push(piece.role.upper_char());
        let rivals = legal.iter().filter(|other| {
            other.kind() != TurnKind::Jump
                && other.to() == turn.to()
                && other.from() != turn.from()
                && position.board[other.from().index()].is_some_and(|p| p.role == piece.role)
        });
        let (mut same_file, mut same_rank, mut any) = (false, false, false);
        for other in rivals {
            any = true;
            same_file |= other.from().file() == turn.from().file();
            same_rank |= other.from().rank() == turn.from().rank();
        }
        if any && (!same_file || same_rank) {
            out.push(turn.from().file_char());
        }
        if any && same_file {
            out.push(turn.from().rank_char());
        }
        if turn.kind() == TurnKind::Capture {
            out.push('x');
        }
        out.push_str(&turn.to().to_string());
    }
    if turn.promotes() {
        out.push('+');
    }
    out
}

/// The legal turn a token means, among the turns the history does not forbid, or why
/// there is none.
///
/// A step or replacement capture is matched by its piece letter (or its origin square)
/// and target. A jump is matched only when the token gives its origin square: either with
/// every landing square, or in the short form with the last one only, which must then fit
/// exactly one chain. A token that spells out a legal path exactly means that path. A
/// token that fits only turns the history forbids is refused by repetition.
pub(crate) fn resolve(
    position: &Chesica,
    notation: &Notation,
    forbidden: &Forbidden,
) -> Result<Turn, IllegalTurn> {
    let mut all = Vec::new();
    position.generate(&mut all);
    if all.is_empty() {
        return Err(IllegalTurn::new(
            IllegalKind::GameOver,
            format!("the game is over: {} has no legal turn", position.turn),
        ));
    }
    let (legal, banned): (Vec<Turn>, Vec<Turn>) = all
        .iter()
        .partition(|turn| !forbidden.forbids(position, turn));
    if legal.is_empty() {
        return Err(IllegalTurn::new(
            IllegalKind::GameOver,
            format!(
                "the game is over: every turn of {} would make a position occur {} times",
                position.turn,
                forbidden.limit()
            ),
        ));
    }
    match candidates(position, notation, &legal)[..] {
        [] => {}
        [turn] => return check_claims(position, notation, turn),
        ref several => return Err(ambiguity(position, notation, several, &legal)),
    }
    // Nothing allowed fits: a turn the history forbids may.
    if let [turn, ..] = candidates(position, notation, &banned)[..] {
        return Err(forbidden.refusal(&write_among(position, turn, &all)));
    }
    Err(explain(position, notation, &legal))
}

/// The turns of `legal` that a token fits.
fn candidates<'a>(position: &Chesica, notation: &Notation, legal: &'a [Turn]) -> Vec<&'a Turn> {
    let origin = notation.origin();
    let fits_piece = |turn: &Turn| {
        let piece = position.board[turn.from().index()].expect("a legal turn moves a piece");
        notation.role.is_none_or(|role| role == piece.role)
            && notation
                .from_file
                .is_none_or(|file| file == turn.from().file())
            && notation
                .from_rank
                .is_none_or(|rank| rank == turn.from().rank())
    };
    let exact: Vec<&'a Turn> = legal
        .iter()
        .filter(|turn| {
            fits_piece(turn)
                && turn.landings() == notation.landings()
                && (turn.kind() != TurnKind::Jump || origin.is_some())
        })
        .collect();
    if exact.is_empty() && notation.len == 1 && origin.is_some() {
        legal
            .iter()
            .filter(|turn| {
                turn.kind() == TurnKind::Jump
                    && fits_piece(turn)
                    && turn.to() == notation.landings[0]
            })
            .collect()
    } else {
        exact
    }
}

/// Why a token that fits several turns is refused: a claim none of them bears out (`x`
/// onto an empty square, `+` without a promotion), or the ambiguity itself.
fn ambiguity(
    position: &Chesica,
    notation: &Notation,
    several: &[&Turn],
    legal: &[Turn],
) -> IllegalTurn {
    let mut written: Vec<String> = several
        .iter()
        .map(|turn| write_among(position, turn, legal))
        .collect();
    written.sort();
    if notation.capture && several.iter().all(|turn| !turn.is_capture()) {
        return IllegalTurn::new(
            IllegalKind::Other,
            format!(
                "no capture on {} ({} is a move)",
                several[0].to(),
                alternatives(&written)
            ),
        );
    }
    if notation.promotion && several.iter().all(|turn| !turn.promotes()) {
        return IllegalTurn::new(
            IllegalKind::Other,
            format!("{} does not promote", alternatives(&written)),
        );
    }
    let message = if several[0].kind() == TurnKind::Jump {
        format!(
            "ambiguous: {} (write every landing square)",
            alternatives(&written)
        )
    } else {
        format!("ambiguous: {}", alternatives(&written))
    };
    IllegalTurn::new(IllegalKind::Ambiguous(written), message)
}

/// `a`, `a or b`, `a, b or c`.
fn alternatives(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The claims a token makes beyond its squares: `x` needs a capture, `+` a promotion.
fn check_claims(position: &Chesica, notation: &Notation, turn: &Turn) -> Result<Turn, IllegalTurn> {
    if notation.capture && !turn.is_capture() {
        return Err(IllegalTurn::new(
            IllegalKind::Other,
            format!(
                "no capture on {} ({} is a move)",
                turn.to(),
                write(position, turn)
            ),
        ));
    }
    if notation.promotion && !turn.promotes() {
        return Err(IllegalTurn::new(
            IllegalKind::Other,
            format!("{} does not promote", write(position, turn)),
        ));
    }
    Ok(*turn)
}

/// Why no legal turn fits the token, as precisely as the token allows.
fn explain(position: &Chesica, notation: &Notation, legal: &[Turn]) -> IllegalTurn {
    let side = position.turn;
    let must_jump = legal[0].kind() == TurnKind::Jump;
    let all_jumps = || {
        let mut written: Vec<String> = legal.iter().map(|turn| write(position, turn)).collect();
        written.sort();
        written.join(", ")
    };
    if let Some(from) = notation.origin() {
        let Some(piece) = position.board[from.index()] else {
            return IllegalTurn::new(IllegalKind::NoSuchPiece, format!("no piece on {from}"));
        };
        if piece.color != side {
            return IllegalTurn::new(
                IllegalKind::NoSuchPiece,
                format!("{from} holds a {piece}, not a {} piece", name(side)),
            );
        }
        if let Some(role) = notation.role.filter(|role| *role != piece.role) {
            return IllegalTurn::new(
                IllegalKind::NoSuchPiece,
                format!("{from} holds a {piece}, not a {}", role.name()),
            );
        }
        let own: Vec<&Turn> = legal.iter().filter(|turn| turn.from() == from).collect();
        // A written path that stops where the chain must go on.
        let continuations: Vec<String> = own
            .iter()
            .filter(|turn| {
                turn.kind() == TurnKind::Jump
                    && turn.landings().len() > notation.landings().len()
                    && turn.landings().starts_with(notation.landings())
            })
            .map(|turn| write(position, turn))
            .collect();
        if !continuations.is_empty() {
            let last = notation.landings()[notation.landings().len() - 1];
            return IllegalTurn::new(
                IllegalKind::Other,
                format!(
                    "the multi-jump must continue from {last}: {}",
                    alternatives(&continuations)
                ),
            );
        }
        // A single square without `x` while no jump is on is read as a step or slide.
        let as_move = !must_jump && notation.landings().len() == 1 && !notation.capture;
        if !as_move && let Some(reason) = path_problem(position, from, piece, notation.landings()) {
            return IllegalTurn::new(IllegalKind::Other, reason);
        }
        if must_jump {
            return IllegalTurn::new(
                IllegalKind::Other,
                format!("a jump is compulsory: {}", all_jumps()),
            );
        }
        if notation.landings().len() > 1 {
            return IllegalTurn::new(
                IllegalKind::Other,
                format!("the {piece} on {from} has no jump here"),
            );
        }
        return move_problem(position, from, piece, notation.landings()[0]);
    }
    if must_jump {
        return IllegalTurn::new(
            IllegalKind::Other,
            format!("a jump is compulsory: {}", all_jumps()),
        );
    }
    let to = notation.landings()[0];
    let role = notation
        .role
        .expect("the grammar: a letter or a whole origin");
    // When only one piece fits the letter and origin, say what stops that piece.
    let mut fitting = position.own_squares().filter(|square| {
        position.board[square.index()].is_some_and(|piece| piece.role == role)
            && notation.from_file.is_none_or(|file| file == square.file())
            && notation.from_rank.is_none_or(|rank| rank == square.rank())
    });
    if let (Some(from), None) = (fitting.next(), fitting.next()) {
        let piece = position.board[from.index()].expect("an own square holds a piece");
        return move_problem(position, from, piece, to);
    }
    let mut what = format!("{} {}", name(side), role.name());
    if let Some(file) = notation.from_file {
        what.push_str(&format!(" on the {}-file", char::from(b'a' + file)));
    }
    if let Some(rank) = notation.from_rank {
        what.push_str(&format!(" on rank {}", rank + 1));
    }
    IllegalTurn::new(
        IllegalKind::NoSuchPiece,
        format!("no {what} can move to {to}"),
    )
}

fn name(color: crate::games::Color) -> &'static str {
    match color {
        crate::games::Color::White => "white",
        crate::games::Color::Black => "black",
    }
}

/// The first thing wrong with a written jump path of the piece on `from`, or `None` when
/// the first hop is not a two-square diagonal (then the token is not a jump at all) or
/// nothing is wrong.
fn path_problem(
    position: &Chesica,
    from: Square,
    piece: Piece,
    landings: &[Square],
) -> Option<String> {
    let mut board = position.board;
    board[from.index()] = None;
    let mut at = from;
    for (index, &land) in landings.iter().enumerate() {
        let df = land.file() as i8 - at.file() as i8;
        let dr = land.rank() as i8 - at.rank() as i8;
        if df.abs() != 2 || dr.abs() != 2 {
            if index == 0 {
                return None;
            }
            return Some(format!("{at} to {land} is not a jump"));
        }
        let direction = (df / 2, dr / 2);
        if !checker_directions(piece).contains(&direction) {
            return Some(format!(
                "an unpromoted {} cannot jump backwards ({at} to {land})",
                piece.role.name()
            ));
        }
        let over = midpoint(at, land);
        match board[over.index()] {
            None => return Some(format!("there is no piece on {over} to jump over")),
            Some(other) if other.color == piece.color => {
                return Some(format!("cannot jump over the own {other} on {over}"));
            }
            Some(_) => {}
        }
        if let Some(other) = board[land.index()] {
            return Some(format!("cannot land on {land}: it holds a {other}"));
        }
        debug_assert!(jump_target(&board, piece, at, direction).is_some());
        board[over.index()] = None;
        at = land;
        if !piece.promoted
            && land.rank() == Piece::promotion_rank(piece.color)
            && index + 1 < landings.len()
        {
            return Some(format!("the turn ends with the promotion on {land}"));
        }
    }
    None
}

/// Why the piece on `from` cannot step, slide or capture to `to` (no piece can jump).
fn move_problem(position: &Chesica, from: Square, piece: Piece, to: Square) -> IllegalTurn {
    if let Some(other) = position.board[to.index()]
        && other.color == piece.color
    {
        return IllegalTurn::new(
            IllegalKind::Blocked,
            format!("{to} is occupied by a {other}"),
        );
    }
    // A slide that would reach the square on an empty board is blocked.
    let mut empty = Chesica {
        board: [None; 64],
        ..position.clone()
    };
    empty.board[from.index()] = Some(piece);
    if empty.for_each_move(from, piece, |target, _| target == to) {
        let df = (to.file() as i8 - from.file() as i8).signum();
        let dr = (to.rank() as i8 - from.rank() as i8).signum();
        let mut at = from;
        while let Some(next) = super::board::step(at, df, dr) {
            if next == to {
                break;
            }
            if let Some(other) = position.board[next.index()] {
                return IllegalTurn::new(
                    IllegalKind::Blocked,
                    format!("the {piece} on {from} is blocked by the {other} on {next}"),
                );
            }
            at = next;
        }
        if position.board[to.index()].is_some() {
            return IllegalTurn::new(
                IllegalKind::Other,
                format!("the {piece} on {from} cannot capture on {to}"),
            );
        }
    }
    IllegalTurn::new(
        IllegalKind::NoSuchPiece,
        format!("the {piece} on {from} cannot move to {to}"),
    )
}
