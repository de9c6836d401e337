//! The grammar of one game: tag pairs and movetext, one nom function per rule.
//!
//! Each function has its EBNF rule in a comment above it; `notation/grammar.md` holds the
//! same rules. The leaf rules work on a suffix of the game's text and know nothing of where
//! that text sits in the file: a span they make holds, in its `offset`, the number of bytes
//! left in the text at that point ([`mark`]); the rules that build the record turn it into
//! a real position with a [`Locator`] as soon as it is made, in text order.

use compact_str::CompactString;
use memchr::{memchr, memchr3};
use nom::bytes::complete::take_while1;
use nom::character::complete::{char, digit1, space0};
use nom::combinator::cut;
use nom::error::{ContextError, ErrorKind, context};
use nom::{Err, IResult, Parser};

use super::locate::Locator;
use super::record::{Comment, Line, Nag, Record, Span, Tag, TurnNode, WrittenNumber};
use crate::games::GameResult;

/// Variations nest at most this deep; deeper input is an error, not a stack overflow.
pub(crate) const MAX_DEPTH: u32 = 100;

/// What went wrong at a point of the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// Something else was expected here; the message says what was found.
    Expected(&'static str),
    /// A complete message.
    Message(String),
    /// A nom parser failed without a context (a fallback that the rules avoid).
    Kind(ErrorKind),
}

/// A syntax error: the rest of the text where it happened, and the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError<'a> {
    /// The text from the error's position to the end of the game.
    pub(crate) input: &'a str,
    /// What is wrong.
    pub(crate) problem: Problem,
}

impl SyntaxError<'_> {
    /// The message for people: what was expected and what was found.
    pub(crate) fn message(&self) -> String {
        match &self.problem {
            Problem::Expected(expected) => {
                format!("expected {expected}, found {}", describe(self.input))
            }
            Problem::Message(message) => message.clone(),
            Problem::Kind(kind) => {
                format!(
                    "expected {}, found {}",
                    kind.description().to_lowercase(),
                    describe(self.input)
                )
            }
        }
    }
}

impl<'a> nom::error::ParseError<&'a str> for SyntaxError<'a> {
    fn from_error_kind(input: &'a str, kind: ErrorKind) -> Self {
        SyntaxError {
            input,
            problem: Problem::Kind(kind),
        }
    }

    fn append(_input: &'a str, _kind: ErrorKind, other: Self) -> Self {
        other
    }
}

impl<'a> ContextError<&'a str> for SyntaxError<'a> {
    /// The innermost context wins: it names the most specific thing that was expected.
    fn add_context(_input: &'a str, context: &'static str, other: Self) -> Self {
        match other.problem {
            Problem::Kind(_) => SyntaxError {
                input: other.input,
                problem: Problem::Expected(context),
            },
            _ => other,
        }
    }
}

/// The result of a rule.
pub(crate) type PResult<'a, T> = IResult<&'a str, T, SyntaxError<'a>>;

/// A committed failure at `input`: the game cannot be read past it.
fn fail<T>(input: &str, problem: Problem) -> PResult<'_, T> {
    Err(failure(input, problem))
}

/// The error value of [`fail`].
fn failure(input: &str, problem: Problem) -> Err<SyntaxError<'_>> {
    Err::Failure(SyntaxError { input, problem })
}

/// A span marker: the number of bytes left in the game's text at this point.
fn mark(input: &str) -> Span {
    Span {
        offset: input.len(),
        line: 0,
        column: 0,
    }
}

/// What the text at an error position looks like, for "found ..." in messages.
pub(crate) fn describe(input: &str) -> String {
    let Some(first) = input.chars().next() else {
        return "the end of the game".to_owned();
    };
    match first {
        '\n' | '\r' => "the end of the line".to_owned(),
        ' ' | '\t' => "a space".to_owned(),
        c if c.is_control() || c == '\u{FFFD}' => format!("the character U+{:04X}", c as u32),
        '$' => {
            let digits = input[1..].bytes().take_while(u8::is_ascii_digit).count();
            format!("`{}`", &input[..(1 + digits).min(12)])
        }
        c if is_delimiter(c) => format!("`{c}`"),
        _ => {
            let word: String = input
                .chars()
                .take_while(|&c| !is_delimiter(c) && !c.is_whitespace() && !c.is_control())
                .take(24)
                .collect();
            format!("`{word}`")
        }
    }
}

