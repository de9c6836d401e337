//! Game Courier move lists: the reader and the writer. The forms read are listed in
//! `notation/convert.md`.

use std::fmt::Write as _;

use crate::convert::ops::Op;
use crate::convert::zillions::is_place;
use crate::convert::{
    Exported, Foreign, ForeignTurn, Locator, TurnBody, finding, read_pbem_comment,
};
use crate::games::{Color, GameResult};
use crate::replay::FindingKind;

/// Whether a line looks like Game Courier's rather than typed algebraic: a labelled move
/// (`P e2-e4`), a drop (`Q*e8`), a removal (`@-e4`) or a `//` comment.
#[must_use]
pub fn looks_like(line: &str) -> bool {
    let body = strip_number(line).map_or(line, |(_, _, rest)| rest).trim();
    if body.starts_with("//") || body.contains("@-") || body.contains("@*") {
        return true;
    }
    body.split(';').any(|part| {
        let part = part.trim();
        let drop = part
            .split_once('*')
            .is_some_and(|(label, place)| !label.is_empty() && is_place(place.trim()));
        let labelled = part.split_once(' ').is_some_and(|(label, rest)| {
            label.starts_with(|c: char| c.is_alphabetic() || c == '+')
                && !is_place(label)
                && rest
                    .trim()
                    .split_once('-')
                    .is_some_and(|(from, _)| is_place(from))
        });
        drop || labelled
    })
}

/// A move number at the start of a text: `12.` (White) or `12...` (Black), with the
/// byte length it takes and the rest.
fn strip_number(text: &str) -> Option<(u32, Option<Color>, &str)> {
    let digits = text.find(|c: char| !c.is_ascii_digit())?;
    if digits == 0 {
        return None;
    }
    let number = text[..digits].parse().ok()?;
    let rest = &text[digits..];
    if let Some(rest) = rest.strip_prefix("...").or_else(|| rest.strip_prefix('…')) {
        return Some((number, Some(Color::Black), rest));
    }
    let rest = rest.strip_prefix('.')?;
    Some((number, Some(Color::White), rest))
}

/// Reads one part of a turn:
///
/// ```text
/// part = [label] place "-" place      ; a move: "P e2-e4", "e2-e4"
///      | [label] place "-"            ; a removal: "e4-"
///      | "@" ("-" | "*") place        ; a removal: "@-e4", "@*e4"
///      | label ("*" | "-") place      ; a drop: "Q*e8", "q-e1"
///      | "capture" place {place}      ; removals
///      | "pass"
/// ```
fn parse_part(part: &str) -> Result<Vec<Op>, String> {
    let part = part.trim();
    if part.is_empty() || part.eq_ignore_ascii_case("pass") {
        return Ok(Vec::new());
    }
    if let Some(places) = part.strip_prefix("capture ") {
        return places
            .split_whitespace()
            .map(|at| {
                if is_place(at) {
                    Ok(Op::Remove { at: at.to_owned() })
                } else {
                    Err(format!("{at} is not a place"))
                }
            })
            .collect();
    }
    let (label, body) = match part.split_once(' ') {
        Some((label, body)) => (Some(label), body.trim()),
        None => (None, part),
    };
    if let Some((left, right)) = body.split_once(['-', '*']) {
        let (left, right) = (left.trim(), right.trim());
        let dropped = body.contains('*');
        if is_place(left) && !dropped {
            if right.is_empty() {
                return Ok(vec![Op::Remove {
                    at: left.to_owned(),
                }]);
            }
            if is_place(right) {
                return Ok(vec![Op::Move {
                    piece: label.map(str::to_owned),
                    from: left.to_owned(),
                    to: right.to_owned(),
                    capture: false,
                }]);
            }
        }
        if label.is_none() && !left.is_empty() && is_place(right) {
            if left == "@" {
                return Ok(vec![Op::Remove {
                    at: right.to_owned(),
                }]);
            }
            return Ok(vec![Op::Drop {
                color: None,
                piece: left.to_owned(),
                at: right.to_owned(),
            }]);
        }
    }
    Err(format!(
        "cannot read \"{part}\" as a move, a drop or a removal"
    ))
}

