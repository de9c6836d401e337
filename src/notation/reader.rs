//! The streaming reader: bytes in, one [`Record`] at a time out, in flat memory.
//!
//! Reading has two steps. A splitter looks at the bytes once, as they come, and finds
//! where each game begins (a `[` that starts a line after movetext); the bytes of one game
//! are kept, checked as UTF-8 and handed to the grammar (`notation/grammar.md`). A
//! malformed game therefore costs only itself: the next game starts at the next boundary.

use std::io::{self, BufRead};

use memchr::{memchr, memchr2, memchr3, memrchr2};

use super::error::{ParseError, ReadError};
use super::grammar::{self, Scratch, SyntaxError, Visitor};
use super::locate::{Cursor, Locator, index_lines, locate_by_counting};
use super::record::{Record, Span};

/// The largest game the reader keeps in memory by default: 16 MiB.
pub const DEFAULT_MAX_GAME_BYTES: usize = 16 << 20;

/// Reads games one at a time from a buffered byte stream.
///
/// Each call to [`Iterator::next`] returns the next game, or the error that stopped it;
/// after a parse error the following call goes on with the next game. Memory stays flat:
/// only one game's text is held at a time, and a game larger than the limit (16 MiB by
/// default) is an error, not an allocation.
///
/// ```
/// use pbem::notation::read_str;
///
/// let games: Vec<_> = read_str("[White \"A\"]\n\n1. e4 e5 1-0\n\n[White \"B\"]\n\n1. d4 *\n")
///     .collect::<Result<_, _>>()
///     .unwrap();
/// assert_eq!(games.len(), 2);
/// assert_eq!(games[1].moves.turns[0].token, "d4");
/// ```
#[derive(Debug)]
pub struct Reader<R> {
    inner: R,
    splitter: Splitter,
    max_game_bytes: usize,
    /// The bytes of the chunk being read (one game, or several games without tags).
    buffer: Vec<u8>,
    /// The current chunk as text.
    text: String,
    /// The offsets in `text` just after each newline, once `indexed`.
    line_starts: Vec<usize>,
    /// `line_starts` and `cursor` are made for `text` (only when a game is located: a
    /// streamed game needs neither).
    indexed: bool,
    /// Buffers the grammar reuses from game to game.
    scratch: Scratch,
    /// Where locating stopped in `text` (games without tags share one chunk).
    cursor: Cursor,
    /// Where `text` starts in the input.
    chunk_start: Span,
    /// Where the next chunk starts in the input.
    next_start: Span,
    /// The next chunk starts with a `[` already consumed from `inner`.
    seed_bracket: bool,
    /// Where in `text` the next game may start.
    pos: usize,
    /// The text of the game last returned, as a range of `text`.
    game_range: std::ops::Range<usize>,
    /// Where that game's text starts, when `game_located` (a streamed game's start is
    /// worked out when asked for).
    game_start: Span,
    game_located: bool,
    /// Games returned so far (read or failed).
    games: usize,
    /// Absolute offset of the next byte of `inner`.
    offset: usize,
    /// No more bytes will come (end of input, or a read error was returned).
    finished: bool,
    /// The very first bytes have been looked at (for a byte order mark).
    started: bool,
    /// How to read a game that is not UTF-8 (`None`: it is an error).
    fallback: Option<&'static encoding_rs::Encoding>,
    /// The first game read through `fallback`, and how many were.
    decoded: Option<Decoded>,
}

/// Where one chunk of raw input (the bytes up to the next game boundary: one game, or
/// several games without tags) was in the input, as [`Reader::next_chunk`] finds it.
///
/// A parallel reader splits the input into chunks on one thread (cheap: the splitter looks
/// at each byte once, with memchr) and parses them elsewhere with [`Reader::feed`], which
/// gives the same records, errors and spans as reading the whole input in one reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Where the chunk's first byte is in the input.
    pub start: Span,
    /// The chunk's length in the input, which exceeds the bytes kept when the chunk is
    /// larger than the game size limit.
    pub length: usize,
}

/// Games that were not UTF-8 and were read in the fallback encoding
/// ([`Reader::with_fallback_encoding`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Where the first byte that is not UTF-8 was.
    pub first: Span,
    /// That byte.
    pub byte: u8,
    /// The game it was in.
    pub game: usize,
    /// How many games were decoded so far.
    pub games: usize,
    /// The encoding they were read in.
    pub encoding: &'static encoding_rs::Encoding,
}

