//! The canonical writer: one way to write every record (`notation/export.md`).
//!
//! Reading what the writer wrote gives the same record back, and writing a record that was
//! read gives the same text every time: `write(parse(x))` is a fixed point.

use std::fmt::Write as _;

use super::grammar::collapse_spaces;
use super::record::{Comment, Line, Record, Tag};
use crate::games::{Color, GameResult};

/// The Seven Tag Roster, in the order the export format writes it.
pub const SEVEN_TAG_ROSTER: [&str; 7] =
    ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// Lines of movetext are shorter than this many characters (unless one word is longer).
const LINE_LIMIT: usize = 80;

/// The number and side of the first turn of a record's main line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Numbering {
    /// The full move number of the first turn, from 1.
    pub fullmove: u32,
    /// The side that plays the first turn.
    pub side: Color,
}

impl Default for Numbering {
    /// Move 1, White.
    fn default() -> Numbering {
        Numbering {
            fullmove: 1,
            side: Color::White,
        }
    }
}

impl Numbering {
    /// Reads the numbering leniently from a `[FEN]` tag: its second field (`w` or `b`)
    /// and its sixth (the full move number). Anything missing or unreadable keeps the
    /// default, move 1 for White. For games the caller cannot replay; a game that can be
    /// replayed knows better.
    #[must_use]
    pub fn from_tags(record: &Record) -> Numbering {
        let mut numbering = Numbering::default();
        let Some(fen) = record.tag("FEN") else {
            return numbering;
        };
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if let Some(side) = fields.get(1)
            && side.eq_ignore_ascii_case("b")
        {
            numbering.side = Color::Black;
        }
        if let Some(Ok(fullmove)) = fields.get(5).map(|field| field.parse::<u32>())
            && fullmove >= 1
        {
            numbering.fullmove = fullmove;
        }
        numbering
    }

    /// The numbering of the turn after this one.
    fn next(self) -> Numbering {
        match self.side {
            Color::White => Numbering {
                fullmove: self.fullmove,
                side: Color::Black,
            },
            Color::Black => Numbering {
                fullmove: self.fullmove.saturating_add(1),
                side: Color::White,
            },
        }
    }
}

/// Writes `record` in the canonical export format, appending to `out`.
///
/// The tag section comes first: the Seven Tag Roster tags that are present in their
/// standard order, then the other tags in their order; then a blank line and the movetext,
/// wrapped into lines under 80 characters, ending with the termination marker when the
/// record has one. If `out` already holds text, a blank line is written first, so games
/// written one after another into one string are separated as the format says.
///
/// The record's strings are written as they are: tokens are expected to be what the
/// reader reads as one turn (no white space, no `{}()[];$`), as every record read by the
/// reader is. Line breaks inside a tag value are written as spaces.
///
/// ```
/// use pbem::notation::{Numbering, parse_record, record_to_string};
///
/// let record = parse_record("1.e4 e5 {a\n  comment} 2.Nf3 *").unwrap();
/// assert_eq!(
///     record_to_string(&record, Numbering::default()),
///     "1. e4 e5 {a comment} 2. Nf3 *\n"
/// );
/// ```
pub fn write_record(record: &Record, numbering: Numbering, out: &mut String) {
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    for tag in canonical_order(&record.tags) {
        write_tag(tag, out);
    }
    let has_movetext = !record.moves.comments.is_empty()
        || !record.moves.turns.is_empty()
        || record.result.is_some();
    if !has_movetext {
        return;
    }
    if !record.tags.is_empty() {
        out.push('\n');
    }
    let mut wrapper = Wrapper::new(out);
    write_line(&mut wrapper, &record.moves, numbering);
    if let Some(result) = record.result {
        wrapper.start(true).push_str(result.as_str());
    }
    wrapper.finish();
}

/// [`write_record`] into a new string.
#[must_use]
pub fn record_to_string(record: &Record, numbering: Numbering) -> String {
    let mut out = String::new();
    write_record(record, numbering, &mut out);
    out
}