/// The characters that end a word in movetext (besides white space).
fn is_delimiter(c: char) -> bool {
    matches!(c, '{' | '}' | '(' | ')' | '[' | ']' | ';' | '$')
}

/// A byte that ends a word in movetext: white space or a delimiter.
fn ends_word(b: u8) -> bool {
    WORD_ENDS[usize::from(b)]
}

/// [`ends_word`] as a table, since it runs for every byte of every token.
static WORD_ENDS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte.is_ascii_whitespace()
            || matches!(byte, b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b'$');
        b += 1;
    }
    table
};

/// The length of `word` without its trailing run of `!` and `?`.
fn without_glyph(word: &str) -> usize {
    let bytes = word.as_bytes();
    let mut end = bytes.len();
    while end > 0 && matches!(bytes[end - 1], b'!' | b'?') {
        end -= 1;
    }
    end
}

/// One game read from the text.
#[derive(Debug)]
pub(crate) struct ParsedGame {
    /// The record, with its spans in the whole input.
    pub(crate) record: Record,
    /// Where the game's text ends (after the white space that follows it).
    pub(crate) end: usize,
}

// game = gap , tag-section , movetext , gap ;
/// Reads the game that starts at byte `pos` of `text`, or `None` when only white space
/// and escape lines are left.
pub(crate) fn game<'a>(
    text: &'a str,
    pos: usize,
    locator: &mut Locator<'_>,
    scratch: &mut Scratch,
) -> Result<Option<ParsedGame>, SyntaxError<'a>> {
    let line_start = pos == 0 || text.as_bytes().get(pos - 1) == Some(&b'\n');
    let input = gap(&text[pos..], line_start);
    if input.is_empty() {
        return Ok(None);
    }
    let mut record = Record {
        span: locator.resolve(mark(input)),
        ..Record::default()
    };
    // The game's tags and main line grow in the reader's buffers, and move to vectors of
    // their exact size at the end: one allocation each, after the game's small ones.
    record.tags = std::mem::take(&mut scratch.tags);
    record.moves.turns = std::mem::take(&mut scratch.turns);
    let input = tag_section(input, &mut record.tags, locator).map_err(unwrap_err)?;
    let (input, result) = movetext(input, &mut record.moves, locator).map_err(unwrap_err)?;
    if let Some((result, span)) = result {
        record.result = Some(result);
        record.result_span = locator.resolve(span);
    }
    record.tags = exact(&mut record.tags, &mut scratch.tags);
    record.moves.turns = exact(&mut record.moves.turns, &mut scratch.turns);
    let input = gap(input, false);
    Ok(Some(ParsedGame {
        record,
        end: text.len() - input.len(),
    }))
}

/// Buffers the reader lends to [`game`] and gets back, emptied, for the next game.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    tags: Vec<Tag>,
    turns: Vec<TurnNode>,
}

/// Moves the items of `buffer` into a vector of their exact size, and keeps the emptied
/// buffer in `spare` (not more than a few pages of it, after a huge game).
fn exact<T>(buffer: &mut Vec<T>, spare: &mut Vec<T>) -> Vec<T> {
    let mut items = Vec::with_capacity(buffer.len());
    items.append(buffer);
    *spare = std::mem::take(buffer);
    spare.shrink_to(512);
    items
}