impl<R: BufRead> Reader<R> {
    /// A reader of the games in `inner`.
    pub fn new(inner: R) -> Reader<R> {
        let start = Span::START;
        Reader {
            inner,
            splitter: Splitter::new(),
            max_game_bytes: DEFAULT_MAX_GAME_BYTES,
            buffer: Vec::new(),
            text: String::new(),
            line_starts: Vec::new(),
            indexed: true,
            scratch: Scratch::default(),
            cursor: Cursor::default(),
            chunk_start: start,
            next_start: start,
            seed_bracket: false,
            pos: 0,
            game_range: 0..0,
            game_start: start,
            game_located: true,
            games: 0,
            offset: 0,
            finished: false,
            started: false,
            fallback: None,
            decoded: None,
        }
    }

    /// A reader of the rest of an input from a game boundary (as [`Boundaries`] finds it)
    /// at `start`, or from the start of the input after its byte order mark: the games are
    /// those a reader of the whole input gives from there, with the same spans, numbered
    /// from 1. A byte order mark is not looked for.
    pub fn at(inner: R, start: Span) -> Reader<R> {
        let mut reader = Reader::new(inner);
        reader.started = true;
        reader.offset = start.offset;
        reader.chunk_start = start;
        reader.next_start = start;
        reader.game_start = start;
        reader.splitter = Splitter::at(start);
        reader
    }

    /// Reads a game that is not valid UTF-8 in `encoding` (Windows-1252 for most old
    /// archives) instead of refusing it; [`Reader::decoded`] then says where the first such
    /// game was. Lines and columns stay exact; byte offsets inside such a game count
    /// the decoded text.
    #[must_use]
    pub fn with_fallback_encoding(
        mut self,
        encoding: Option<&'static encoding_rs::Encoding>,
    ) -> Reader<R> {
        self.set_fallback_encoding(encoding);
        self
    }

    /// [`Reader::with_fallback_encoding`] on a reader already made.
    pub fn set_fallback_encoding(&mut self, encoding: Option<&'static encoding_rs::Encoding>) {
        self.fallback = encoding.filter(|encoding| *encoding != encoding_rs::UTF_8);
    }

    /// The games read so far that were not UTF-8 (decoded in the fallback encoding), if
    /// any.
    #[must_use]
    pub fn decoded(&self) -> Option<Decoded> {
        self.decoded
    }

    /// Sets the size limit of one game, in bytes (16 MiB by default).
    #[must_use]
    pub fn with_max_game_bytes(mut self, bytes: usize) -> Reader<R> {
        self.max_game_bytes = bytes.max(1);
        self
    }

    /// The raw text of the game most recently returned (read or failed), and where its
    /// first byte is in the input, so a caller can show the source line of any span in
    /// that game without reading the input again.
    ///
    /// For a game that is not valid UTF-8, invalid bytes show as U+FFFD; for a game over
    /// the size limit, the text is cut at the limit.
    #[must_use]
    pub fn game_text(&self) -> (&str, Span) {
        let range = self.game_range.clone();
        let start = if self.game_located {
            self.game_start
        } else {
            locate_by_counting(&self.text, self.chunk_start, range.start)
        };
        (self.text.get(range).unwrap_or(""), start)
    }

    /// The number of games returned so far, read or failed.
    #[must_use]
    pub fn games_read(&self) -> usize {
        self.games
    }

    /// Reads the raw bytes of the next chunk of the input (see [`Chunk`]) and appends them
    /// to `into` (at most the game size limit of them), without parsing them; `None` at
    /// the end of the input. Mixing this with [`Iterator::next`] on one reader skips games.
    pub fn next_chunk(&mut self, into: &mut Vec<u8>) -> Option<io::Result<Chunk>> {
        if self.finished && !self.seed_bracket {
            return None;
        }
        match self.read_chunk() {
            Ok(0) if self.finished => None,
            Ok(length) => {
                into.extend_from_slice(&self.buffer);
                Some(Ok(Chunk {
                    start: self.chunk_start,
                    length,
                }))
            }
            Err(error) => {
                self.finished = true;
                self.seed_bracket = false;
                Some(Err(error))
            }
        }
    }

