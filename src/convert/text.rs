//! Move lists typed into posts and mails: the reader (there is no writer; pbem's own
//! notation is the typed form pbem writes). The forms read are listed in
//! `notation/convert.md`.

use crate::convert::{Foreign, ForeignTurn, Locator, TurnBody};
use crate::games::GameResult;
use crate::notation::Span;

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

/// Brackets nested deeper than this are counted, not kept: a text of nothing but opening
/// brackets keeps flat memory.
const MAX_NESTING: usize = 64;

/// Where blanking stands between two pieces of a text: the brackets open, and whether
/// only blanks were seen since the start of the line.
#[derive(Clone, Debug)]
struct Asides {
    /// The closing brackets awaited, innermost last, the first [`MAX_NESTING`] of them.
    depth: Vec<char>,
    /// How many brackets are open beyond those: any closing bracket closes one of them
    /// (everything inside is blanked anyway, whatever its kind).
    deeper: u64,
    line_start: bool,
}

impl Default for Asides {
    fn default() -> Asides {
        Asides {
            depth: Vec::new(),
            deeper: 0,
            line_start: true,
        }
    }
}

impl Asides {
    /// The text with everything in brackets (`{}`, `()`, `[]`) and the quote markers of
    /// mail (`>` at the start of a line) blanked out, so that offsets stay the same; a
    /// bracket left open blanks the next piece on.
    fn blank(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            let closing = match c {
                '{' => Some('}'),
                '(' => Some(')'),
                '[' => Some(']'),
                _ => None,
            };
            let blank = if let Some(closing) = closing {
                if self.depth.len() < MAX_NESTING {
                    self.depth.push(closing);
                } else {
                    self.deeper = self.deeper.saturating_add(1);
                }
                true
            } else if self.deeper > 0 && matches!(c, '}' | ')' | ']') {
                self.deeper -= 1;
                true
            } else if self.depth.last() == Some(&c) {
                self.depth.pop();
                true
            } else if !self.depth.is_empty() {
                c != '\n'
            } else {
                self.line_start && c == '>'
            };
            if c == '\n' {
                self.line_start = true;
            } else if !c.is_whitespace() && c != '>' {
                self.line_start = false;
            }
            if blank {
                out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            } else {
                out.push(c);
            }
        }
        out
    }
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
/// name no square (prose) are left out; a result is kept. The whole list is read; a
/// converter that may stop early reads a stream with [`Stream`] instead.
#[must_use]
pub fn read(text: &str) -> Foreign {
    let mut stream = Stream::new(text.as_bytes(), None);
    let turns = stream.by_ref().collect();
    Foreign {
        turns,
        result: stream.result,
        ..Foreign::default()
    }
}

/// The bytes read at a time; a piece ends at the last ASCII blank read.
const PIECE: usize = 1 << 16;

/// A word longer than this is cut (it is not a move).
const MAX_WORD: usize = 1 << 20;

/// The text kept for showing findings: the last this many bytes read, at least.
const WINDOW: usize = 1 << 20;

/// A typed move list read from a stream, one turn at a time, in flat memory: a piece of
/// text (up to the last blank of 64 KiB) is read when its turns are needed, so a
/// converter that stops at the end of the game or at a turn it cannot match reads no
/// further. Text that is not UTF-8 is read in the fallback encoding, piece by piece. The
/// last megabyte or so of text is kept ([`Stream::source`]) to show findings.
#[derive(Debug)]
pub struct Stream<R> {
    inner: R,
    fallback: Option<&'static encoding_rs::Encoding>,
    asides: Asides,
    /// Bytes read and not yet made into text (after the last blank).
    carry: Vec<u8>,
    /// Where the next piece starts.
    next: Span,
    /// Turns read and not yet taken.
    pending: std::collections::VecDeque<ForeignTurn>,
    /// The last result word read.
    result: Option<GameResult>,
    /// How many turns were read.
    turns: usize,
    /// The text kept to show findings, and where it starts.
    window: String,
    window_start: Span,
    /// Some text was not UTF-8 and was read in the fallback encoding.
    decoded: bool,
    /// The read error that ended the stream, if any.
    error: Option<std::io::Error>,
    finished: bool,
}

