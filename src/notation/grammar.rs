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

/// The bytes of a tag name (`name-char`), as a table for the streaming grammar.
static NAME_CHARS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] =
            byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'+' | b'#' | b'=' | b':' | b'-');
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
fn gap(input: &str, line_start: bool) -> &str {
    &input[gap_end(input.as_bytes(), 0, line_start)..]
}

/// [`gap`] on bytes: where the gap that starts at `i` ends (`i` itself when no white space
/// or escape line is there, the usual case between two elements of movetext).
#[inline]
fn gap_end(bytes: &[u8], mut i: usize, mut line_start: bool) -> usize {
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
            _ => return i,
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
fn move_number<'a>(input: &'a str, word: &'a str) -> (&'a str, &'a str, WrittenNumber) {
    let (skip, written) = number_prefix(word.as_bytes());
    (&input[skip..], &word[skip..], written)
}

/// [`move_number`] on the bytes of a word: how many bytes the move numbers at its start
/// take, and the last number as written (without its span).
#[inline(always)]
fn number_prefix(word: &[u8]) -> (usize, WrittenNumber) {
    /// One more than the largest `u32`: a value held at this or more does not fit.
    const TOO_LARGE: u64 = 1 << 32;
    let mut written = WrittenNumber::default();
    // Most words are turns: no digit or dot to look at.
    if !matches!(word.first(), Some(b'0'..=b'9' | b'.')) {
        return (0, written);
    }
    // `1.1.` is two move numbers; what follows the last one is the turn.
    let mut at = 0;
    loop {
        let start = at;
        // The number's value as `decimal` reads it, held at `TOO_LARGE` once past a `u32`.
        let mut value = 0u64;
        while let Some(&b) = word.get(at) {
            if !b.is_ascii_digit() {
                break;
            }
            value = (value * 10 + u64::from(b - b'0')).min(TOO_LARGE);
            at += 1;
        }
        let digits_end = at;
        while word.get(at) == Some(&b'.') {
            at += 1;
        }
        let dots = at - digits_end;
        if dots == 0 {
            return (start, written);
        }
        if digits_end > start {
            written.number = u32::try_from(value).ok();
            written.ellipsis = dots > 1;
        } else {
            written.ellipsis |= dots > 1;
        }
    }
}

/// The usual move number, read in one step: one to nine digits (which fit in a `u32`) and
/// dots, at the end of the word or before a turn that starts with neither (`12.`,
/// `12...`, `1.e4`). What [`number_prefix`] gives for such a word; `None` for anything
/// else, which it reads.
#[inline(always)]
fn plain_number(word: &[u8]) -> Option<(usize, WrittenNumber)> {
    let mut value = 0;
    let mut at = 0;
    while let Some(&b) = word.get(at) {
        if !b.is_ascii_digit() || at == 9 {
            break;
        }
        value = value * 10 + u32::from(b - b'0');
        at += 1;
    }
    let digits = at;
    while word.get(at) == Some(&b'.') {
        at += 1;
    }
    let dots = at - digits;
    if digits == 0 || dots == 0 || matches!(word.get(at), Some(b'0'..=b'9' | b'.')) {
        return None;
    }
    let written = WrittenNumber {
        number: Some(value),
        ellipsis: dots > 1,
        span: Span::default(),
    };
    Some((at, written))
}

/// The value of a run of ASCII digits, `None` when it does not fit in a `u32` (what
/// `str::parse::<u32>` gives for digits, without making a `&str`).
#[inline]
fn decimal(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |value, &digit| {
        value.checked_mul(10)?.checked_add(u32::from(digit - b'0'))
    })
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
pub(crate) fn stream<V: Visitor + ?Sized>(
    text: &str,
    pos: usize,
    record: &mut Record,
    visitor: &mut V,
) -> Option<usize> {
    let bytes = text.as_bytes();
    let line_start = pos == 0 || bytes.get(pos - 1) == Some(&b'\n');
    let start = gap_end(bytes, pos, line_start);
    if start == bytes.len() {
        return None;
    }
    let i = plain_tag_section(text, start, &mut record.tags)?;
    if !visitor.tags(record) {
        return None;
    }
    let (i, result) = stream_movetext(text, i, visitor)?;
    if !visitor.end(result) {
        return None;
    }
    Some(gap_end(bytes, i, false))
}