    /// Reads the next chunk of the input (the bytes up to the next game boundary) into
    /// `buffer`. Returns the chunk's length in bytes, which may exceed what was kept.
    fn read_chunk(&mut self) -> io::Result<usize> {
        self.buffer.clear();
        self.chunk_start = self.next_start;
        let mut length = 0;
        if self.seed_bracket {
            self.buffer.push(b'[');
            length = 1;
            self.seed_bracket = false;
        }
        loop {
            let available = match self.inner.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                self.finished = true;
                return Ok(length);
            }
            if !self.started {
                self.started = true;
                length += self.skip_byte_order_mark()?;
                continue;
            }
            let (used, boundary) = self.splitter.scan(available, self.offset);
            let room = self.max_game_bytes.saturating_sub(self.buffer.len());
            self.buffer.extend_from_slice(&available[..used.min(room)]);
            self.inner.consume(used);
            self.offset += used;
            length += used;
            match boundary {
                None => {}
                Some(Boundary::Here { line, column }) => {
                    self.next_start = Span {
                        offset: self.offset,
                        line,
                        column,
                    };
                    return Ok(length);
                }
                Some(Boundary::Behind { line }) => {
                    // The `[` that starts the next game was the last byte consumed.
                    if self.buffer.len() == length {
                        self.buffer.pop();
                    }
                    length -= 1;
                    self.seed_bracket = true;
                    self.next_start = Span {
                        offset: self.offset - 1,
                        line,
                        column: 1,
                    };
                    return Ok(length);
                }
            }
        }
    }

    /// Skips a UTF-8 byte order mark at the start of the input, even one split across
    /// reads. Bytes that begin like one but are not are kept as the start of the first
    /// chunk; returns how many.
    fn skip_byte_order_mark(&mut self) -> io::Result<usize> {
        const MARK: &[u8] = b"\xEF\xBB\xBF";
        let mut head = Vec::new();
        while head.len() < MARK.len() {
            let available = match self.inner.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            let take = available.len().min(MARK.len() - head.len());
            if take == 0 || available[..take] != MARK[head.len()..head.len() + take] {
                break;
            }
            head.extend_from_slice(&available[..take]);
            self.inner.consume(take);
        }
        if head == MARK {
            self.offset = MARK.len();
            self.splitter.line_start = MARK.len();
            self.chunk_start.offset = MARK.len();
            return Ok(0);
        }
        // Part of a mark only: not text that can start a game, so no boundary here.
        let (used, _) = self.splitter.scan(&head, 0);
        self.buffer.extend_from_slice(&head[..used]);
        self.offset = used;
        Ok(used)
    }

    /// Makes the chunk in `buffer` the current text, or says why it cannot be read.
    fn take_chunk(&mut self, length: usize) -> Result<(), ParseError> {
        let bytes = std::mem::take(&mut self.buffer);
        self.pos = 0;
        let (span, message, bytes) = if length > self.max_game_bytes {
            let message = format!(
                "game too large: more than {} bytes before the next game",
                self.max_game_bytes
            );
            (self.chunk_start, message, bytes)
        } else {
            match String::from_utf8(bytes) {
                Ok(text) => {
                    self.buffer = std::mem::replace(&mut self.text, text).into_bytes();
                    self.indexed = false;
                    return Ok(());
                }
                Err(error) => {
                    let valid = error.utf8_error().valid_up_to();
                    let bytes = error.into_bytes();
                    // The valid prefix locates the error.
                    let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
                    index_lines(prefix, &mut self.line_starts);
                    let span =
                        Locator::new(prefix, self.chunk_start, &self.line_starts).locate(valid);
                    if let Some(encoding) = self.fallback {
                        let (text, _) = encoding.decode_without_bom_handling(&bytes);
                        let text = text.into_owned();
                        let games = self.decoded.map_or(0, |decoded| decoded.games) + 1;
                        let first = self.decoded.unwrap_or(Decoded {
                            first: span,
                            byte: bytes[valid],
                            game: self.games + 1,
                            games,
                            encoding,
                        });
                        self.decoded = Some(Decoded { games, ..first });
                        self.buffer = std::mem::replace(&mut self.text, text).into_bytes();
                        self.buffer.clear();
                        self.indexed = false;
                        return Ok(());
                    }
                    let message =
                        format!("expected utf-8 text, found the byte 0x{:02x}", bytes[valid]);
                    (span, message, bytes)
                }
            }
        };
        self.text = String::from_utf8_lossy(&bytes).into_owned();
        self.buffer = bytes;
        index_lines(&self.text, &mut self.line_starts);
        self.indexed = true;
        self.pos = self.text.len();
        self.games += 1;
        self.game_range = 0..self.text.len();
        self.game_start = self.chunk_start;
        self.game_located = true;
        Err(ParseError {
            message,
            span,
            game: self.games,
        })
    }

    /// Reads the next chunk into the text: `None` when the input is finished, an error
    /// when it cannot be read (the reader is then finished) or the chunk cannot be taken.
    fn refill(&mut self) -> Option<Result<(), ReadError>> {
        if self.finished {
            return None;
        }
        let length = match self.read_chunk() {
            Ok(length) => length,
            Err(error) => {
                self.finished = true;
                self.text.clear();
                self.pos = 0;
                return Some(Err(ReadError::Io(error)));
            }
        };
        Some(self.take_chunk(length).map_err(ReadError::Parse))
    }

    /// The next game, streamed to `visitor` when it is plain (see [`Visitor`]), read into a
    /// [`Record`] otherwise: `Some(Ok(None))` when `visitor` took the whole game (its tags
    /// are in `record`, its number is [`Reader::games_read`]), else what
    /// [`Iterator::next`] gives. A game the visitor gives up is read again from its start,
    /// so the visitor must forget what it saw of it when the next one begins.
    pub fn next_streamed<V: Visitor + ?Sized>(
        &mut self,
        record: &mut Record,
        visitor: &mut V,
    ) -> Option<Result<Option<Record>, ReadError>> {
        loop {
            if self.pos < self.text.len() {
                if self.stream_from_text(record, visitor) {
                    return Some(Ok(None));
                }
                if let Some(game) = self.game_from_text() {
                    return Some(game.map(Some).map_err(ReadError::Parse));
                }
            }
            if let Err(error) = self.refill()? {
                return Some(Err(error));
            }
        }
    }

    /// Streams the next game of the current text to `visitor`; false when it is not plain
    /// or the visitor gave it up (nothing is consumed then).
    fn stream_from_text<V: Visitor + ?Sized>(
        &mut self,
        record: &mut Record,
        visitor: &mut V,
    ) -> bool {
        let start = self.pos;
        record.number = self.games + 1;
        let Some(end) = grammar::stream(&self.text, start, record, visitor) else {
            return false;
        };
        self.games += 1;
        self.game_located = false;
        self.game_range = start..end;
        self.pos = end;
        true
    }

    /// Reads the next game from the current text, if there is one.
    fn game_from_text(&mut self) -> Option<Result<Record, ParseError>> {
        if !self.indexed {
            index_lines(&self.text, &mut self.line_starts);
            self.cursor = Cursor::start(&self.text, self.chunk_start);
            self.indexed = true;
        }
        self.game_located = true;
        let start = self.pos;
        // Located going forward from where the last game of this chunk ended.
        let mut locator =
            Locator::resume(&self.text, self.chunk_start, &self.line_starts, self.cursor);
        let game_start = locator.locate(start);
        let parsed = grammar::game(&self.text, start, &mut locator, &mut self.scratch);
        let result = match parsed {
            Ok(None) => {
                self.pos = self.text.len();
                None
            }
            Ok(Some(mut parsed)) => {
                self.games += 1;
                parsed.record.number = self.games;
                self.game_start = game_start;
                self.game_range = start..parsed.end;
                self.pos = parsed.end;
                Some(Ok(parsed.record))
            }
            Err(error) => {
                self.games += 1;
                let error = located(&error, &mut locator, self.games);
                self.game_start = game_start;
                self.game_range = start..self.text.len();
                self.pos = self.text.len();
                Some(Err(error))
            }
        };
        self.cursor = locator.cursor();
        result
    }
}