impl<R: std::io::BufRead> Stream<R> {
    /// A typed move list read from `inner`; text that is not UTF-8 is read in `fallback`
    /// (or with replacement characters when `None`).
    pub fn new(inner: R, fallback: Option<&'static encoding_rs::Encoding>) -> Stream<R> {
        Stream {
            inner,
            fallback,
            asides: Asides::default(),
            carry: Vec::new(),
            next: Span::START,
            pending: std::collections::VecDeque::new(),
            result: None,
            turns: 0,
            window: String::new(),
            window_start: Span::START,
            decoded: false,
            error: None,
            finished: false,
        }
    }

    /// The result the list gives (its last result word), as far as it was read.
    #[must_use]
    pub fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// How many turns were read so far.
    #[must_use]
    pub fn turns_read(&self) -> usize {
        self.turns
    }

    /// Whether some text was not UTF-8 and was read in the fallback encoding.
    #[must_use]
    pub fn decoded(&self) -> bool {
        self.decoded
    }

    /// The read error that ended the stream, if any.
    pub fn take_error(&mut self) -> Option<std::io::Error> {
        self.error.take()
    }

    /// The text kept to show findings (the last part read), and where it starts.
    #[must_use]
    pub fn source(&self) -> (&str, Span) {
        (&self.window, self.window_start)
    }

    /// Reads the next piece of text and its turns.
    fn read_piece(&mut self) {
        loop {
            let available = match self.inner.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    self.error = Some(error);
                    self.finished = true;
                    break;
                }
            };
            if available.is_empty() {
                self.finished = true;
                break;
            }
            let take = available.len().min(PIECE);
            self.carry.extend_from_slice(&available[..take]);
            self.inner.consume(take);
            if self.carry.len() >= PIECE
                && (self
                    .carry
                    .iter()
                    .rposition(u8::is_ascii_whitespace)
                    .is_some()
                    || self.carry.len() >= MAX_WORD)
            {
                break;
            }
        }
        let cut = if self.finished {
            self.carry.len()
        } else {
            match self.carry.iter().rposition(u8::is_ascii_whitespace) {
                Some(at) => at + 1,
                None => {
                    // A word of MAX_WORD bytes: cut before its last character, which may
                    // not be whole yet.
                    let mut at = self.carry.len() - 1;
                    while at > 0 && self.carry[at] & 0xC0 == 0x80 {
                        at -= 1;
                    }
                    if at == 0 { self.carry.len() } else { at }
                }
            }
        };
        let rest = self.carry.split_off(cut);
        let bytes = std::mem::replace(&mut self.carry, rest);
        let text = match (String::from_utf8(bytes), self.fallback) {
            (Ok(text), _) => text,
            (Err(error), Some(encoding)) => {
                self.decoded = true;
                encoding
                    .decode_without_bom_handling(error.as_bytes())
                    .0
                    .into_owned()
            }
            (Err(error), None) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
        };
        self.read_turns(&text);
    }

    /// Reads the turns of a piece of text that starts at `self.next`.
    fn read_turns(&mut self, text: &str) {
        let start = self.next;
        let locator = Locator::new(text);
        let absolute = |span: Span| Span {
            offset: start.offset + span.offset,
            line: start.line + span.line - 1,
            column: if span.line == 1 {
                start.column + span.column - 1
            } else {
                span.column
            },
        };
        let cleaned = self.asides.blank(text);
        let mut at = 0;
        for word in words(&cleaned) {
            let begin = at;
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
                self.result = Some(result);
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
            let offset = begin + cleaned[begin..].find(word).unwrap_or(0);
            self.turns += 1;
            self.pending.push_back(ForeignTurn {
                span: absolute(locator.span(offset)),
                written: word.to_owned(),
                body: TurnBody::Token(token),
                hint: None,
                may_continue: false,
            });
        }
        self.next = absolute(locator.span(text.len()));
        // The window keeps the last WINDOW bytes or more, cut at a line's start when one
        // is near, else where the locator says.
        if self.window.len() > WINDOW {
            let drop = self.window.len() - WINDOW / 2;
            let mut cut = drop;
            while !self.window.is_char_boundary(cut) {
                cut += 1;
            }
            let dropped = Locator::new(&self.window).span(cut);
            let base = self.window_start;
            self.window_start = Span {
                offset: base.offset + cut,
                line: base.line + dropped.line - 1,
                column: if dropped.line == 1 {
                    base.column + dropped.column - 1
                } else {
                    dropped.column
                },
            };
            self.window.drain(..cut);
        }
        self.window.push_str(text);
    }
}