fn unwrap_err(error: Err<SyntaxError<'_>>) -> SyntaxError<'_> {
    match error {
        Err::Error(error) | Err::Failure(error) => error,
        // Complete parsers never ask for more input.
        Err::Incomplete(_) => SyntaxError {
            input: "",
            problem: Problem::Expected("more text"),
        },
    }
}

// gap = { white-space | escape-line } ;
// white-space = " " | tab | newline | carriage-return | form-feed ;
// escape-line = "%" , { any character but newline } ;   (only in column 1)
/// Skips white space and escape lines; `line_start` says whether `input` begins a line.
fn gap(input: &str, mut line_start: bool) -> &str {
    let bytes = input.as_bytes();
    let mut i = 0;
    loop {
        match bytes.get(i) {
            Some(b'\n') => {
                i += 1;
                line_start = true;
            }
            Some(b) if b.is_ascii_whitespace() => {
                i += 1;
                line_start = false;
            }
            Some(b'%') if line_start => {
                i += memchr(b'\n', &bytes[i..]).unwrap_or(bytes.len() - i);
            }
            _ => return &input[i..],
        }
    }
}

// tag-section = { gap , tag-pair } ;
fn tag_section<'a>(
    mut input: &'a str,
    tags: &mut Vec<Tag>,
    locator: &mut Locator<'_>,
) -> Result<&'a str, Err<SyntaxError<'a>>> {
    loop {
        input = gap(input, false);
        if !input.starts_with('[') {
            return Ok(input);
        }
        let (rest, mut tag) = tag_pair(input)?;
        tag.span = locator.resolve(tag.span);
        tags.push(tag);
        input = rest;
    }
}

// tag-pair = "[" , blanks , tag-name , blanks , tag-value , blanks , "]" ;
// blanks   = { " " | tab } ;
fn tag_pair(input: &str) -> PResult<'_, Tag> {
    let span = mark(input);
    let (rest, (_, _, name, _, value, _, _)) = (
        char('['),
        space0,
        cut(context("a tag name", tag_name)),
        space0,
        cut(tag_value),
        space0,
        cut(context("`]` to close the tag pair", char(']'))),
    )
        .parse(input)?;
    Ok((
        rest,
        Tag {
            name: CompactString::new(name),
            value,
            span,
        },
    ))
}

// tag-name = name-char , { name-char } ;
// name-char = letter | digit | "_" | "+" | "#" | "=" | ":" | "-" ;
fn tag_name(input: &str) -> PResult<'_, &str> {
    take_while1(|c: char| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '#' | '=' | ':' | '-')
    })
    .parse(input)
}

// tag-value = '"' , { value-char | '\"' | '\\' } , '"' ;
// value-char = any character but '"', "\" and newline ;   ("\" before anything else is kept;
//              a carriage return is read as a space)
fn tag_value(input: &str) -> PResult<'_, CompactString> {
    let (mut rest, _) = context("a tag value in double quotes", char('"')).parse(input)?;
    let mut value = CompactString::default();
    loop {
        let bytes = rest.as_bytes();
        match memchr3(b'"', b'\\', b'\n', bytes) {
            Some(i) if bytes[i] == b'"' => {
                push_value_text(&mut value, &rest[..i]);
                return Ok((&rest[i + 1..], value));
            }
            Some(i) if bytes[i] == b'\\' => {
                push_value_text(&mut value, &rest[..i]);
                match bytes.get(i + 1) {
                    Some(&escaped @ (b'"' | b'\\')) => {
                        value.push(char::from(escaped));
                        rest = &rest[i + 2..];
                    }
                    _ => {
                        value.push('\\');
                        rest = &rest[i + 1..];
                    }
                }
            }
            found => {
                let mut at = found.unwrap_or(bytes.len());
                if at > 0 && bytes[at - 1] == b'\r' {
                    at -= 1;
                }
                return fail(
                    &rest[at..],
                    Problem::Expected("`\"` to close the tag value"),
                );
            }
        }
    }
}

