//! Validating many files of games at once, in parallel, with the output in file order.
//!
//! [`validate`] takes files (plain or compressed with gzip, zstd or bzip2, told apart by
//! their first bytes; `-` is standard input) and hands every game, replayed and judged, to
//! a [`Visitor`] that writes what it wants to say about it; [`files`] finds the game files
//! in folders. With more than one job the games are replayed by a pool of threads, each
//! visiting its own games into a buffer of its own, and the buffers are written in the
//! order of the files and games, so that the output is the same, byte for byte, whatever
//! the number of jobs. Memory stays flat however large the input.
//!
//! How: the calling thread reads each file in blocks of raw bytes cut at game boundaries
//! and hands them to the workers through a bounded channel; each worker reads its block
//! with a reader that starts there ([`Reader::at`]), so games, findings and spans are
//! those of one reader of the whole file. A worker does not know how many games came
//! before its block: the visitor writes numbers through [`Lines::game`], the worker's
//! buffer keeps where each goes, and the calling thread writes the buffers in order with
//! the numbers filled in. A chunk of games without tags larger than a block is cut into
//! parts where a game most likely begins; what a worker cannot be sure of there is read
//! again on the calling thread. The details are in the source of the private module
//! `parallel`.
//!
//! This module reads files and folders (and standard input); it writes only to the
//! writer it is given. `pbem validate` is a visitor that prints text or JSON lines.
//!
//! ```
//! use std::io::Write;
//! use pbem::batch::{self, Game, Lines, Options};
//!
//! let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
//! let files = batch::files(&[examples.into()], false, &mut |_, _| {})?;
//! // Runs on the thread that replayed the game; numbers go through `Lines::game`, so
//! // that they count from the first game of the file whichever thread writes.
//! let say = |game: &Game<'_>, out: &mut dyn Lines| -> std::io::Result<()> {
//!     if !game.is_valid() {
//!         write!(out, "{}: game ", game.file)?;
//!         out.game(game.report.game)?;
//!         writeln!(out, " has {} errors", game.report.errors().count())?;
//!     }
//!     Ok(())
//! };
//! let options = Options { jobs: 2, ..Options::default() };
//! let mut out = Vec::new();
//! let total = batch::validate(&files, &options, &say, &mut out, None)?;
//! assert_eq!(total.files, files.len());
//! assert!(total.invalid > 0 && total.valid > 0);
//! let said = String::from_utf8(out)?;
//! assert!(said.contains("mistakes.pgn: game 1 has"), "{said}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod open;
mod parallel;

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use encoding_rs::Encoding;

use crate::fair::{self, Fairness};
use crate::notation::{Decoded, ParseError, ReadError, Reader, Record, Span};
use crate::replay::stream::AnyStreamer;
use crate::replay::{self, Report};

pub use open::{ByteCounts, Compression, files, open};

/// How to read and judge the games.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// How many games to replay at once: 1 replays one game after another on the calling
    /// thread; 0 means one per core.
    pub jobs: usize,
    /// How strictly the end of a game is judged.
    pub replay: replay::Options,
    /// How to read text that is not UTF-8, or `None` to take it as an unreadable game.
    pub encoding: Option<&'static Encoding>,
    /// Whether every report carries its final position string (a game replayed as it
    /// streams by, most orthodox chess games, has it only when asked: writing it is the
    /// one cost such a game may skip).
    pub final_position: bool,
}

impl Default for Options {
    /// One job per core, the default judgement, Windows-1252 for text that is not UTF-8,
    /// no final positions.
    fn default() -> Options {
        Options {
            jobs: 0,
            replay: replay::Options::default(),
            encoding: Some(encoding_rs::WINDOWS_1252),
            final_position: false,
        }
    }
}

/// One game, replayed and judged, as a [`Visitor`] sees it.
#[derive(Clone, Copy, Debug)]
pub struct Game<'a> {
    /// The file's name as shown (`<stdin>` for standard input).
    pub file: &'a str,
    /// What the replay found; `report.game` is the game's number, to be written through
    /// [`Lines::game`].
    pub report: &'a Report,
    /// The record, or `None` when the game could not be read. A game replayed as it
    /// streamed by (valid, with nothing found) has its tags only.
    pub record: Option<&'a Record>,
    /// Whether a valid game's chance is proven fair, not proven, or broken; `None` for a
    /// game without chance or one that is not valid.
    pub fairness: Option<&'a Fairness>,
    /// The game's text, which the findings' spans point into (empty when nothing was
    /// found), and where it starts in the file.
    pub text: &'a str,
    /// Where `text` starts in the file.
    pub start: Span,
}

impl Game<'_> {
    /// Whether the game's chance is broken, which makes a valid record invalid.
    #[must_use]
    pub fn broken(&self) -> bool {
        matches!(self.fairness, Some(Fairness::Broken { .. }))
    }

    /// Whether the game is valid: the record and its chance.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.report.is_valid() && !self.broken()
    }
}