impl<R: std::io::BufRead> Iterator for Stream<R> {
    type Item = ForeignTurn;

    fn next(&mut self) -> Option<ForeignTurn> {
        while self.pending.is_empty() && !self.finished {
            self.read_piece();
        }
        self.pending.pop_front()
    }
}

impl<R: std::io::BufRead> crate::convert::Turns for Stream<R> {
    fn result(&self) -> Option<GameResult> {
        self.result
    }
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

    #[test]
    fn a_stream_read_in_pieces_places_every_turn() {
        // Several pieces, with a comment open across a piece's end and squares in it.
        let mut text = String::new();
        for number in 1..=6_000 {
            text.push_str(&format!(
                "{number}. e4 é5 {{a1 (b2)}} Nf3; {number}... Nc6,\n"
            ));
            if number == 2_500 {
                text.push_str(&format!("{{{}}} ", "a1 ".repeat(40_000)));
            }
        }
        text.push_str("1-0\n");
        assert!(text.len() > 3 * PIECE);
        let foreign = read(&text);
        assert_eq!(foreign.turns.len(), 6_000 * 4);
        assert_eq!(foreign.result, Some(GameResult::WhiteWins));
        for turn in &foreign.turns {
            let at = turn.span.offset;
            assert!(text[at..].starts_with(&turn.written), "{turn:?}");
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let column = before[before.rfind('\n').map_or(0, |at| at + 1)..]
                .chars()
                .count()
                + 1;
            assert_eq!(
                (turn.span.line, turn.span.column),
                (u32::try_from(line).unwrap(), u32::try_from(column).unwrap())
            );
        }
        // Read from a stream, only what the turns taken need is read, and the last part
        // read is kept to show findings.
        let mut stream = Stream::new(text.as_bytes(), None);
        assert_eq!(stream.by_ref().take(3).count(), 3);
        let (kept, start) = stream.source();
        assert_eq!(start.offset, 0);
        assert!(kept.len() <= PIECE);
        assert_eq!(stream.by_ref().count(), 6_000 * 4 - 3);
        let (kept, start) = stream.source();
        assert!(kept.len() <= WINDOW + PIECE);
        assert_eq!(&text[start.offset..], kept);
    }

    #[test]
    fn brackets_nested_deeper_than_the_limit_are_counted() {
        // A million brackets never closed: the stack stays at the limit, and the text
        // after them is blanked.
        let mut asides = Asides::default();
        let open = "({[".repeat(1_000_000 / 3);
        asides.blank(&open);
        assert_eq!(asides.depth.len(), MAX_NESTING);
        assert_eq!(asides.deeper, (open.len() - MAX_NESTING) as u64);
        assert_eq!(asides.blank("1. e4"), "     ");
        // Closing them all, of any kind beyond the limit, comes back out.
        let close = ")".repeat(open.len() - MAX_NESTING);
        assert_eq!(asides.blank(&close).trim(), "");
        let kept: String = asides.depth.iter().rev().collect();
        asides.blank(&kept);
        assert!(asides.depth.is_empty() && asides.deeper == 0);
        assert_eq!(asides.blank("1. e4"), "1. e4");
        // Within the limit, a closing bracket of another kind stays inside.
        assert_eq!(tokens("( { ) e5 } ) d4"), vec!["d4"]);
    }

    #[test]
    fn a_stream_not_utf8_is_read_in_the_fallback() {
        let bytes = b"1. e4 e5 {caf\xe9} 2. Nf3 *";
        let mut stream = Stream::new(&bytes[..], Some(encoding_rs::WINDOWS_1252));
        assert_eq!(stream.by_ref().count(), 3);
        assert!(stream.decoded());
        assert!(stream.source().0.contains("café"));
        assert_eq!(stream.result(), Some(GameResult::Unknown));
    }
}