/// Appends a piece of a tag value's text, a carriage return as a space. A bare carriage
/// return is a line break to many programs, and the writer writes a line break in a value
/// as a space: reading it as one here keeps what was read and what `fmt` writes the same
/// value (a game that validated must validate the same after `fmt`).
fn push_value_text(value: &mut CompactString, text: &str) {
    if memchr(b'\r', text.as_bytes()).is_none() {
        value.push_str(text);
    } else {
        value.extend(text.chars().map(|c| if c == '\r' { ' ' } else { c }));
    }
}

// movetext = line , [ result ] ;
// result = "1-0" | "0-1" | "1/2-1/2" | "*" ;
fn movetext<'a>(
    input: &'a str,
    moves: &mut Line,
    locator: &mut Locator<'_>,
) -> PResult<'a, Option<(GameResult, Span)>> {
    let (rest, end) = line(input, 0, moves, locator)?;
    match end {
        End::Result(result, span) => Ok((rest, Some((result, span)))),
        End::Input => Ok((rest, None)),
        End::Close => fail(
            rest,
            Problem::Message("unexpected `)`: no variation is open".to_owned()),
        ),
    }
}

/// How a line ended.
enum End {
    /// At the end of the game's text.
    Input,
    /// Before a `)` (not consumed).
    Close,
    /// After a termination marker (only at depth 0).
    Result(GameResult, Span),
}

// line = { gap , element } , gap ;
// element = comment | variation | nag | move-number | turn ;
/// Reads a line's elements into `line` until the end of the text, a `)` or (at the top)
/// a termination marker.
fn line<'a>(
    mut input: &'a str,
    depth: u32,
    line: &mut Line,
    locator: &mut Locator<'_>,
) -> PResult<'a, End> {
    // Variations before the line's first turn are alternatives to that turn.
    let mut waiting: Vec<Line> = Vec::new();
    // A move number written as a word of its own, for the turn after it.
    let mut number = WrittenNumber::default();
    let end = loop {
        input = gap(input, false);
        let Some(&first) = input.as_bytes().first() else {
            break End::Input;
        };
        match first {
            b'{' | b';' => {
                let (rest, mut comment) = comment(input)?;
                comment.span = locator.resolve(comment.span);
                match line.turns.last_mut() {
                    Some(turn) => turn.comments.push(comment),
                    None => line.comments.push(comment),
                }
                input = rest;
            }
            b'(' => {
                if depth >= MAX_DEPTH {
                    return fail(
                        input,
                        Problem::Message(format!(
                            "variations nested too deeply: more than {MAX_DEPTH} levels"
                        )),
                    );
                }
                let (rest, variation) = variation(input, depth + 1, locator)?;
                match line.turns.last_mut() {
                    Some(turn) => turn.variations.push(variation),
                    None => waiting.push(variation),
                }
                input = rest;
            }
            b')' => break End::Close,
            b'$' => {
                let (rest, nag) = nag(input)?;
                let Some(turn) = line.turns.last_mut() else {
                    return fail(
                        input,
                        Problem::Expected("a turn before the annotation glyph"),
                    );
                };
                turn.nags.push(nag);
                input = rest;
            }
            b'}' | b'[' | b']' => {
                return fail(
                    input,
                    Problem::Expected("a turn, a comment, a variation or a result"),
                );
            }
            _ => {
                let (rest, word) = word(input)?;
                let (token_input, token, written) = move_number(input, word);
                if written.is_written() {
                    number = WrittenNumber {
                        span: locator.resolve(mark(input)),
                        ..written
                    };
                }
                // A result is never a turn, even after a move number or before a glyph.
                let could_be_result = matches!(token.as_bytes().first(), Some(b'0' | b'1' | b'*'));
                if let Some(result) = could_be_result
                    .then(|| GameResult::from_token(&token[..without_glyph(token)]))
                    .flatten()
                {
                    if depth > 0 {
                        return fail(token_input, Problem::Expected("`)` to close the variation"));
                    }
                    if !waiting.is_empty() {
                        return fail(token_input, Problem::Expected("a turn after the variation"));
                    }
                    if token.len() > result.as_str().len() {
                        return fail(
                            &token_input[result.as_str().len()..],
                            Problem::Message(
                                "expected nothing after the result, found an annotation glyph"
                                    .to_owned(),
                            ),
                        );
                    }
                    input = rest;
                    break End::Result(result, mark(token_input));
                }
                if !token.is_empty() {
                    turn(token_input, token, number, line, &mut waiting, locator)?;
                    number = WrittenNumber::default();
                }
                input = rest;
            }
        }
    };
    if !waiting.is_empty() {
        return fail(input, Problem::Expected("a turn after the variation"));
    }
    Ok((input, end))
}