/// What a byte starts in the movetext of a plain game, for [`stream_movetext`]'s dispatch.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A word: a turn, a move number, a result, a glyph.
    Word,
    /// White space but a newline.
    Blank,
    /// A newline: a `%` after it starts an escape line.
    Newline,
    /// `%`: an escape line at the start of a line, else a word.
    Percent,
    /// `{`: a comment to the next `}`.
    Brace,
    /// `;`: a comment to the end of the line.
    Semicolon,
    /// `$`: a numeric annotation glyph.
    Dollar,
    /// `(`, `)`, `}`, `[`, `]`: a variation or an error, which the full grammar reads.
    Other,
}

/// [`Class`] as a table: one lookup per element of the movetext.
static CLASSES: [Class; 256] = {
    let mut table = [Class::Word; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = match byte {
            b'\n' => Class::Newline,
            b'%' => Class::Percent,
            b'{' => Class::Brace,
            b';' => Class::Semicolon,
            b'$' => Class::Dollar,
            b'(' | b')' | b'}' | b'[' | b']' => Class::Other,
            _ if byte.is_ascii_whitespace() => Class::Blank,
            _ => Class::Word,
        };
        b += 1;
    }
    table
};

/// The movetext of [`stream`] from byte `i` of `text`: hands each element of a plain main
/// line to `visitor`, and returns where the movetext ends with its termination marker;
/// `None` when the visitor or the grammar gives the game up.
///
/// The same rules as `line` (with `gap` folded into the loop): one lookup in [`CLASSES`]
/// says what the next byte starts; a word is scanned once, and only a word that starts
/// with a digit or a dot is looked at for a move number, only one that starts with `0`,
/// `1` or `*` (after its move numbers) for a result. Not inlined into [`stream`], so that
/// its loop has the registers to itself.
#[inline(never)]
fn stream_movetext<V: Visitor + ?Sized>(
    text: &str,
    mut i: usize,
    visitor: &mut V,
) -> Option<(usize, Option<GameResult>)> {
    let bytes = text.as_bytes();
    let classes = &CLASSES;
    // Whether the line has a turn yet (a glyph needs one before it).
    let mut turns = false;
    let mut number = WrittenNumber::default();
    // Whether `i` starts a line within a gap (an element never ends after a newline).
    let mut line_start = false;
    let result = loop {
        let Some(&first) = bytes.get(i) else {
            break None;
        };
        match classes[usize::from(first)] {
            Class::Blank => {
                i += 1;
                line_start = false;
                continue;
            }
            Class::Newline => {
                i += 1;
                line_start = true;
                continue;
            }
            // escape-line = "%" , { any character but newline } ;
            Class::Percent if line_start => {
                i += memchr(b'\n', &bytes[i..]).unwrap_or(bytes.len() - i);
                continue;
            }
            // word = word-char , { word-char } ;
            Class::Word | Class::Percent => {
                let start = i;
                let mut from = start;
                if matches!(first, b'0'..=b'9' | b'.') {
                    // The usual move number is read without looking for the word's end
                    // first (digits and dots never end a word).
                    let (skip, written) = match plain_number(&bytes[start..]) {
                        Some(plain) => plain,
                        None => number_prefix(&bytes[start..word_end(bytes, start)]),
                    };
                    if written.is_written() {
                        number = written;
                    }
                    from += skip;
                    // The word was only move numbers.
                    if bytes.get(from).is_none_or(|&b| ends_word(b)) {
                        i = from;
                        line_start = false;
                        if bytes.get(i) == Some(&b' ') {
                            i += 1;
                        }
                        continue;
                    }
                }
                let end = word_end(bytes, from);
                i = end;
                // The glyph: the trailing run of `!` and `?`; one or two of them make a
                // known glyph (`glyph_nag`), more do not.
                let mut stem_end = end;
                while stem_end > from && matches!(bytes[stem_end - 1], b'!' | b'?') {
                    stem_end -= 1;
                }
                // A result is never a turn, even after a move number or before a glyph.
                if matches!(bytes[from], b'0' | b'1' | b'*')
                    && let Some(result) = GameResult::from_token(&text[from..stem_end])
                {
                    if end > stem_end {
                        return None;
                    }
                    break Some(result);
                }
                if end - stem_end > 2 {
                    return None;
                }
                if stem_end == from {
                    if !turns || !visitor.token(Token::Nag) {
                        return None;
                    }
                } else {
                    if !visitor.token(Token::Turn(&text[from..stem_end], number)) {
                        return None;
                    }
                    if end > stem_end && !visitor.token(Token::Nag) {
                        return None;
                    }
                    turns = true;
                    number = WrittenNumber::default();
                }
            }
            // comment = "{" , { any character but "}" } , "}" ;
            Class::Brace => {
                let close = find_close(bytes, i + 1)?;
                if !visitor.token(Token::Comment(&text[i + 1..close])) {
                    return None;
                }
                i = close + 1;
            }
            // comment = ";" , { any character but newline } ;
            Class::Semicolon => {
                let end = memchr(b'\n', &bytes[i + 1..]).map_or(bytes.len(), |n| i + 1 + n);
                if !visitor.token(Token::Comment(&text[i + 1..end])) {
                    return None;
                }
                i = end;
            }
            // nag = "$" , digit , { digit } ;
            Class::Dollar => {
                let digits = bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                let in_range = decimal(&bytes[i + 1..i + 1 + digits]).is_some_and(|n| n <= 255);
                if !turns || digits == 0 || !in_range || !visitor.token(Token::Nag) {
                    return None;
                }
                i += 1 + digits;
            }
            Class::Other => return None,
        }
        line_start = false;
        // The usual gap after an element, without a dispatch.
        if bytes.get(i) == Some(&b' ') {
            i += 1;
        }
    };
    Some((i, result))
}