/// Fills in the Seven Tag Roster: adds each missing roster tag with its "unknown" value
/// (`?`, or `????.??.??` for `Date`), sets a missing termination marker from the `Result`
/// tag (`*` when that is missing or unreadable) and a missing `Result` tag from the
/// marker, and puts the tags in the order the writer writes them.
pub fn complete_roster(record: &mut Record) {
    if record.result.is_none() {
        let result = record
            .tag("Result")
            .and_then(|value| GameResult::from_token(value.trim()))
            .unwrap_or(GameResult::Unknown);
        record.result = Some(result);
    }
    for name in SEVEN_TAG_ROSTER {
        if record.tag(name).is_some() {
            continue;
        }
        let value = match name {
            "Date" => "????.??.??",
            "Result" => record.result.unwrap_or(GameResult::Unknown).as_str(),
            _ => "?",
        };
        record.set_tag(name, value);
    }
    let ordered: Vec<Tag> = canonical_order(&record.tags).cloned().collect();
    record.tags = ordered;
}

/// The tags in the order the writer writes them: the roster first, then the others.
fn canonical_order(tags: &[Tag]) -> impl Iterator<Item = &Tag> {
    let roster = SEVEN_TAG_ROSTER
        .iter()
        .flat_map(move |name| tags.iter().filter(move |tag| tag.name == *name));
    let others = tags
        .iter()
        .filter(|tag| !SEVEN_TAG_ROSTER.contains(&tag.name.as_str()));
    roster.chain(others)
}

fn write_tag(tag: &Tag, out: &mut String) {
    out.push('[');
    out.push_str(&tag.name);
    out.push_str(" \"");
    for c in tag.value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push_str("\"]\n");
}

/// Writes a line (the main line or a variation) whose first turn has `numbering`.
fn write_line(wrapper: &mut Wrapper<'_>, line: &Line, mut numbering: Numbering) {
    for comment in &line.comments {
        write_comment(wrapper, comment);
    }
    let mut number_black = true;
    for turn in &line.turns {
        let breakable = !turn.token.starts_with('%');
        match numbering.side {
            Color::White => {
                let word = wrapper.start(true);
                let _ = write!(word, "{}. {}", numbering.fullmove, turn.token);
            }
            Color::Black if number_black => {
                let word = wrapper.start(true);
                let _ = write!(word, "{}... {}", numbering.fullmove, turn.token);
            }
            Color::Black => wrapper.start(breakable).push_str(&turn.token),
        }
        for nag in &turn.nags {
            let _ = write!(wrapper.start(true), "${}", nag.0);
        }
        for comment in &turn.comments {
            write_comment(wrapper, comment);
        }
        for variation in &turn.variations {
            wrapper.open_parenthesis();
            write_line(wrapper, variation, numbering);
            wrapper.close_parenthesis();
        }
        number_black = !turn.comments.is_empty() || !turn.variations.is_empty();
        numbering = numbering.next();
    }
}

/// Writes a comment in braces, or after `;` to the end of the line when its text holds a
/// `}`.
fn write_comment(wrapper: &mut Wrapper<'_>, comment: &Comment) {
    let text = collapse_spaces(&comment.text);
    if text.contains('}') {
        let word = wrapper.start(true);
        word.push(';');
        if !text.is_empty() {
            word.push(' ');
            word.push_str(&text);
        }
        wrapper.break_after();
        return;
    }
    if text.is_empty() {
        wrapper.start(true).push_str("{}");
        return;
    }
    let mut units = comment_units(&text).peekable();
    let mut first = true;
    while let Some(unit) = units.next() {
        // A comment line never starts with `%` (an escape line elsewhere) or with `[`
        // and a letter (which looks like a tag pair to a reader resynchronising).
        let breakable = first || !(unit.starts_with('%') || starts_like_tag(unit));
        let word = wrapper.start(breakable);
        if first {
            word.push('{');
            first = false;
        }
        word.push_str(unit);
        if units.peek().is_none() {
            word.push('}');
        }
    }
}

/// The pieces a comment may be wrapped between: its words, except that an embedded
/// command (`[%clk 0:01:00]`) stays whole, so that tools looking for commands with a
/// simple pattern still find them.
fn comment_units(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // A word ends at a space outside every command; commands may follow each other
        // (`[%csl Ra1][%cal Ra1a8 Gb2b4]`) or stand inside a word.
        let bytes = rest.as_bytes();
        let mut at = 0;
        let end = loop {
            if at >= bytes.len() {
                break bytes.len();
            }
            if bytes[at..].starts_with(b"[%") {
                match rest[at..].find(']') {
                    Some(close) => at += close + 1,
                    None => break bytes.len(),
                }
                continue;
            }
            if bytes[at] == b' ' {
                break at;
            }
            at += 1;
        };
        let (unit, tail) = rest.split_at(end);
        rest = tail.strip_prefix(' ').unwrap_or(tail);
        Some(unit)
    })
}

