//! Zillions of Games saved games (`.zsg`): the reader and the writer. The forms read are
//! listed in `notation/convert.md`.

use std::fmt::Write as _;

use crate::convert::ops::Op;
use crate::convert::{
    Exported, Foreign, ForeignTurn, Locator, TurnBody, finding, ops::color_named, read_pbem_comment,
};
use crate::replay::FindingKind;

/// The first words of every saved game.
pub const HEADER: &str = "Zillions Save Game File";

/// Whether a word names a place: a lowercase letter and digits (`e4`, `q12`).
pub(crate) fn is_place(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && word.len() > 1
        && chars.all(|c| c.is_ascii_digit())
}

/// Reads the parts of one move line (after its number and any `partial N`):
///
/// ```text
/// part   = move | capture | drop | change
/// move   = words place ("-" | "x") place     ; "Pawn e2 - e4", "Za b2 x b3"
/// capture = "x" place                          ; a side-effect capture
/// drop   = [side] words place                  ; "White Checker b6"
/// change = "=" words ["on" place]              ; "= King", "= Green = Za on g1"
/// ```
pub(crate) fn parse_ops(text: &str) -> Result<Vec<Op>, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut ops = Vec::new();
    let mut pending: Vec<&str> = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let word = words[at];
        let next = words.get(at + 1).copied();
        let after = words.get(at + 2).copied();
        if word == "x" && pending.is_empty() && next.is_some_and(is_place) {
            ops.push(Op::Remove {
                at: next.unwrap_or_default().to_owned(),
            });
            at += 2;
        } else if word == "=" {
            let mut name: Vec<&str> = Vec::new();
            at += 1;
            while let Some(&word) = words.get(at) {
                let followed_by_place = words.get(at + 1).is_some_and(|w| is_place(w));
                if word == "=" || word == "on" || (followed_by_place && !name.is_empty()) {
                    break;
                }
                name.push(word);
                at += 1;
            }
            if name.is_empty() {
                return Err("\"=\" names no piece or side".to_owned());
            }
            let mut place = None;
            if words.get(at) == Some(&"on") {
                match words.get(at + 1) {
                    Some(word) if is_place(word) => place = Some((*word).to_owned()),
                    _ => return Err("\"on\" is not followed by a place".to_owned()),
                }
                at += 2;
            }
            ops.push(Op::Change {
                to: name.join(" "),
                at: place,
            });
        } else if is_place(word) {
            // A move names its piece only; words that start with a side are a drop.
            let names_side = pending.len() > 1 && color_named(pending[0]).is_some();
            if !names_side && matches!(next, Some("-" | "x")) && after.is_some_and(is_place) {
                ops.push(Op::Move {
                    piece: (!pending.is_empty()).then(|| pending.join(" ")),
                    from: word.to_owned(),
                    to: after.unwrap_or_default().to_owned(),
                    capture: next == Some("x"),
                });
                at += 3;
            } else {
                if pending.is_empty() {
                    return Err(format!("{word} is not part of a move, a capture or a drop"));
                }
                let (color, piece) = match pending.split_first() {
                    Some((first, rest)) if !rest.is_empty() => (color_named(first), rest.join(" ")),
                    _ => (None, pending.join(" ")),
                };
                ops.push(Op::Drop {
                    color,
                    piece,
                    at: word.to_owned(),
                });
                at += 1;
            }
            pending.clear();
        } else {
            pending.push(word);
            at += 1;
        }
    }
    match pending.as_slice() {
        [] => Ok(ops),
        ["Pass"] if ops.is_empty() => Ok(ops),
        rest => Err(format!("\"{}\" names no place", rest.join(" "))),
    }
}