/// A syntax error with its position resolved in the whole input.
fn located(error: &SyntaxError<'_>, locator: &mut Locator<'_>, game: usize) -> ParseError {
    let offset = locator.text.len() - error.input.len();
    ParseError {
        message: error.message(),
        span: locator.locate(offset),
        game,
    }
}

impl Reader<io::Empty> {
    /// A reader of chunks split elsewhere ([`Reader::next_chunk`]): give it one with
    /// [`Reader::feed`], then take its games with [`Iterator::next`] until `None`.
    #[must_use]
    pub fn for_chunks() -> Reader<io::Empty> {
        let mut reader = Reader::new(io::empty());
        reader.finished = true;
        reader.started = true;
        reader
    }

    /// Makes `bytes`, the chunk `chunk` of an input, the text to read next; the games in
    /// it are numbered on from `games_before`. An error means the chunk cannot be read at
    /// all (too large, or not UTF-8 without a fallback encoding): it counts as one game
    /// whose text is [`Reader::game_text`], and [`Iterator::next`] then gives `None`.
    ///
    /// What [`Reader::decoded`] says covers the chunks fed since [`Reader::forget_decoded`].
    pub fn feed(
        &mut self,
        bytes: &[u8],
        chunk: Chunk,
        games_before: usize,
    ) -> Result<(), ParseError> {
        self.buffer.clear();
        self.buffer.extend_from_slice(bytes);
        self.chunk_start = chunk.start;
        self.games = games_before;
        self.take_chunk(chunk.length)
    }

    /// Forgets the games read in the fallback encoding so far.
    pub fn forget_decoded(&mut self) {
        self.decoded = None;
    }

    /// Where the next game's text starts in the input: after the last game read, or where
    /// the chunk fed last starts. Exact for a chunk that is UTF-8 (a decoded chunk counts
    /// its decoded text).
    #[must_use]
    pub fn next_offset(&self) -> usize {
        self.chunk_start.offset + self.pos
    }

