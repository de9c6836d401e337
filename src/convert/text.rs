//! Move lists typed into posts and mails: the reader (there is no writer; pbem's own
//! notation is the typed form pbem writes). The forms read are listed in
//! `notation/convert.md`.

use crate::convert::{Foreign, ForeignTurn, Locator, TurnBody};
use crate::games::GameResult;

/// Figurines and the letters they stand for (a pawn's figurine stands for nothing).
const FIGURINES: [(char, &str); 12] = [
    ('♔', "K"),
    ('♕', "Q"),
    ('♖', "R"),
    ('♗', "B"),
    ('♘', "N"),
    ('♙', ""),
    ('♚', "K"),
    ('♛', "Q"),
    ('♜', "R"),
    ('♝', "B"),
    ('♞', "N"),
    ('♟', ""),
];

/// Evaluation signs people write between moves.
const EVALUATIONS: [&str; 14] = [
    "+-", "-+", "+=", "=+", "±", "∓", "⩲", "⩱", "=", "∞", "+/-", "-/+", "+/=", "=/+",
];

/// The text with everything in brackets (`{}`, `()`, `[]`) and the quote markers of
/// mail (`>` at the start of a line) blanked out, so that offsets stay the same.
fn blank_asides(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth: Vec<char> = Vec::new();
    let mut line_start = true;
    for c in text.chars() {
        let closing = match c {
            '{' => Some('}'),
            '(' => Some(')'),
            '[' => Some(']'),
            _ => None,
        };
        let blank = if let Some(closing) = closing {
            depth.push(closing);
            true
        } else if depth.last() == Some(&c) {
            depth.pop();
            true
        } else if !depth.is_empty() {
            c != '\n'
        } else {
            line_start && c == '>'
        };
        if c == '\n' {
            line_start = true;
        } else if !c.is_whitespace() && c != '>' {
            line_start = false;
        }
        if blank {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// A word without its move number (`12.`, `12...`, `12)`, `12.e4`), or `None` when it
/// is only a number.
fn without_number(word: &str) -> Option<&str> {
    let digits = word
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(word.len());
    if digits == 0 {
        return Some(word);
    }
    let rest = &word[digits..];
    if rest.is_empty() {
        return None;
    }
    let marks = rest.len() - rest.trim_start_matches(['.', ')', '…']).len();
    if marks == 0 {
        return Some(word);
    }
    let rest = &rest[marks..];
    (!rest.is_empty()).then_some(rest)
}

/// The move a typed word means in pbem's notation: figurines as letters, `0-0` as
/// `O-O`, annotation marks (`!`, `?`) and `e.p.` left out.
#[must_use]
pub fn normalize(word: &str) -> String {
    let mut token = String::with_capacity(word.len());
    for c in word.chars() {
        match FIGURINES.iter().find(|(figurine, _)| *figurine == c) {
            Some((_, letter)) => token.push_str(letter),
            None => token.push(c),
        }
    }
    let token = token.trim_end_matches(['!', '?']).replace("e.p.", "");
    match token.as_str() {
        "0-0" => "O-O".to_owned(),
        "0-0-0" => "O-O-O".to_owned(),
        _ => token
            .replacen("0-0-0", "O-O-O", 1)
            .replacen("0-0", "O-O", 1),
    }
}

/// The words of a text, each with the separators after it: spaces, semicolons, and
/// commas followed by a space or the end. A comma glued to what follows stays in the
/// word, so that a two-move turn (Chesscala's `Qa6xPa4,a4`) is one word.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut chars = rest.char_indices().peekable();
        let mut end = rest.len();
        while let Some((at, c)) = chars.next() {
            let glued = c == ',' && chars.peek().is_some_and(|&(_, next)| !next.is_whitespace());
            if c.is_whitespace() || c == ';' || (c == ',' && !glued) {
                end = at + c.len_utf8();
                break;
            }
        }
        let (word, after) = rest.split_at(end);
        rest = after;
        Some(word)
    })
}

/// Reads a typed move list: words separated by spaces, commas, semicolons or new lines;
/// move numbers, evaluation signs, annotation glyphs, text in brackets and words that
/// name no square (prose) are left out; a result is kept.
#[must_use]
pub fn read(text: &str) -> Foreign {
    let locator = Locator::new(text);
    let cleaned = blank_asides(text);
    let mut foreign = Foreign::default();
    let mut at = 0;
    for word in words(&cleaned) {
        let start = at;
        at += word.len();
        let word = word.trim_end_matches(|c: char| c.is_whitespace() || c == ',' || c == ';');
        if word.is_empty() {
            continue;
        }
        let result = match word {
            "½-½" => Some(GameResult::Draw),
            _ => GameResult::from_token(word),
        };
        if let Some(result) = result {
            foreign.result = Some(result);
            continue;
        }
        let Some(word) = without_number(word) else {
            continue;
        };
        if EVALUATIONS.contains(&word)
            || word.starts_with('$')
            || word.chars().all(|c| matches!(c, '!' | '?'))
            || word == "e.p."
            || word == "ep"
        {
            continue;
        }
        let token = normalize(word);
        // Every move names a square (a digit) or castles; other words are prose.
        let castles = token.trim_end_matches(['+', '#']).starts_with("O-O");
        if !castles && !token.contains(|c: char| c.is_ascii_digit()) {
            continue;
        }
        // Where the word starts, after its move number.
        let offset = start + cleaned[start..].find(word).unwrap_or(0);
        foreign.turns.push(ForeignTurn {
            span: locator.span(offset),
            written: word.to_owned(),
            body: TurnBody::Token(token),
            hint: None,
            may_continue: false,
        });
    }
    foreign
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        read(text)
            .turns
            .into_iter()
            .map(|turn| match turn.body {
                TurnBody::Token(token) => token,
                other => unreachable!("the text reader gives tokens, not {other:?}"),
            })
            .collect()
    }

    #[test]
    fn numbers_annotations_and_asides_go() {
        assert_eq!(
            tokens("Our game: 1.e4 e5, 2) ♘f3!? {a comment} (2. Bc4) 2... Nc6 +- 3. 0-0 1-0"),
            vec!["e4", "e5", "Nf3", "Nc6", "O-O"]
        );
        assert_eq!(
            tokens("> 1. e2-e4 e7-e5\n> 2. g1f3"),
            vec!["e2-e4", "e7-e5", "g1f3"]
        );
        assert_eq!(read("1. e4 1/2-1/2").result, Some(GameResult::Draw));
        assert_eq!(
            tokens("1. e4, e5,\n2. Qa6xPa4,a4; b2,Kf1-e1,"),
            vec!["e4", "e5", "Qa6xPa4,a4", "b2,Kf1-e1"]
        );
        // A blanked aside of several-byte characters keeps the offsets right.
        let foreign = read("{é♘} 1.e4");
        assert_eq!(foreign.turns.len(), 1);
        assert_eq!(foreign.turns[0].span.column, 8);
    }
}