fn starts_like_tag(word: &str) -> bool {
    let bytes = word.as_bytes();
    bytes.first() == Some(&b'[') && bytes.get(1).is_some_and(u8::is_ascii_alphabetic)
}

/// Lays words out in lines under [`LINE_LIMIT`] characters. A word is held back until
/// the next one starts, so a `)` can still be glued to it.
struct Wrapper<'o> {
    out: &'o mut String,
    /// Characters on the current output line.
    column: usize,
    /// The word being built.
    word: String,
    /// Whether the word being built may start a new line.
    breakable: bool,
    /// A word is being built.
    pending: bool,
    /// The word being built ends a `;` comment: a newline must follow it.
    break_after: bool,
    /// A newline must come before the next word.
    must_break: bool,
    /// `(` to put before the next word.
    open: usize,
}

impl<'o> Wrapper<'o> {
    fn new(out: &'o mut String) -> Wrapper<'o> {
        Wrapper {
            out,
            column: 0,
            word: String::new(),
            breakable: true,
            pending: false,
            break_after: false,
            must_break: false,
            open: 0,
        }
    }

    /// Starts a new word and returns it to be filled.
    fn start(&mut self, breakable: bool) -> &mut String {
        self.flush();
        self.pending = true;
        self.breakable = breakable;
        self.word.clear();
        for _ in 0..self.open {
            self.word.push('(');
        }
        self.open = 0;
        &mut self.word
    }

    /// The word being built must end its line.
    fn break_after(&mut self) {
        self.break_after = true;
    }

    fn open_parenthesis(&mut self) {
        self.open += 1;
    }

    fn close_parenthesis(&mut self) {
        if self.open > 0 {
            // An empty variation.
            self.open -= 1;
            self.start(true).push_str("()");
        } else if self.pending && !self.break_after {
            self.word.push(')');
        } else {
            self.start(true).push(')');
        }
    }

    /// Writes the word being built.
    fn flush(&mut self) {
        if !self.pending {
            return;
        }
        let width = self.word.chars().count();
        if self.column > 0 {
            if self.must_break || (self.breakable && self.column + 1 + width >= LINE_LIMIT) {
                self.out.push('\n');
                self.column = 0;
            } else {
                self.out.push(' ');
                self.column += 1;
            }
        }
        self.out.push_str(&self.word);
        self.column += width;
        self.must_break = self.break_after;
        self.break_after = false;
        self.pending = false;
    }

    fn finish(mut self) {
        self.flush();
        if self.column > 0 {
            self.out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_record;

    #[test]
    fn comment_units_keep_embedded_commands_whole() {
        let units: Vec<&str> = comment_units("a [%clk 0:00:52] b [%eval 0.17,20]").collect();
        assert_eq!(units, ["a", "[%clk 0:00:52]", "b", "[%eval 0.17,20]"]);
        let units: Vec<&str> = comment_units("[%unclosed command").collect();
        assert_eq!(units, ["[%unclosed command"]);
        // Commands glued to each other or to a word stay whole too.
        let units: Vec<&str> =
            comment_units("x [%csl Ra1][%cal Ra1a8, Gb2b4] see[%cal Ga1a2 Gb1b2] y").collect();
        assert_eq!(
            units,
            [
                "x",
                "[%csl Ra1][%cal Ra1a8, Gb2b4]",
                "see[%cal Ga1a2 Gb1b2]",
                "y"
            ]
        );
    }

    #[test]
    fn a_clock_command_is_never_split_across_lines() {
        // Each turn's clock comment makes lines full; wherever they wrap, every
        // `[%clk h:mm:ss]` stays on one line and every line stays under 80 characters.
        let mut movetext = String::new();
        for number in 1..40 {
            movetext.push_str(&format!(
                "{number}. Nf3 {{ [%clk 0:{:02}:00] }} {number}... Nf6 {{ [%clk 0:00:{:02}] }} ",
                number % 60,
                number % 60
            ));
        }
        let record = parse_record(&format!("{movetext}*")).unwrap();
        let written = record_to_string(&record, Numbering::default());
        for line in written.lines() {
            assert!(line.chars().count() < 80, "{line}");
            assert!(!line.trim_end().ends_with("[%clk"), "{line}");
        }
        assert_eq!(written.matches("[%clk 0:").count(), 78);
    }
}