/// Reads a move list. A move number starts a turn; without numbers, each line is a
/// turn. Parts of one turn are separated by `;`; `//` starts a comment.
#[must_use]
pub fn read(text: &str) -> Foreign {
    let locator = Locator::new(text);
    let mut foreign = Foreign::default();
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_offset = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let (code, comment) = match line.find("//") {
            Some(at) => (&line[..at], Some((&line[at + 2..], at))),
            None => (line, None),
        };
        let mut rest = code;
        let mut at = 0;
        loop {
            let lead = rest.len() - rest.trim_start().len();
            at += lead;
            rest = rest.trim_start();
            if rest.is_empty() {
                break;
            }
            if let Some(result) = ["1-0", "0-1", "1/2-1/2", "*"]
                .into_iter()
                .find(|token| rest.trim_end() == *token)
            {
                foreign.result = GameResult::from_token(result);
                break;
            }
            let start = at;
            if let Some((_, _, after)) = strip_number(rest) {
                at += rest.len() - after.len();
                rest = after;
            }
            let lead = rest.len() - rest.trim_start().len();
            let body_start = at + lead;
            let body_end = next_number(rest).unwrap_or(rest.len());
            let body = rest[..body_end].trim();
            let span = locator.span(line_offset + body_start.max(start));
            let mut ops = Vec::new();
            let mut failed = None;
            for part in body.split(';') {
                match parse_part(part) {
                    Ok(more) => ops.extend(more),
                    Err(reason) => failed = Some(reason),
                }
            }
            if let Some(reason) = &failed {
                foreign.findings.push(finding(
                    FindingKind::Parse,
                    format!("cannot read the turn {body}: {reason}"),
                    span,
                ));
            }
            if !body.is_empty() {
                foreign.turns.push(ForeignTurn {
                    span,
                    written: body.to_owned(),
                    body: match failed {
                        Some(_) => TurnBody::Unreadable,
                        None => TurnBody::Ops(ops),
                    },
                    hint: None,
                    may_continue: false,
                });
            }
            at += body_end;
            rest = &rest[body_end..];
        }
        if let Some((comment, at)) = comment {
            read_pbem_comment(comment, &mut foreign, locator.span(line_offset + at));
        }
    }
    foreign
}

/// Where the next move number starts in a turn's text, if it does.
fn next_number(text: &str) -> Option<usize> {
    text.char_indices()
        .filter(|&(at, c)| {
            c.is_ascii_digit() && (at == 0 || text[..at].ends_with(char::is_whitespace)) && at > 0
        })
        .map(|(at, _)| at)
        .find(|&at| strip_number(&text[at..]).is_some())
}

fn write_op(op: &Op, out: &mut String) {
    match op {
        Op::Move {
            piece, from, to, ..
        } => {
            if let Some(piece) = piece {
                let _ = write!(out, "{piece} ");
            }
            let _ = write!(out, "{from}-{to}");
        }
        Op::Remove { at } => {
            let _ = write!(out, "@-{at}");
        }
        Op::Drop { piece, at, .. } => {
            let _ = write!(out, "{piece}*{at}");
        }
        // The writer derives operations without changes (a change is a drop).
        Op::Change { to, at } => {
            let _ = write!(out, "{to}*{}", at.as_deref().unwrap_or_default());
        }
    }
}

/// Writes a pbem game as a Game Courier move list: pbem comments naming the game, the
/// setup and the result, then one turn per line, `1. P e2-e4` and `1... p e7-e5`.
#[must_use]
pub fn write(game: &Exported) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// pbem game {}", game.variant.name());
    if let Some((position, _)) = &game.setup {
        let _ = writeln!(out, "// pbem setup {position}");
    }
    for turn in &game.turns {
        let dots = match turn.side {
            Color::White => ".",
            Color::Black => "...",
        };
        let _ = write!(out, "{}{dots} ", turn.fullmove);
        if turn.ops.is_empty() {
            out.push_str("pass");
        }
        for (index, op) in turn.ops.iter().enumerate() {
            if index > 0 {
                out.push_str("; ");
            }
            write_op(op, &mut out);
        }
        if let Some(hint) = &turn.hint {
            let _ = write!(out, " // pbem turn {hint}");
        }
        out.push('\n');
    }
    // Always, so that an open result (`*`) stays open where the rules have ended the game.
    let _ = writeln!(out, "// pbem result {}", game.result);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_move_forms_read() {
        let read = |text: &str| parse_part(text).expect("reads");
        assert_eq!(
            read("P e2-e4"),
            vec![Op::Move {
                piece: Some("P".to_owned()),
                from: "e2".to_owned(),
                to: "e4".to_owned(),
                capture: false
            }]
        );
        assert_eq!(
            read("@-e4"),
            vec![Op::Remove {
                at: "e4".to_owned()
            }]
        );
        assert_eq!(
            read("e4-"),
            vec![Op::Remove {
                at: "e4".to_owned()
            }]
        );
        assert_eq!(
            read("q*e1"),
            vec![Op::Drop {
                color: None,
                piece: "q".to_owned(),
                at: "e1".to_owned()
            }]
        );
        assert!(parse_part("P e2~e4").is_err());
        assert!(looks_like("1. P e2-e4"));
        assert!(!looks_like("1. e4 e5 2. Nf3"));
    }
}