    /// Goes on reading the chunk fed last at `offset` in the input (where a game starts, at
    /// or after [`Reader::next_offset`]), as a reader of the whole chunk would after the games
    /// before it.
    pub fn skip_to(&mut self, offset: usize) {
        let at = offset.saturating_sub(self.chunk_start.offset);
        if at > self.pos && self.text.is_char_boundary(at) {
            self.pos = at;
        }
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.pos < self.text.len()
                && let Some(game) = self.game_from_text()
            {
                return Some(game.map_err(ReadError::Parse));
            }
            if let Err(error) = self.refill()? {
                return Some(Err(error));
            }
        }
    }
}

/// A reader of the games in a string.
#[must_use]
pub fn read_str(text: &str) -> Reader<&[u8]> {
    Reader::new(text.as_bytes())
}

/// Reads exactly one game from `text`: no game, or more than one, is an error.
///
/// ```
/// let record = pbem::notation::parse_record("1. e4 {best by test} e5 *").unwrap();
/// assert_eq!(record.moves.turns[0].comments[0].text, "best by test");
/// ```
pub fn parse_record(text: &str) -> Result<Record, ParseError> {
    let mut reader = read_str(text);
    let into_parse = |error: ReadError| match error {
        ReadError::Parse(error) => error,
        // Reading a byte slice cannot fail.
        ReadError::Io(error) => ParseError {
            message: format!("cannot read the input: {error}"),
            span: Span::default(),
            game: 1,
        },
    };
    let record = match reader.next() {
        None => {
            let start = Span::START;
            let mut line_starts = Vec::new();
            index_lines(text, &mut line_starts);
            let span = Locator::new(text, start, &line_starts).locate(text.len());
            return Err(ParseError {
                message: "expected a game, found the end of the input".to_owned(),
                span,
                game: 1,
            });
        }
        Some(result) => result.map_err(into_parse)?,
    };
    match reader.next() {
        None => Ok(record),
        Some(Ok(next)) => Err(ParseError {
            message: "expected the end of the input after the game, found another game".to_owned(),
            span: next.span,
            game: 2,
        }),
        Some(Err(error)) => Err(into_parse(error)),
    }
}

/// Finds where games begin in raw input, exactly as a [`Reader`] splits it, for a caller
/// that holds the bytes itself (the parallel validation cuts its input into pieces at these
/// boundaries and reads each with [`Reader::at`]).
#[derive(Debug)]
pub struct Boundaries {
    splitter: Splitter,
}

impl Boundaries {
    /// Scanning from a game boundary at `start`, or from the start of an input after its
    /// byte order mark.
    #[must_use]
    pub fn at(start: Span) -> Boundaries {
        Boundaries {
            splitter: Splitter::at(start),
        }
    }

    /// Scans `bytes`, which start at offset `base` of the input and follow the bytes
    /// scanned before, up to the next game boundary. Returns how many bytes were scanned,
    /// and the boundary if there is one: where the next game starts (at `base` plus the
    /// bytes scanned, or one byte before). The next call goes on from there.
    pub fn scan(&mut self, bytes: &[u8], base: usize) -> (usize, Option<Span>) {
        let (used, boundary) = self.splitter.scan(bytes, base);
        let span = boundary.map(|boundary| match boundary {
            Boundary::Here { line, column } => Span {
                offset: base + used,
                line,
                column,
            },
            Boundary::Behind { line } => Span {
                offset: base + used - 1,
                line,
                column: 1,
            },
        });
        (used, span)
    }
}

/// Where the next game begins, found by [`Splitter::scan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Boundary {
    /// At the first byte not consumed, on this line and column.
    Here { line: u32, column: u32 },
    /// At the last byte consumed (a `[` in column 1), on this line.
    Behind { line: u32 },
}

/// Where the splitter is in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lex {
    /// At the start of a line, after white space only; `column1` when nothing at all.
    LineStart { column1: bool },
    /// In movetext, not in a comment.
    Movetext,
    /// In a `{` comment; `column1` right after a newline.
    Brace { column1: bool },
    /// In a `{` comment, after a `[` in column 1.
    BraceBracket,
    /// In a `;` comment or an escape line, up to the newline.
    Skip,
    /// In a tag pair, outside its value.
    Tag,
    /// In a tag value.
    TagValue,
    /// In a tag value, after a backslash.
    TagEscape,
    /// After a tag pair's `]`, on the same line.
    AfterTag,
}

/// Finds the game boundaries in a stream of bytes seen once, in order.
///
/// A game begins at a `[` that is the first non-blank character of a line, once the
/// previous game's movetext has begun, outside a comment. As a guard against a `{` that
/// is never closed, a `[` in column 1 followed by a letter also begins a game inside a
/// comment (the writer never breaks a comment line there).
#[derive(Debug)]
struct Splitter {
    lex: Lex,
    /// The current game's movetext has begun.
    movetext: bool,
    /// The line being scanned, from 1.
    line: u32,
    /// Absolute offset of the line's first byte.
    line_start: usize,
    /// Lines of movetext with comments are looked at a line at a time
    /// ([`Splitter::skim_comments`]); false only to test that against the byte by byte
    /// scan.
    skim: bool,
}