/// What to do with each game, and with the end of each file.
///
/// [`Visitor::game`] is called on the thread that replayed the game, with a buffer of
/// that thread's; the buffers are written out in file order. A closure
/// `Fn(&Game, &mut dyn Lines) -> io::Result<()>` is a visitor that says nothing else.
pub trait Visitor: Sync {
    /// Writes what is to be said of `game`, its number through [`Lines::game`].
    ///
    /// # Errors
    ///
    /// An error writing; it stops the validation.
    fn game(&self, game: &Game<'_>, out: &mut dyn Lines) -> io::Result<()>;

    /// Writes what is to be said at the end of file `name`, after its games, on the
    /// calling thread.
    ///
    /// # Errors
    ///
    /// An error writing; it stops the validation.
    fn end_file(&self, name: &str, tally: &Tally, out: &mut dyn Write) -> io::Result<()> {
        let _ = (name, tally, out);
        Ok(())
    }

    /// The first game of file `name` that was not UTF-8 and how it was read, once a file,
    /// on the calling thread.
    fn decoded(&self, name: &str, decoded: Decoded) {
        let _ = (name, decoded);
    }
}

impl<F> Visitor for F
where
    F: Fn(&Game<'_>, &mut dyn Lines) -> io::Result<()> + Sync,
{
    fn game(&self, game: &Game<'_>, out: &mut dyn Lines) -> io::Result<()> {
        self(game, out)
    }
}

/// Where the lines about games go. A game's number goes through [`Lines::game`], so that
/// a worker of the parallel validation, which does not know how many games came before
/// its piece of a file, can leave it to be filled in.
pub trait Lines: Write {
    /// Writes the number of game `number`.
    ///
    /// # Errors
    ///
    /// An error writing.
    fn game(&mut self, number: usize) -> io::Result<()>;
}

/// Lines written straight out, numbers and all.
pub struct Direct<'a>(pub &'a mut dyn Write);

impl Write for Direct<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Lines for Direct<'_> {
    fn game(&mut self, number: usize) -> io::Result<()> {
        write!(self.0, "{number}")
    }
}

/// A progress bar, told how far the validation is.
pub trait Progress {
    /// Where the bytes of the file being opened are counted.
    fn counts(&self) -> &ByteCounts;

    /// Counts `games` more games and moves to `end` bytes into the current file's text,
    /// if that is further (when games are read elsewhere than the bytes).
    fn advance(&mut self, end: u64, games: u64);

    /// Ends the current file.
    fn end_file(&mut self);
}

/// Counts over one file or all files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Files validated.
    pub files: usize,
    /// Games read.
    pub games: usize,
    /// Valid games.
    pub valid: usize,
    /// Invalid games (unreadable, illegal, broken chance).
    pub invalid: usize,
    /// Games of a game pbem does not know.
    pub unsupported: usize,
}

impl Tally {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: Tally) {
        self.files += other.files;
        self.games += other.games;
        self.valid += other.valid;
        self.invalid += other.invalid;
        self.unsupported += other.unsupported;
    }
}

/// Why a validation stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or folder could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file as shown.
        path: String,
        /// What the operating system (or the decompressor) said.
        source: io::Error,
    },
    /// The name promises a compression that the content does not have.
    #[error("{path}: the name says .{extension} but the content is not {format} data")]
    NotCompressed {
        /// The file as shown.
        path: String,
        /// The extension, without its dot.
        extension: &'static str,
        /// The compression it names.
        format: &'static str,
    },
    /// A folder without game files.
    #[error("{0}: no .pgn files in this folder")]
    NoGameFiles(String),
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Output(#[from] io::Error),
}

/// A path as shown: `<stdin>` for `-`.
#[must_use]
pub fn display_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

/// Validates every game of `files`, in order, on `options.jobs` threads, handing each to
/// `visitor`, which writes into `out` in file order; returns the counts over all files.
///
/// # Errors
///
/// A file that cannot be opened or read, or an error writing, after the output of the
/// games before it.
pub fn validate(
    files: &[PathBuf],
    options: &Options,
    visitor: &dyn Visitor,
    out: &mut dyn Write,
    mut progress: Option<&mut dyn Progress>,
) -> Result<Tally, Error> {
    let jobs = match options.jobs {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        jobs => jobs,
    };
    if jobs > 1 {
        return parallel::validate_files(files, jobs, options, visitor, out, progress);
    }
    let mut total = Tally::default();
    for path in files {
        let name = display_name(path);
        let context = Context {
            name: &name,
            options,
            visitor,
        };
        let tally = validate_file(path, context, lend(&mut progress), out)?;
        end_file(&name, tally, visitor, &mut total, out)?;
    }
    Ok(total)
}

/// `progress` lent for a call: the trait object's lifetime shortened to the loan's, so
/// that it can be lent again after.
fn lend<'a>(progress: &'a mut Option<&mut dyn Progress>) -> Option<&'a mut dyn Progress> {
    progress
        .as_mut()
        .map(|progress| &mut **progress as &mut dyn Progress)
}