/// Where the word that has a word character at byte `from` of `bytes` ends.
#[inline(always)]
fn word_end(bytes: &[u8], from: usize) -> usize {
    let mut end = from + 1;
    while let Some(&b) = bytes.get(end) {
        if ends_word(b) {
            break;
        }
        end += 1;
    }
    end
}

/// Where the first `}` at or after byte `from` of `bytes` is. Most comments are short (a
/// clock, an evaluation): eight bytes at a time first, without setting up memchr.
#[inline]
fn find_close(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default()) ^ (ONES * 0x7d);
        // A high bit marks a zero byte of `word`, a `}`: the lowest mark is exact (a false
        // mark is only ever above a true one).
        let found = word.wrapping_sub(ONES) & !word & (ONES * 0x80);
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
        if at - from >= 32 {
            return memchr(b'}', &bytes[at..]).map(|n| at + n);
        }
    }
    bytes[at..].iter().position(|&b| b == b'}').map(|n| at + n)
}

/// `tag-section` from byte `start` of `text` when every tag pair is plain: no escape in a
/// value, and nothing the rule refuses (`None` then). The tags have no spans; they are
/// written over the ones `tags` holds from the game before, so that their text reuses the
/// space it had. Returns where the section ends.
fn plain_tag_section(text: &str, start: usize, tags: &mut Vec<Tag>) -> Option<usize> {
    let mut count = 0;
    let end = plain_tags(text, start, |name, value| {
        match tags.get_mut(count) {
            // Most games of a file have the same tags in the same order, and many values
            // are those of the game before (the event, the date, the time control).
            Some(tag) => {
                if name.len() <= INLINE_TEXT && !tag.name.is_heap_allocated() {
                    tag.name = CompactString::new(name);
                } else if tag.name != name {
                    tag.name.clear();
                    tag.name.push_str(name);
                }
                if value.len() <= INLINE_TEXT && !tag.value.is_heap_allocated() {
                    // Made in place, without a comparison or a copy call.
                    tag.value = CompactString::new(value);
                } else if tag.value != value {
                    tag.value.clear();
                    tag.value.push_str(value);
                }
            }
            None => tags.push(Tag {
                name: CompactString::new(name),
                value: CompactString::new(value),
                span: Span::default(),
            }),
        }
        count += 1;
    });
    tags.truncate(count);
    end
}