// word = word-char , { word-char } ;
// word-char = any character but white space and "{}()[];$" ;
fn word(input: &str) -> PResult<'_, &str> {
    let length = input.bytes().position(ends_word).unwrap_or(input.len());
    if length == 0 {
        return fail(input, Problem::Expected("a turn"));
    }
    Ok((&input[length..], &input[..length]))
}

// move-number = { digit } , "." , { "." } ;   (at the start of a word, repeated)
/// Splits a move number off the start of a word: returns the text where the rest of the
/// word starts, and that rest (empty when the word was only a move number).
/// Also gives the last number as written (without its span).
fn move_number<'a>(mut input: &'a str, mut word: &'a str) -> (&'a str, &'a str, WrittenNumber) {
    let mut written = WrittenNumber::default();
    // Most words are turns: no digit or dot to look at.
    if !matches!(word.as_bytes().first(), Some(b'0'..=b'9' | b'.')) {
        return (input, word, written);
    }
    // `1.1.` is two move numbers; what follows the last one is the turn.
    loop {
        let digits = word.bytes().take_while(u8::is_ascii_digit).count();
        let dots = word[digits..].bytes().take_while(|&b| b == b'.').count();
        if dots == 0 {
            return (input, word, written);
        }
        if digits > 0 {
            written.number = word[..digits].parse().ok();
            written.ellipsis = dots > 1;
        } else {
            written.ellipsis |= dots > 1;
        }
        input = &input[digits + dots..];
        word = &word[digits + dots..];
    }
}

// turn = token , [ glyph ] ;
// token = word-char , { word-char } ;   (not a result, not a move number)
// glyph = "!!" | "??" | "!?" | "?!" | "!" | "?" ;
/// Reads a turn token (or a glyph standing alone) into the line.
fn turn<'a>(
    input: &'a str,
    word: &'a str,
    number: WrittenNumber,
    line: &mut Line,
    waiting: &mut Vec<Line>,
    locator: &mut Locator<'_>,
) -> Result<(), Err<SyntaxError<'a>>> {
    let stem = &word[..without_glyph(word)];
    let glyph = &word[stem.len()..];
    let nag = if glyph.is_empty() {
        None
    } else {
        match glyph_nag(glyph) {
            Some(nag) => Some(nag),
            None => {
                return Err(failure(
                    &input[stem.len()..],
                    Problem::Message(format!(
                        "unknown annotation glyph `{glyph}`: expected !, ?, !!, ??, !? or ?!"
                    )),
                ));
            }
        }
    };
    if stem.is_empty() {
        let Some(turn) = line.turns.last_mut() else {
            return Err(failure(
                input,
                Problem::Expected("a turn before the annotation glyph"),
            ));
        };
        turn.nags.extend(nag);
        return Ok(());
    }
    line.turns.push(TurnNode {
        token: CompactString::new(stem),
        span: locator.resolve(mark(input)),
        number,
        nags: nag.into_iter().collect(),
        comments: Vec::new(),
        variations: std::mem::take(waiting),
    });
    Ok(())
}

/// The NAG a suffix glyph stands for.
fn glyph_nag(glyph: &str) -> Option<Nag> {
    let value = match glyph {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        _ => return None,
    };
    Some(Nag(value))
}