/// Reads a saved game. Each numbered line is one turn, except that a `partial` line
/// continues the turn before it when it has the same number and starts where the
/// previous part ended; another `partial` line with the same number may continue it
/// (`ForeignTurn::may_continue`), which matching decides.
#[must_use]
pub fn read(text: &str) -> Foreign {
    let locator = Locator::new(text);
    let mut foreign = Foreign::default();
    let mut offset = 0;
    // The number of the partial line before, and where its last move ended.
    let mut previous_partial: Option<(String, Option<String>)> = None;
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let line_offset = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let lead = line.len() - line.trim_start().len();
        let line = line.trim();
        let span = locator.span(line_offset + lead);
        if line.is_empty() {
            continue;
        }
        if index == 0 || line.starts_with(HEADER) {
            if !line.starts_with(HEADER) {
                foreign.findings.push(finding(
                    FindingKind::Parse,
                    format!("a saved game starts with \"{HEADER}\""),
                    span,
                ));
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix(';') {
            read_pbem_comment(rest, &mut foreign, span);
            continue;
        }
        if let Some((key, value)) = line.split_once('=')
            && !key.contains(' ')
            && !key.is_empty()
            && !key.starts_with(|c: char| c.is_ascii_digit())
        {
            match key {
                "RulesFile" => foreign.rules_file = Some(value.trim().to_owned()),
                "VariantName" => foreign.game = Some(value.trim().to_owned()),
                _ => {}
            }
            continue;
        }
        if let Some(inner) = line.strip_prefix('(').and_then(|l| l.strip_suffix(')')) {
            match parse_ops(inner) {
                Ok(ops) => foreign.edits.extend(ops.into_iter().map(|op| (op, span))),
                Err(reason) => foreign.findings.push(finding(
                    FindingKind::Parse,
                    format!("cannot read the setup edit {line}: {reason}"),
                    span,
                )),
            }
            continue;
        }
        let Some((number, body)) = line
            .split_once(". ")
            .filter(|(number, _)| !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
        else {
            foreign.findings.push(finding(
                FindingKind::Parse,
                format!("cannot read the line {line}: a move line starts with its number"),
                span,
            ));
            continue;
        };
        let mut body = body.trim();
        // A random player's move (`?Dice ...`): its name goes.
        if body.starts_with('?') {
            body = body.split_once(' ').map_or("", |(_, rest)| rest);
        }
        let partial = body
            .strip_prefix("partial ")
            .and_then(|rest| rest.trim_start().split_once(' '))
            .filter(|(count, _)| count.chars().all(|c| c.is_ascii_digit()))
            .map(|(_, rest)| rest);
        let is_partial = partial.is_some();
        let body = partial.unwrap_or(body);
        let ops = match parse_ops(body) {
            Ok(ops) => ops,
            Err(reason) => {
                foreign.findings.push(finding(
                    FindingKind::Parse,
                    format!("cannot read the move {body}: {reason}"),
                    span,
                ));
                foreign.turns.push(ForeignTurn {
                    span,
                    written: format!("{number}. {body}"),
                    body: TurnBody::Unreadable,
                    hint: None,
                    may_continue: false,
                });
                previous_partial = None;
                continue;
            }
        };
        let first_from = ops.iter().find_map(|op| match op {
            Op::Move { from, .. } => Some(from.clone()),
            _ => None,
        });
        let last_to = ops.iter().rev().find_map(|op| match op {
            Op::Move { to, .. } => Some(to.clone()),
            _ => None,
        });
        let same_number = is_partial && previous_partial.as_ref().is_some_and(|(n, _)| n == number);
        let continues = same_number
            && previous_partial
                .as_ref()
                .is_some_and(|(_, end)| end.is_some() && first_from == *end);
        if continues && let Some(turn) = foreign.turns.last_mut() {
            if let TurnBody::Ops(existing) = &mut turn.body {
                existing.extend(ops);
            }
            turn.written.push_str(" / ");
            turn.written.push_str(body);
        } else {
            foreign.turns.push(ForeignTurn {
                span,
                written: format!("{number}. {body}"),
                body: TurnBody::Ops(ops),
                hint: None,
                may_continue: same_number,
            });
        }
        previous_partial = is_partial.then(|| (number.to_owned(), last_to));
    }
    foreign
}

/// Writes one operation as Zillions does.
pub(crate) fn write_op(op: &Op, out: &mut String) {
    match op {
        Op::Move {
            piece,
            from,
            to,
            capture,
        } => {
            if let Some(piece) = piece {
                out.push_str(piece);
                out.push(' ');
            }
            let sign = if *capture { 'x' } else { '-' };
            let _ = write!(out, "{from} {sign} {to}");
        }
        Op::Remove { at } => {
            let _ = write!(out, "x {at}");
        }
        Op::Drop { color, piece, at } => {
            if let Some(color) = color {
                let _ = write!(out, "{color} ");
            }
            let _ = write!(out, "{piece} {at}");
        }
        Op::Change { to, at } => {
            let _ = write!(out, "= {to}");
            if let Some(at) = at {
                let _ = write!(out, " on {at}");
            }
        }
    }
}

/// Writes a pbem game as a saved game: the header (the rules file is named after the
/// game), the setup as edits, one line per turn, and pbem's own `;` lines for what
/// Zillions has no place for.
#[must_use]
pub fn write(game: &Exported) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{HEADER} Version 0.02 HH");
    let _ = writeln!(out, "RulesFile={}.zrf", game.variant.name());
    let _ = writeln!(out, "VariantName={}", game.variant.name());
    if let Some((position, edits)) = &game.setup {
        let _ = writeln!(out, "; pbem setup {position}");
        for edit in edits {
            out.push('(');
            write_op(edit, &mut out);
            out.push_str(")\n");
        }
    }
    for turn in &game.turns {
        let _ = write!(out, "{}. ", turn.fullmove);
        if turn.ops.is_empty() {
            out.push_str("Pass");
        }
        for (index, op) in turn.ops.iter().enumerate() {
            if index > 0 {
                out.push(' ');
            }
            let op = match op {
                // The place makes a change unambiguous before a following drop.
                Op::Change { to, at: None } => Op::Change {
                    to: to.clone(),
                    at: last_place(&turn.ops[..index]),
                },
                other => other.clone(),
            };
            write_op(&op, &mut out);
        }
        out.push('\n');
        if let Some(hint) = &turn.hint {
            let _ = writeln!(out, "; pbem turn {hint}");
        }
    }
    // Always, so that an open result (`*`) stays open where the rules have ended the game.
    let _ = writeln!(out, "; pbem result {}", game.result);
    out
}

fn last_place(ops: &[Op]) -> Option<String> {
    ops.iter().rev().find_map(|op| match op {
        Op::Move { to: at, .. } | Op::Drop { at, .. } => Some(at.clone()),
        Op::Change { at, .. } => at.clone(),
        Op::Remove { .. } => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Color;

    #[test]
    fn the_parts_of_a_line_read() {
        let ops = parse_ops("Za b2 x b3 Za b3 - g1 = Green = Za on g1").expect("reads");
        assert_eq!(ops.len(), 4);
        assert_eq!(
            ops[3],
            Op::Change {
                to: "Za".to_owned(),
                at: Some("g1".to_owned())
            }
        );
        let ops = parse_ops("Checker g4 - g6 x g5").expect("reads");
        assert_eq!(
            ops[1],
            Op::Remove {
                at: "g5".to_owned()
            }
        );
        let ops = parse_ops("White Checker b6").expect("reads");
        assert_eq!(
            ops[0],
            Op::Drop {
                color: Some(Color::White),
                piece: "Checker".to_owned(),
                at: "b6".to_owned()
            }
        );
        assert!(parse_ops("Checker").is_err());
    }
}