/// Adds a file's tally to the total and lets the visitor say how the file went.
fn end_file(
    name: &str,
    mut tally: Tally,
    visitor: &dyn Visitor,
    total: &mut Tally,
    out: &mut dyn Write,
) -> Result<(), Error> {
    tally.files = 1;
    visitor.end_file(name, &tally, out)?;
    total.add(tally);
    Ok(())
}

/// Validates one file game after game on this thread (one job).
fn validate_file(
    path: &Path,
    context: Context<'_>,
    mut progress: Option<&mut dyn Progress>,
    out: &mut dyn Write,
) -> Result<Tally, Error> {
    let counts = progress.as_deref().map(Progress::counts);
    let mut reader =
        Reader::new(open(path, counts)?).with_fallback_encoding(context.options.encoding);
    let mut tally = Tally::default();
    let mut warned = false;
    validate_games(
        &mut reader,
        context,
        &mut Streamed::default(),
        &mut tally,
        &mut Direct(out),
        &mut |reader| {
            if !warned && let Some(decoded) = reader.decoded() {
                warned = true;
                context.visitor.decoded(context.name, decoded);
            }
            if let Some(progress) = lend(&mut progress) {
                let (text, start) = reader.game_text();
                progress.advance((start.offset + text.len()) as u64, 1);
            }
        },
    )?;
    if let Some(progress) = progress {
        progress.end_file();
    }
    Ok(tally)
}

/// The file whose games are validated, and how.
#[derive(Clone, Copy)]
struct Context<'a> {
    /// The file's name as shown.
    name: &'a str,
    options: &'a Options,
    visitor: &'a dyn Visitor,
}

/// Validates the games `reader` gives, counting them in `tally` and writing what is found
/// to `out`; `each` looks at the reader after each game.
fn validate_games<R: BufRead>(
    reader: &mut Reader<R>,
    context: Context<'_>,
    streamed: &mut Streamed,
    tally: &mut Tally,
    out: &mut dyn Lines,
    each: &mut dyn FnMut(&Reader<R>),
) -> Result<(), Error> {
    while let Some(item) = reader.next_streamed(&mut streamed.tags, &mut streamed.streamer) {
        each(reader);
        let item = match item {
            Ok(None) => {
                streamed.write(context, tally, out)?;
                continue;
            }
            Ok(Some(record)) => Ok(record),
            Err(ReadError::Io(source)) => {
                return Err(Error::Read {
                    path: context.name.to_owned(),
                    source,
                });
            }
            Err(ReadError::Parse(error)) => Err(error),
        };
        let (text, start) = reader.game_text();
        validate_game(item, context, text, start, tally, out)?;
    }
    Ok(())
}

/// The plain games that the reader streams (most of them): replayed as they are read,
/// without a record (see [`replay::stream`]).
#[derive(Default)]
struct Streamed {
    streamer: AnyStreamer,
    /// The tags of the game streamed last (the rest of the record stays empty).
    tags: Record,
}

impl Streamed {
    /// Counts the game streamed last and hands it to the visitor: valid, with nothing
    /// found, as [`validate_game`] would have found it.
    fn write(
        &mut self,
        context: Context<'_>,
        tally: &mut Tally,
        out: &mut dyn Lines,
    ) -> Result<(), Error> {
        let report = self
            .streamer
            .take_report(context.options.final_position)
            .expect("a streamed game has a report");
        tally.games += 1;
        tally.valid += 1;
        let game = Game {
            file: context.name,
            report: &report,
            record: Some(&self.tags),
            fairness: None,
            // Nothing found: the source is never shown.
            text: "",
            start: self.tags.span,
        };
        Ok(context.visitor.game(&game, out)?)
    }
}

/// Replays one game read from `text` (or reports why it could not be read), counts it
/// and hands it to the visitor.
fn validate_game(
    item: Result<Record, ParseError>,
    context: Context<'_>,
    text: &str,
    start: Span,
    tally: &mut Tally,
    out: &mut dyn Lines,
) -> Result<(), Error> {
    tally.games += 1;
    let (report, record) = match item {
        Ok(record) => (
            replay::replay_with(&record, context.options.replay),
            Some(record),
        ),
        Err(error) => (Report::unreadable(&error), None),
    };
    // A valid record's chance: proven fair, not proven, or broken (then invalid).
    let fairness = record
        .as_ref()
        .filter(|_| report.is_valid())
        .map(fair::check)
        .filter(|fairness| *fairness != Fairness::NoChance);
    let game = Game {
        file: context.name,
        report: &report,
        record: record.as_ref(),
        fairness: fairness.as_ref(),
        text,
        start,
    };
    if game.is_valid() {
        tally.valid += 1;
    } else if report.is_unsupported() {
        tally.unsupported += 1;
    } else {
        tally.invalid += 1;
    }
    Ok(context.visitor.game(&game, out)?)
}