/// The longest text a [`CompactString`] holds without allocating.
const INLINE_TEXT: usize = std::mem::size_of::<CompactString>();

/// Reads plain tag pairs from byte `i` of `text`, handing each name and value to `tag`.
fn plain_tags(text: &str, mut i: usize, mut tag: impl FnMut(&str, &str)) -> Option<usize> {
    let bytes = text.as_bytes();
    let blanks = |mut i: usize| {
        while matches!(bytes.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        i
    };
    loop {
        // The usual gap between two tag pairs, a newline, is seen at once.
        if bytes.get(i) == Some(&b'\n') && bytes.get(i + 1) == Some(&b'[') {
            i += 1;
        } else {
            i = gap_end(bytes, i, false);
            if bytes.get(i) != Some(&b'[') {
                return Some(i);
            }
        }
        let name_start = blanks(i + 1);
        i = name_start;
        while bytes.get(i).is_some_and(|&b| NAME_CHARS[usize::from(b)]) {
            i += 1;
        }
        let name = &text[name_start..i];
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
        tag(name, &text[value_start..value_start + length]);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::locate::index_lines;
    use proptest::prelude::*;
    use proptest::test_runner::{FileFailurePersistence, RngSeed};

    /// What a visitor that takes everything saw, owned.
    #[derive(Debug, Default)]
    struct Seen {
        tags: Vec<(String, String)>,
        tokens: Vec<Owned>,
        end: Option<Option<GameResult>>,
    }

    #[derive(Clone, Debug, PartialEq, Eq)]
    enum Owned {
        Comment(String),
        Nag,
        Turn(String, Option<u32>, bool),
    }

    impl Visitor for Seen {
        fn tags(&mut self, record: &Record) -> bool {
            self.tags = (record.tags.iter())
                .map(|tag| (tag.name.to_string(), tag.value.to_string()))
                .collect();
            true
        }

        fn token(&mut self, token: Token<'_>) -> bool {
            self.tokens.push(match token {
                Token::Comment(text) => Owned::Comment(text.to_owned()),
                Token::Nag => Owned::Nag,
                Token::Turn(token, number) => {
                    Owned::Turn(token.to_owned(), number.number, number.ellipsis)
                }
            });
            true
        }

        fn end(&mut self, result: Option<GameResult>) -> bool {
            self.end = Some(result);
            true
        }
    }

    /// The main line of `record` as the tokens the streaming grammar hands on (comments
    /// collapsed, as the record keeps them).
    fn tokens_of(record: &Record) -> Vec<Owned> {
        let mut tokens: Vec<_> = (record.moves.comments.iter())
            .map(|comment| Owned::Comment(comment.text.to_string()))
            .collect();
        for turn in &record.moves.turns {
            let number = turn.number;
            tokens.push(Owned::Turn(
                turn.token.to_string(),
                number.number,
                number.ellipsis,
            ));
            tokens.extend(turn.nags.iter().map(|_| Owned::Nag));
            tokens.extend(
                (turn.comments.iter()).map(|comment| Owned::Comment(comment.text.to_string())),
            );
        }
        tokens
    }

    /// The streamed tokens with each comment collapsed and the glyphs after a turn put
    /// before its comments, as a record holds them.
    fn as_recorded(tokens: &[Owned]) -> Vec<Owned> {
        let mut out: Vec<Owned> = Vec::new();
        let mut comments: Vec<Owned> = Vec::new();
        for token in tokens {
            match token {
                Owned::Comment(text) => comments.push(Owned::Comment(collapse_spaces(text).into())),
                Owned::Nag => out.push(Owned::Nag),
                Owned::Turn(..) => {
                    out.append(&mut comments);
                    out.push(token.clone());
                }
            }
        }
        out.append(&mut comments);
        out
    }

    /// Streams every game of `text` and reads each with the full grammar too: a game
    /// streamed to its end reads as a plain record with the same tags, tokens, result and
    /// end; one given up is not plain (an error, a variation, an escape in a tag value).
    fn stream_agrees_with_game(text: &str) -> Result<(), TestCaseError> {
        let start = Span::START;
        let mut line_starts = Vec::new();
        index_lines(text, &mut line_starts);
        let mut scratch = Scratch::default();
        let mut record = Record::default();
        let mut pos = 0;
        while pos < text.len() {
            let mut seen = Seen::default();
            let streamed = stream(text, pos, &mut record, &mut seen);
            let mut locator = Locator::new(text, start, &line_starts);
            let full = game(text, pos, &mut locator, &mut scratch);
            let Some(end) = streamed else {
                match full {
                    Ok(Some(parsed)) => {
                        let variations = (parsed.record.moves.turns.iter())
                            .any(|turn| !turn.variations.is_empty());
                        prop_assert!(
                            variations || text[pos..].contains('\\'),
                            "given up but plain at {}: {:?}",
                            pos,
                            &text[pos..]
                        );
                        pos = parsed.end;
                    }
                    // Nothing left, or not readable: the reader goes on after the chunk.
                    Ok(None) | Err(_) => break,
                }
                continue;
            };
            let parsed = full
                .map_err(|error| TestCaseError::fail(format!("streamed, not read: {error:?}")))?
                .ok_or_else(|| TestCaseError::fail("streamed, no game"))?;
            prop_assert_eq!(end, parsed.end);
            let tags: Vec<_> = (parsed.record.tags.iter())
                .map(|tag| (tag.name.to_string(), tag.value.to_string()))
                .collect();
            prop_assert_eq!(&seen.tags, &tags);
            prop_assert_eq!(&record.tags, &parsed.record.tags);
            prop_assert_eq!(as_recorded(&seen.tokens), tokens_of(&parsed.record));
            prop_assert_eq!(seen.end, Some(parsed.record.result));
            prop_assert!(end > pos);
            pos = end;
        }
        Ok(())
    }

    /// Movetext-like text: the pieces a game is made of, odd ones among them.
    fn pgnish() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("[Event \"x\"]\n"),
            Just("[Site \"a \\\" b\"]"),
            Just("[ White\t\"\" ]\n"),
            Just("\n[Result \"1-0\"]\n\n"),
            Just("1."),
            Just("12. "),
            Just("1..."),
            Just("4294967296."),
            Just("4294967295. "),
            Just("..."),
            Just(".."),
            Just(" e4"),
            Just(" Nf3"),
            Just(" exd5+"),
            Just(" O-O"),
            Just(" 0-0"),
            Just(" 0000"),
            Just("!?"),
            Just("!!!"),
            Just(" !"),
            Just(" $12"),
            Just(" $255"),
            Just(" $256"),
            Just(" $0001"),
            Just(" $"),
            Just(" { [%clk 0:05:00] }"),
            Just(" {"),
            Just("}"),
            Just(" ("),
            Just(")"),
            Just(";c"),
            Just("\n"),
            Just("\n%"),
            Just(" 1-0"),
            Just(" 1/2-1/2"),
            Just(" 0-1!"),
            Just(" *"),
            Just("\r\n"),
            Just("\t"),
            Just("["),
            Just("]"),
            Just("\""),
            Just("é"),
        ];
        let pieces = proptest::collection::vec(
            prop_oneof![8 => piece.prop_map(str::to_owned), 1 => "[ -~]{1,4}"],
            0..40,
        );
        pieces.prop_map(|pieces| pieces.concat())
    }

    fn config(cases: u32) -> ProptestConfig {
        let base = ProptestConfig::default();
        ProptestConfig {
            cases,
            rng_seed: match base.rng_seed {
                RngSeed::Random => RngSeed::Fixed(17),
                chosen => chosen,
            },
            failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
                "target/proptest-regressions/grammar.txt",
            ))),
            ..base
        }
    }

    proptest! {
        #![proptest_config(config(2000))]

        #[test]
        fn streaming_reads_what_the_grammar_reads(text in pgnish()) {
            stream_agrees_with_game(&text)?;
        }

        #[test]
        fn streaming_reads_odd_bytes_as_the_grammar_does(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            stream_agrees_with_game(&String::from_utf8_lossy(&bytes))?;
        }
    }

    /// [`number_prefix`] by its definition: runs of digits and dots, each number read by
    /// `str::parse`.
    fn number_prefix_by_definition(word: &str) -> (usize, Option<u32>, bool) {
        let (mut at, mut number, mut ellipsis) = (0, None, false);
        loop {
            let digits = word[at..].bytes().take_while(u8::is_ascii_digit).count();
            let dots = word[at + digits..]
                .bytes()
                .take_while(|&b| b == b'.')
                .count();
            if dots == 0 {
                return (at, number, ellipsis);
            }
            if digits > 0 {
                number = word[at..at + digits].parse::<u32>().ok();
                ellipsis = dots > 1;
            } else {
                ellipsis |= dots > 1;
            }
            at += digits + dots;
        }
    }

    /// Words made of digits, dots and the starts of turns.
    fn numberish() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("1"),
            Just("0"),
            Just("9"),
            Just("12"),
            Just("4294967295"),
            Just("4294967296"),
            Just("999999999"),
            Just("."),
            Just("..."),
            Just("e4"),
            Just("-0"),
            Just("!"),
        ];
        proptest::collection::vec(piece, 0..6).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(config(3000))]

        #[test]
        fn move_numbers_are_read_by_their_definition(word in numberish()) {
            let (skip, written) = number_prefix(word.as_bytes());
            prop_assert_eq!(
                (skip, written.number, written.ellipsis),
                number_prefix_by_definition(&word),
                "{}", word
            );
            if let Some((skip, written)) = plain_number(word.as_bytes()) {
                prop_assert_eq!(
                    (skip, written.number, written.ellipsis),
                    number_prefix_by_definition(&word),
                    "{}", word
                );
            }
        }

        #[test]
        fn a_comment_closes_at_the_first_brace(
            bytes in proptest::collection::vec(prop_oneof![Just(b'}'), Just(b'x'), Just(0xfd), any::<u8>()], 0..120),
            from in 0usize..130,
        ) {
            let from = from.min(bytes.len());
            let expected = bytes[from..].iter().position(|&b| b == b'}').map(|n| from + n);
            prop_assert_eq!(find_close(&bytes, from), expected);
        }
    }

    #[test]
    fn usual_move_numbers_are_read_in_one_step() {
        for word in ["1.", "12...", "1.e4", "999999999.", "3..Nf6"] {
            assert!(plain_number(word.as_bytes()).is_some(), "{word}");
        }
        for word in ["1.1.", "1", "...", "1234567890.", "e4"] {
            assert!(plain_number(word.as_bytes()).is_none(), "{word}");
        }
    }

    #[test]
    fn move_numbers_are_read_as_str_parse_reads_them() {
        let cases: [(&str, usize, Option<u32>, bool); 10] = [
            ("3..Nf6", 3, Some(3), true),
            ("1.", 2, Some(1), false),
            ("12...Nf3", 5, Some(12), true),
            ("1.2.e4", 4, Some(2), false),
            ("1...2.e4", 6, Some(2), false),
            ("4294967295.", 11, Some(u32::MAX), false),
            ("4294967296.", 11, None, false),
            ("..e4", 2, None, true),
            (".e4", 1, None, false),
            ("1-0", 0, None, false),
        ];
        for (word, skip, number, ellipsis) in cases {
            let (skipped, written) = number_prefix(word.as_bytes());
            assert_eq!(
                (skipped, written.number, written.ellipsis),
                (skip, number, ellipsis),
                "{word}"
            );
        }
    }
}