impl Splitter {
    fn new() -> Splitter {
        Splitter {
            lex: Lex::LineStart { column1: true },
            movetext: false,
            line: 1,
            line_start: 0,
            skim: true,
        }
    }

    /// At a game boundary at `start` (the bytes before it on its line are blanks, one
    /// column each), or at the start of an input.
    fn at(start: Span) -> Splitter {
        Splitter {
            line: start.line,
            line_start: start
                .offset
                .saturating_sub(start.column.saturating_sub(1) as usize),
            ..Splitter::new()
        }
    }

    /// From a `{` at `bytes[at]` in movetext, the rest of its line at once (lines of
    /// movetext with a comment after every turn, as lichess writes them, are the most
    /// common kind). With no `;` on it, the state at the line's end is the last brace's:
    /// after a `{`, in a comment, after a `}`, in movetext, whatever came between; so
    /// the line is looked at with memchr, not byte by byte. A line with a `;` is left to
    /// [`Splitter::scan`]. Returns where scanning goes on.
    fn skim_comments(&mut self, bytes: &[u8], at: usize, base: usize) -> usize {
        let end = memchr2(b';', b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
        if bytes.get(end) == Some(&b';') {
            self.lex = Lex::Brace { column1: false };
            return at + 1;
        }
        let line = &bytes[at..end];
        let in_comment = memrchr2(b'{', b'}', line).is_some_and(|last| line[last] == b'{');
        if end == bytes.len() {
            self.lex = if in_comment {
                Lex::Brace { column1: false }
            } else {
                Lex::Movetext
            };
            return end;
        }
        self.newline(base + end);
        if in_comment {
            self.lex = Lex::Brace { column1: true };
        }
        end + 1
    }

    fn newline(&mut self, at: usize) {
        self.line = self.line.saturating_add(1);
        self.line_start = at + 1;
        self.lex = Lex::LineStart { column1: true };
    }

    /// Scans `bytes` (which start at absolute offset `base`) up to the next game
    /// boundary. Returns how many bytes belong to the current game, and the boundary if
    /// one was found.
    fn scan(&mut self, bytes: &[u8], base: usize) -> (usize, Option<Boundary>) {
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes[i];
            match self.lex {
                Lex::LineStart { column1 } => match byte {
                    b'\n' => {
                        self.newline(base + i);
                        i += 1;
                    }
                    b'%' if column1 => self.lex = Lex::Skip,
                    b'[' if self.movetext => {
                        let boundary = Boundary::Here {
                            line: self.line,
                            column: column_of(base + i - self.line_start),
                        };
                        self.movetext = false;
                        return (i, Some(boundary));
                    }
                    b'[' if self.skim
                        && let Some(end) = tag_line_end(bytes, i + 1) =>
                    {
                        self.newline(base + end);
                        i = end + 1;
                    }
                    b'[' => {
                        self.lex = Lex::Tag;
                        i += 1;
                    }
                    _ if byte.is_ascii_whitespace() => {
                        self.lex = Lex::LineStart { column1: false };
                        i += 1;
                    }
                    _ => {
                        self.movetext = true;
                        self.lex = Lex::Movetext;
                    }
                },
                Lex::Movetext => match memchr3(b'{', b';', b'\n', &bytes[i..]) {
                    None => i = bytes.len(),
                    Some(j) => {
                        i += j;
                        match bytes[i] {
                            b'{' if self.skim => i = self.skim_comments(bytes, i, base),
                            b'{' => {
                                self.lex = Lex::Brace { column1: false };
                                i += 1;
                            }
                            b';' => {
                                self.lex = Lex::Skip;
                                i += 1;
                            }
                            _ => {
                                self.newline(base + i);
                                i += 1;
                            }
                        }
                    }
                },
                Lex::Brace { column1: true } if byte == b'[' => {
                    self.lex = Lex::BraceBracket;
                    i += 1;
                }
                Lex::Brace { .. } => match memchr2(b'}', b'\n', &bytes[i..]) {
                    None => {
                        self.lex = Lex::Brace { column1: false };
                        i = bytes.len();
                    }
                    Some(j) => {
                        i += j;
                        if bytes[i] == b'}' {
                            self.lex = Lex::Movetext;
                        } else {
                            self.newline(base + i);
                            self.lex = Lex::Brace { column1: true };
                        }
                        i += 1;
                    }
                },
                Lex::BraceBracket => {
                    if byte.is_ascii_alphabetic() {
                        self.movetext = false;
                        self.lex = Lex::Tag;
                        return (i, Some(Boundary::Behind { line: self.line }));
                    }
                    self.lex = Lex::Brace { column1: false };
                }
                Lex::Skip => match memchr(b'\n', &bytes[i..]) {
                    None => i = bytes.len(),
                    Some(j) => {
                        i += j;
                        self.newline(base + i);
                        i += 1;
                    }
                },
                Lex::Tag
                    if self.skim
                        && let Some(end) = tag_line_end(bytes, i) =>
                {
                    self.newline(base + end);
                    i = end + 1;
                }
                Lex::Tag => match memchr3(b'"', b']', b'\n', &bytes[i..]) {
                    None => i = bytes.len(),
                    Some(j) => {
                        i += j;
                        match bytes[i] {
                            b'"' => self.lex = Lex::TagValue,
                            b']' => self.lex = Lex::AfterTag,
                            _ => self.newline(base + i),
                        }
                        i += 1;
                    }
                },
                Lex::TagValue => match memchr3(b'"', b'\\', b'\n', &bytes[i..]) {
                    None => i = bytes.len(),
                    Some(j) => {
                        i += j;
                        match bytes[i] {
                            b'"' => self.lex = Lex::Tag,
                            b'\\' => self.lex = Lex::TagEscape,
                            _ => self.newline(base + i),
                        }
                        i += 1;
                    }
                },
                Lex::TagEscape => {
                    if byte == b'\n' {
                        self.newline(base + i);
                    } else {
                        self.lex = Lex::TagValue;
                    }
                    i += 1;
                }
                Lex::AfterTag => match byte {
                    b'\n' => {
                        self.newline(base + i);
                        i += 1;
                    }
                    b'[' => {
                        self.lex = Lex::Tag;
                        i += 1;
                    }
                    _ if byte.is_ascii_whitespace() => i += 1,
                    _ => {
                        self.movetext = true;
                        self.lex = Lex::Movetext;
                    }
                },
            }
        }
        (i, None)
    }
}