// nag = "$" , digit , { digit } ;   (a value from 0 to 255)
fn nag(input: &str) -> PResult<'_, Nag> {
    let (rest, digits) = (char('$'), cut(context("digits after `$`", digit1)))
        .parse(input)
        .map(|(rest, (_, digits))| (rest, digits))?;
    match digits.parse::<u8>() {
        Ok(value) => Ok((rest, Nag(value))),
        Err(_) => fail(
            input,
            Problem::Message(format!(
                "annotation glyph `${digits}` is out of range: expected at most $255"
            )),
        ),
    }
}

// comment = "{" , { any character but "}" } , "}"
//         | ";" , { any character but newline } ;
fn comment(input: &str) -> PResult<'_, Comment> {
    let span = mark(input);
    let body = &input[1..];
    let (text, rest) = if input.starts_with('{') {
        let Some(close) = memchr(b'}', body.as_bytes()) else {
            return fail(
                input,
                Problem::Message(
                    "unterminated comment: expected `}` before the end of the game".to_owned(),
                ),
            );
        };
        (&body[..close], &body[close + 1..])
    } else {
        let end = memchr(b'\n', body.as_bytes()).unwrap_or(body.len());
        (&body[..end], &body[end..])
    };
    Ok((
        rest,
        Comment {
            text: collapse_spaces(text),
            span,
        },
    ))
}