/// From `bytes[i]` in a tag pair outside its value, the newline that ends the line when
/// [`Splitter::scan`] would go through the rest of the line to it without movetext
/// beginning, seen with one memchr: every state of a tag line goes to the next line at a
/// newline, and movetext can begin on the line only after a `]` closes a tag pair, so a
/// line with no `]`, or whose first `]` is followed by blanks only, ends at its newline
/// (whatever its quotes and backslashes were). `None` for any other line (`[A "1"] [B
/// "2"]`, `[A "1"] 1. e4`, a `]` in a value), and for one not all in `bytes`: those are
/// scanned state by state.
#[inline]
fn tag_line_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut end = i + memchr2(b']', b'\n', &bytes[i..])?;
    if bytes[end] == b']' {
        end += 1;
        while bytes.get(end)? != &b'\n' {
            if !bytes[end].is_ascii_whitespace() {
                return None;
            }
            end += 1;
        }
    }
    Some(end)
}

/// A 1-based column from a count of one-byte characters before it.
fn column_of(bytes_before: usize) -> u32 {
    u32::try_from(bytes_before).map_or(u32::MAX, |n| n.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<String> {
        let mut splitter = Splitter::new();
        let mut games = Vec::new();
        let mut current = String::new();
        let bytes = text.as_bytes();
        let mut i = 0;
        // Feed one byte at a time: boundaries must not depend on how reads are cut.
        while i < bytes.len() {
            let (used, boundary) = splitter.scan(&bytes[i..=i], i);
            current.push_str(&text[i..i + used]);
            i += used;
            match boundary {
                None => {}
                Some(Boundary::Here { .. }) => games.push(std::mem::take(&mut current)),
                Some(Boundary::Behind { .. }) => {
                    current.pop();
                    games.push(std::mem::take(&mut current));
                    current.push('[');
                }
            }
        }
        games.push(current);
        games
    }

    /// The games of `bytes` and each boundary as the splitter finds them, fed in pieces
    /// of the given lengths (cycled), with or without skimming lines of comments; and
    /// where the splitter's lines were at the end.
    fn split_in_pieces(
        bytes: &[u8],
        pieces: &[usize],
        skim: bool,
    ) -> (Vec<(usize, Boundary)>, u32, usize, Lex) {
        let mut splitter = Splitter::new();
        splitter.skim = skim;
        let mut boundaries = Vec::new();
        let mut i = 0;
        let mut piece = pieces.iter().cycle();
        while i < bytes.len() {
            let length = piece.next().copied().unwrap_or(1).max(1);
            let end = (i + length).min(bytes.len());
            let mut at = i;
            while at < end {
                let (used, boundary) = splitter.scan(&bytes[at..end], at);
                at += used;
                if let Some(boundary) = boundary {
                    boundaries.push((at, boundary));
                }
            }
            i = end;
        }
        (boundaries, splitter.line, splitter.line_start, splitter.lex)
    }

    /// Text made of the pieces that change the splitter's state.
    fn splittable() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just("[Event \"x\"]\n"),
            Just("[A \"]\\\"\"]"),
            Just("1. e4 "),
            Just("{ [%clk 0:05:00] } "),
            Just("{"),
            Just("}"),
            Just(";"),
            Just("\n"),
            Just("\n["),
            Just("\n[E"),
            Just("\n%"),
            Just(" ["),
            Just("\""),
            Just("\\"),
            Just("]"),
            Just(" "),
            Just("\r\n"),
            Just("x"),
        ];
        proptest::collection::vec(piece, 0..80).prop_map(|pieces| pieces.concat().into_bytes())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::with_cases(2000)
        })]

        /// Skimming lines of comments finds the boundaries, lines and columns the byte by
        /// byte scan finds, however the input is cut into reads.
        #[test]
        fn skimming_splits_as_the_byte_scan_does(
            bytes in proptest::prop_oneof![
                splittable(),
                proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
            ],
            pieces in proptest::collection::vec(1usize..64, 1..4),
        ) {
            let whole = split_in_pieces(&bytes, &[usize::MAX], false);
            proptest::prop_assert_eq!(&split_in_pieces(&bytes, &pieces, true), &whole);
            proptest::prop_assert_eq!(&split_in_pieces(&bytes, &[usize::MAX], true), &whole);
            proptest::prop_assert_eq!(&split_in_pieces(&bytes, &pieces, false), &whole);
        }
    }

    #[test]
    fn splits_at_tags_after_movetext() {
        let games = split("[A \"1\"]\n\n[B \"]\"]\n1. e4 *\n  [C \"2\"]\n{x\n[%c]}\n[E \"3\"]");
        assert_eq!(
            games,
            [
                "[A \"1\"]\n\n[B \"]\"]\n1. e4 *\n  ",
                "[C \"2\"]\n{x\n[%c]}\n",
                "[E \"3\"]"
            ]
        );
    }

    /// Each game read, with its number left out, as text.
    fn games<R: BufRead>(reader: Reader<R>) -> Vec<String> {
        reader
            .map(|item| match item {
                Ok(mut record) => {
                    record.number = 0;
                    format!("{record:?}")
                }
                Err(ReadError::Parse(mut error)) => {
                    error.game = 0;
                    format!("{error:?}")
                }
                Err(ReadError::Io(error)) => panic!("{error}"),
            })
            .collect()
    }

    #[test]
    fn a_reader_from_each_boundary_reads_the_games_from_there() {
        let text = "\u{feff}[A \"1\"]\n1. e4 {x\n[%c]} *\n  [B \"2\"]\n\n1. d4 *\n1. c4 {oops\n\
                    [C \"\u{e9}\"]\r\n1. Nf3 * 1. e4 e5 *\n\n[D \"4\"] 1. e4 *\n";
        let whole = games(read_str(text));
        let bytes = text.as_bytes();
        // Scanned one byte at a time from after the byte order mark.
        let start = Span {
            offset: 3,
            line: 1,
            column: 1,
        };
        let mut boundaries = Boundaries::at(start);
        let mut found = vec![start];
        let mut i = start.offset;
        while i < bytes.len() {
            let (used, boundary) = boundaries.scan(&bytes[i..=i], i);
            i += used;
            found.extend(boundary);
        }
        let columns: Vec<(u32, u32)> = found.iter().map(|span| (span.line, span.column)).collect();
        assert_eq!(columns, [(1, 1), (4, 3), (8, 1), (11, 1)]);
        // From each boundary, the games of the whole input from there on: fewer each time.
        let mut left = whole.len() + 1;
        for span in found {
            let rest = games(Reader::at(&bytes[span.offset..], span));
            assert!(rest.len() < left, "from {span:?}");
            left = rest.len();
            assert_eq!(rest, whole[whole.len() - left..], "from {span:?}");
        }
    }

    #[test]
    fn a_tag_line_in_an_unclosed_comment_starts_a_game() {
        let games = split("1. e4 {oops\n[Event \"x\"]\n1. d4 *");
        assert_eq!(games, ["1. e4 {oops\n", "[Event \"x\"]\n1. d4 *"]);
    }

    #[test]
    fn escape_lines_and_line_comments_hide_brackets_and_braces() {
        let games = split("1. e4 ; {\n%{\n[A \"1\"] 1. d4 *");
        assert_eq!(games, ["1. e4 ; {\n%{\n", "[A \"1\"] 1. d4 *"]);
    }
}