/// Trims a comment and turns each run of white space inside it into one space.
pub(crate) fn collapse_spaces(text: &str) -> CompactString {
    let mut out = CompactString::with_capacity(text.len().min(24));
    for part in text.split_ascii_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

// variation = "(" , line , ")" ;
fn variation<'a>(input: &'a str, depth: u32, locator: &mut Locator<'_>) -> PResult<'a, Line> {
    let mut variation = Line::default();
    let (rest, end) = line(&input[1..], depth, &mut variation, locator)?;
    match end {
        End::Close => Ok((&rest[1..], variation)),
        End::Input | End::Result(..) => fail(
            input,
            Problem::Message(
                "unterminated variation: expected `)` before the end of the game".to_owned(),
            ),
        ),
    }
}

/// What the streaming grammar hands on from the movetext of a game, in text order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token<'a> {
    /// A comment's text between its delimiters, as written (not trimmed).
    Comment(&'a str),
    /// An annotation glyph (`$n`, or `!`/`?` after a turn) on the turn before it.
    Nag,
    /// A turn token without its glyph, with the move number written before it.
    Turn(&'a str, WrittenNumber),
}

/// Takes a game streamed by the grammar (see [`Reader::next_streamed`](super::Reader::next_streamed)): each call may say
/// `false` to give the game up, which the reader then reads again with the full grammar.
pub trait Visitor {
    /// The tag section was read into `record.tags` (the rest of `record` is empty but for
    /// its number).
    fn tags(&mut self, record: &Record) -> bool;
    /// The next element of the main line.
    fn token(&mut self, token: Token<'_>) -> bool;
    /// The movetext ended, with this termination marker.
    fn end(&mut self, result: Option<GameResult>) -> bool;
}

// The plain case of `game`: a tag section and a main line of turns, comments and glyphs,
// with or without a result. The same rules as `game`, `line` and the leaf rules, sharing
// their leaf functions; anything else (a variation, a syntax error) is given up.
/// Streams the game that starts at byte `pos` of `text` to `visitor` without building its
/// movetext, when it is plain; returns where its text ends (as [`game`] would), or `None`
/// when the visitor gave it up, the game is not plain, or no game is left: then [`game`]
/// reads the same text from the start.
pub(crate) fn stream(
    text: &str,
    pos: usize,
    record: &mut Record,
    visitor: &mut dyn Visitor,
) -> Option<usize> {
    let line_start = pos == 0 || text.as_bytes().get(pos - 1) == Some(&b'\n');
    let input = gap(&text[pos..], line_start);
    if input.is_empty() {
        return None;
    }
    record.tags.clear();
    let mut input = plain_tag_section(input, &mut record.tags)?;
    if !visitor.tags(record) {
        return None;
    }
    // Whether the line has a turn yet (a glyph needs one before it).
    let mut turns = false;
    let mut number = WrittenNumber::default();
    let result = loop {
        input = gap(input, false);
        let Some(&first) = input.as_bytes().first() else {
            break None;
        };
        match first {
            b'{' | b';' => {
                let body = &input[1..];
                let (text, rest) = if first == b'{' {
                    let close = memchr(b'}', body.as_bytes())?;
                    (&body[..close], &body[close + 1..])
                } else {
                    let end = memchr(b'\n', body.as_bytes()).unwrap_or(body.len());
                    (&body[..end], &body[end..])
                };
                if !visitor.token(Token::Comment(text)) {
                    return None;
                }
                input = rest;
            }
            b'$' => {
                let digits = input[1..].bytes().take_while(u8::is_ascii_digit).count();
                if !turns || digits == 0 || input[1..=digits].parse::<u8>().is_err() {
                    return None;
                }
                if !visitor.token(Token::Nag) {
                    return None;
                }
                input = &input[1 + digits..];
            }
            b'(' | b')' | b'}' | b'[' | b']' => return None,
            _ => {
                let (rest, word) = word(input).ok()?;
                let (_, token, written) = move_number(input, word);
                if written.is_written() {
                    number = written;
                }
                let could_be_result = matches!(token.as_bytes().first(), Some(b'0' | b'1' | b'*'));
                if let Some(result) = could_be_result
                    .then(|| GameResult::from_token(&token[..without_glyph(token)]))
                    .flatten()
                {
                    if token.len() > result.as_str().len() {
                        return None;
                    }
                    input = rest;
                    break Some(result);
                }
                if !token.is_empty() {
                    let stem = &token[..without_glyph(token)];
                    let glyph = &token[stem.len()..];
                    if !glyph.is_empty() && glyph_nag(glyph).is_none() {
                        return None;
                    }
                    if stem.is_empty() {
                        if !turns || !visitor.token(Token::Nag) {
                            return None;
                        }
                    } else {
                        if !visitor.token(Token::Turn(stem, number)) {
                            return None;
                        }
                        if !glyph.is_empty() && !visitor.token(Token::Nag) {
                            return None;
                        }
                        turns = true;
                        number = WrittenNumber::default();
                    }
                }
                input = rest;
            }
        }
    };
    if !visitor.end(result) {
        return None;
    }
    let input = gap(input, false);
    Some(text.len() - input.len())
}

/// `tag-section` when every tag pair is plain: no escape in a value, and nothing the rule
/// refuses (`None` then). The tags have no spans.
fn plain_tag_section<'a>(mut input: &'a str, tags: &mut Vec<Tag>) -> Option<&'a str> {
    loop {
        input = gap(input, false);
        if !input.starts_with('[') {
            return Some(input);
        }
        let bytes = input.as_bytes();
        let blanks = |mut i: usize| {
            while matches!(bytes.get(i), Some(b' ' | b'\t')) {
                i += 1;
            }
            i
        };
        let name_start = blanks(1);
        let mut i = name_start;
        while bytes.get(i).is_some_and(|&b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'=' | b':' | b'-')
        }) {
            i += 1;
        }
        let name = &input[name_start..i];
        i = blanks(i);
        if name.is_empty() || bytes.get(i) != Some(&b'"') {
            return None;
        }
        let value_start = i + 1;
        let length = memchr3(b'"', b'\\', b'\n', &bytes[value_start..])?;
        if bytes[value_start + length] != b'"' {
            return None;
        }
        i = blanks(value_start + length + 1);
        if bytes.get(i) != Some(&b']') {
            return None;
        }
        tags.push(Tag {
            name: CompactString::new(name),
            value: CompactString::new(&input[value_start..value_start + length]),
            span: Span::default(),
        });
        input = &input[i + 1..];
    }
}
