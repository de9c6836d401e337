//! `pbem validate`: replay every game of every file and report what is wrong.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use serde::Serialize;

use super::diagnostic::{self, Source};
use super::{CliError, Status, display_path, input};
use crate::fair::{self, Fairness};
use crate::notation::{ParseError, ReadError, Reader, Record};
use crate::replay::stream::AnyStreamer;
use crate::replay::{self, Finding, Options, Report};

/// Arguments of `pbem validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print findings and per-game verdicts as JSON lines instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print only invalid and unsupported games and the summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Take `*` on a game that has ended, and in every game turns after a dead position
    /// or another automatic draw (seventy-five moves, fivefold repetition), as warnings
    /// (archives of over-the-board games write them).
    #[arg(long, conflicts_with = "strict")]
    pub lenient_results: bool,
    /// Take turns after an automatic draw as errors in every game. Without it (and
    /// without --lenient-results) they are errors only in games pbem conducted by mail
    /// (`[Mode "EM"]` with a `[GameId]`) and warnings in others; the result must be the
    /// draw either way.
    #[arg(long)]
    pub strict: bool,
    /// Colour the diagnostics: auto (when standard output is a terminal), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// How many games to replay at once: 1 replays one game after another on one core;
    /// the default is one per core. The output is the same, in file order, either way.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    #[command(flatten)]
    pub input: input::InputArgs,
    /// Game files to check, plain or compressed (`.gz`, `.zst`, `.bz2`); `-` reads
    /// standard input; a folder means the `.pgn` files (and `.pgn.gz`, `.pgn.zst`,
    /// `.pgn.bz2`) in it and its subfolders.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// When to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When standard output is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Counts over one file or all files.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    files: usize,
    games: usize,
    valid: usize,
    invalid: usize,
    unsupported: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.files += other.files;
        self.games += other.games;
        self.valid += other.valid;
        self.invalid += other.invalid;
        self.unsupported += other.unsupported;
    }

    fn describe(&self) -> String {
        let mut text = format!(
            "{} game{}: {} valid",
            self.games,
            if self.games == 1 { "" } else { "s" },
            self.valid
        );
        if self.invalid > 0 {
            text.push_str(&format!(", {} invalid", self.invalid));
        }
        if self.unsupported > 0 {
            text.push_str(&format!(", {} unsupported", self.unsupported));
        }
        text
    }
}

/// One JSON line about a game, after its type, file and game number.
#[derive(Serialize)]
struct GameLine<'a> {
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<&'static str>,
    plies: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    final_position: Option<&'a str>,
    /// Whether the game's chance is proven fair, not proven, or broken (issue 16).
    #[serde(skip_serializing_if = "Option::is_none")]
    chance: Option<String>,
    errors: usize,
    warnings: usize,
}

/// One JSON line about a finding, after its type, file and game number.
#[derive(Serialize)]
struct FindingLine<'a> {
    line: u32,
    column: u32,
    #[serde(flatten)]
    finding: &'a Finding,
}

/// Where the lines about games go. A game's number goes through [`Lines::game`], so that
/// a worker of the parallel validation, which does not know how many games came before
/// its piece of a file, can leave it to be filled in.
trait Lines: Write {
    /// Writes the number of game `number`.
    fn game(&mut self, number: usize) -> std::io::Result<()>;
}

/// Lines written straight out, numbers and all.
struct Direct<'a>(&'a mut dyn Write);

impl Write for Direct<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.0.write_all(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl Lines for Direct<'_> {
    fn game(&mut self, number: usize) -> std::io::Result<()> {
        write!(self.0, "{number}")
    }
}

/// Runs `pbem validate`.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<Status, CliError> {
    let styled = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    };
    let files = input::expand(&args.files, args.input.follow)?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let total = if jobs <= 1 {
        let mut total = Tally::default();
        let mut progress = input::Progress::new(&files, args.quiet);
        for path in &files {
            let name = display_path(path);
            let tally = validate_file(path, &name, args, styled, progress.as_mut(), out)?;
            end_file(&name, tally, args, &mut total, out)?;
        }
        total
    } else {
        parallel::validate_files(&files, jobs, args, styled, out)?
    };
    if !args.json && total.files > 1 {
        writeln!(out, "total: {}", total.describe())?;
    }
    Ok(if total.valid == total.games {
        Status::Ok
    } else {
        Status::Invalid
    })
}

/// Adds a file's tally to the total and says how the file went.
fn end_file(
    name: &str,
    mut tally: Tally,
    args: &Args,
    total: &mut Tally,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    tally.files = 1;
    if !args.json {
        writeln!(out, "{name}: {}", tally.describe())?;
    }
    total.add(tally);
    Ok(())
}

/// Validates one file game after game on this thread (`--jobs 1`).
fn validate_file(
    path: &std::path::Path,
    name: &str,
    args: &Args,
    styled: bool,
    mut progress: Option<&mut input::Progress>,
    out: &mut dyn Write,
) -> Result<Tally, CliError> {
    let mut reader = input::open_with(path, args.input.encoding, progress.as_deref())?;
    let mut tally = Tally::default();
    let mut warned = false;
    let context = Context { name, args, styled };
    validate_games(
        &mut reader,
        context,
        &mut Streamed::default(),
        &mut tally,
        &mut Direct(out),
        &mut |reader| {
            input::warn_decoded(reader, name, &mut warned);
            if let Some(progress) = progress.as_deref_mut() {
                progress.game(reader);
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
    args: &'a Args,
    styled: bool,
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
) -> Result<(), CliError> {
    let Context { name, args, styled } = context;
    while let Some(item) = reader.next_streamed(&mut streamed.tags, &mut streamed.streamer) {
        each(reader);
        let item = match item {
            Ok(None) => {
                streamed.write(name, args, styled, tally, out)?;
                continue;
            }
            Ok(Some(record)) => Ok(record),
            Err(ReadError::Io(source)) => {
                return Err(CliError::Io {
                    path: name.to_owned(),
                    source,
                });
            }
            Err(ReadError::Parse(error)) => Err(error),
        };
        let (text, start) = reader.game_text();
        let source = Source {
            path: name,
            text,
            start,
        };
        validate_game(item, &source, args, styled, tally, out)?;
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
    /// Counts and writes the game streamed last: valid, with nothing found, so it says
    /// what [`validate_game`] says of it.
    fn write(
        &mut self,
        name: &str,
        args: &Args,
        styled: bool,
        tally: &mut Tally,
        out: &mut dyn Lines,
    ) -> Result<(), CliError> {
        let report = self
            .streamer
            .take_report(args.json)
            .expect("a streamed game has a report");
        tally.games += 1;
        tally.valid += 1;
        if args.json {
            write_json(&report, Some(&self.tags), None, name, out)
        } else {
            let game = Game {
                report: &report,
                record: Some(&self.tags),
                fairness: None,
            };
            // Nothing found: the source is never shown.
            let source = Source {
                path: name,
                text: "",
                start: self.tags.span,
            };
            write_text(&game, &source, args.quiet, styled, out)
        }
    }
}

/// Replays one game read from `source` (or reports why it could not be read), counts it
/// and writes what was found.
fn validate_game(
    item: Result<Record, ParseError>,
    source: &Source<'_>,
    args: &Args,
    styled: bool,
    tally: &mut Tally,
    out: &mut dyn Lines,
) -> Result<(), CliError> {
    tally.games += 1;
    let (report, record) = match item {
        Ok(record) => {
            let options = Options::from_flags(args.lenient_results, args.strict);
            (replay::replay_with(&record, options), Some(record))
        }
        Err(error) => (Report::unreadable(&error), None),
    };
    // A valid record's chance: proven fair, not proven, or broken (then invalid).
    let fairness = record
        .as_ref()
        .filter(|_| report.is_valid())
        .map(fair::check)
        .filter(|fairness| *fairness != Fairness::NoChance);
    let broken = matches!(fairness, Some(Fairness::Broken { .. }));
    if report.is_valid() && !broken {
        tally.valid += 1;
    } else if report.is_unsupported() {
        tally.unsupported += 1;
    } else {
        tally.invalid += 1;
    }
    if args.json {
        write_json(
            &report,
            record.as_ref(),
            fairness.as_ref(),
            source.path,
            out,
        )
    } else {
        let game = Game {
            report: &report,
            record: record.as_ref(),
            fairness: fairness.as_ref(),
        };
        write_text(&game, source, args.quiet, styled, out)
    }
}

/// `--jobs N` above 1: the games of every file, in order, read and replayed by a pool of
/// threads.
///
/// This thread reads each file in blocks of raw bytes and cuts each block at the last game
/// boundary in it, found by looking back from the block's end for a tag line after a line
/// of movetext ([`last_tag_after_movetext`]), or where that finds none, by the reader's own
/// splitter ([`Boundaries`]). It counts the block's newlines so that the next block starts
/// on a known line, and hands the block to one of `jobs` workers through a bounded
/// channel. Each worker reads its block with a reader that starts there ([`Reader::at`]),
/// so the games, findings and spans are those of one reader of the whole file; it replays
/// the games and writes what it found into a buffer of its own, and this thread writes the
/// buffers in the order of the blocks. At most `WINDOW` blocks per worker are read ahead of
/// the output (being replayed, or waiting for their turn to be written), so memory stays
/// flat however large the input.
///
/// Game numbers: a worker does not know how many games came before its block, so it
/// numbers them from the block's first and keeps where each number goes ([`Numbered`]);
/// this thread writes the right numbers in.
///
/// A chunk larger than a block (games without tags one after another, which the reader
/// takes as one chunk from one tag section to the next) is cut into parts at lines that
/// begin with `1.` after a line that ends with a result ([`cut_parts`]); a worker
/// reads the games that start in its part from a copy of the part and `SLACK` bytes more.
/// A game that ran into the end of the copy, or could not be read (an error takes the rest
/// of the chunk), is left to this thread, which reads it again from the whole rest of the
/// chunk; and when the games before a part did not end where the part starts, this thread
/// reads the part again from where they ended, so the output is the same as with
/// `--jobs 1`.
mod parallel {
    use std::collections::BTreeMap;
    use std::io::{self, BufRead, Read, Write};
    use std::path::{Path, PathBuf};
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};

    use memchr::{memchr_iter, memmem, memrchr};

    use super::{
        Args, CliError, Context, Lines, Source, Streamed, Tally, end_file, input, validate_game,
        validate_games,
    };
    use crate::cli::display_path;
    use crate::notation::{
        Boundaries, Chunk, DEFAULT_MAX_GAME_BYTES, Decoded, ReadError, Reader, Span,
    };

    /// The bytes read at a time, and the size of a part of a large chunk.
    const BLOCK: usize = 256 << 10;
    /// Blocks per worker read ahead of the output.
    const WINDOW: usize = 4;
    /// The bytes after its end that a part of a large chunk reads, so that its last game
    /// is read whole.
    const SLACK: usize = 16 << 10;
    /// The byte order mark a reader skips at the start of an input.
    const MARK: &[u8] = b"\xEF\xBB\xBF";

    /// A piece of a file, for a worker.
    struct Job {
        name: Arc<str>,
        work: Work,
    }

    enum Work {
        /// The bytes from a game boundary (or the start of the file) to a game boundary (or
        /// the end), starting at `start`.
        Block { bytes: Vec<u8>, start: Span },
        /// The first bytes of a chunk larger than the game size limit: one game that
        /// cannot be read.
        TooLarge { bytes: Vec<u8>, chunk: Chunk },
        /// The games that start in part `index` of a large chunk.
        Part { chunk: Arc<Large>, index: usize },
    }

    /// One chunk larger than a block, valid UTF-8, cut into parts.
    struct Large {
        text: String,
        /// Where each part starts in the file: the first where the chunk starts, the
        /// others at the start of a line.
        starts: Vec<Span>,
    }

    impl Large {
        /// Part `index` as a range of `text`.
        fn part(&self, index: usize) -> (usize, usize) {
            let base = self.starts[0].offset;
            let from = self.starts[index].offset - base;
            let until = self
                .starts
                .get(index + 1)
                .map_or(self.text.len(), |start| start.offset - base);
            (from, until)
        }
    }

    /// Lines whose game numbers are left out, with where each goes and which game it is,
    /// counted from the piece's first game.
    #[derive(Default)]
    struct Numbered {
        bytes: Vec<u8>,
        numbers: Vec<(usize, usize)>,
    }

    impl Write for Numbered {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.bytes.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Lines for Numbered {
        fn game(&mut self, number: usize) -> io::Result<()> {
            self.numbers.push((self.bytes.len(), number));
            Ok(())
        }
    }

    impl Numbered {
        /// Writes the lines with the games numbered on from `before`, in one piece
        /// (standard output writes at each line's end what it is given in pieces).
        fn write_to(&self, before: usize, out: &mut dyn Write) -> io::Result<()> {
            if self.numbers.is_empty() {
                return out.write_all(&self.bytes);
            }
            let mut lines = Vec::with_capacity(self.bytes.len() + 8 * self.numbers.len());
            let mut from = 0;
            for &(at, number) in &self.numbers {
                lines.extend_from_slice(&self.bytes[from..at]);
                write!(lines, "{}", before + number)?;
                from = at;
            }
            lines.extend_from_slice(&self.bytes[from..]);
            out.write_all(&lines)
        }
    }

    /// What a worker made of a piece.
    struct Written {
        name: Arc<str>,
        lines: Numbered,
        tally: Tally,
        /// Games read (the tally counts them too, but it is empty after an error).
        games: usize,
        /// The first game of the piece that was not UTF-8 (numbered from the piece's
        /// first), if any.
        decoded: Option<Decoded>,
        /// For a part of a large chunk: which, and how far it read.
        part: Option<PartRead>,
    }

    impl Written {
        fn new(name: &Arc<str>) -> Written {
            Written {
                name: Arc::clone(name),
                lines: Numbered::default(),
                tally: Tally::default(),
                games: 0,
                decoded: None,
                part: None,
            }
        }
    }

    /// How far a part of a large chunk was read.
    struct PartRead {
        chunk: Arc<Large>,
        index: usize,
        /// Where the game after its last starts, as an offset of the chunk's text.
        end: usize,
        /// Where a game starts that must be read from the whole rest of the chunk: the
        /// part's copy was too short for it, or it could not be read.
        stopped: Option<usize>,
    }

    /// What a worker made of a piece, or its panic, passed on when the piece's turn to be
    /// written comes.
    type Outcome = std::thread::Result<Result<Written, CliError>>;

    /// What comes out at one place of the output order.
    enum Piece {
        /// A piece's output and counts.
        Done(Outcome),
        /// The end of a file: its summary line.
        EndOfFile(Arc<str>),
        /// Reading stopped: an error to return once everything before it is written.
        Failed(CliError),
    }

    pub(super) fn validate_files(
        files: &[PathBuf],
        jobs: usize,
        args: &Args,
        styled: bool,
        out: &mut dyn Write,
    ) -> Result<Tally, CliError> {
        let (sender, queue) = mpsc::sync_channel::<(usize, Job)>(jobs * WINDOW);
        let queue = Arc::new(Mutex::new(queue));
        let (done, results) = mpsc::channel::<(usize, Outcome)>();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                let queue = Arc::clone(&queue);
                let done = done.clone();
                scope.spawn(move || {
                    let mut worker = Worker::new();
                    loop {
                        // The lock is held only to take the next job.
                        let next = queue.lock().map(|queue| queue.recv());
                        let Ok(Ok((index, job))) = next else {
                            return;
                        };
                        let written =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                worker.run(job, args, styled)
                            }));
                        let panicked = written.is_err();
                        if done.send((index, written)).is_err() || panicked {
                            return;
                        }
                    }
                });
            }
            drop(done);
            let mut pipeline = Pipeline {
                sender: Some(sender),
                results,
                sent: 0,
                jobs: 0,
                received: 0,
                limit: jobs * WINDOW,
                progress: input::Progress::new(files, args.quiet),
                collector: Collector {
                    pending: BTreeMap::new(),
                    next: 0,
                    written: 0,
                    games: 0,
                    decoded: false,
                    file: Tally::default(),
                    total: Tally::default(),
                    large_at: 0,
                    worker: Worker::new(),
                    args,
                    styled,
                },
            };
            let read = files
                .iter()
                .try_for_each(|path| read_file(path, &mut pipeline, out));
            // The workers stop when the jobs run out.
            pipeline.sender = None;
            read?;
            while pipeline.received < pipeline.jobs {
                pipeline.collect_one(out)?;
            }
            Ok(pipeline.collector.total)
        })
    }

    /// The jobs on their way to the workers and the output on its way back.
    struct Pipeline<'a> {
        sender: Option<mpsc::SyncSender<(usize, Job)>>,
        results: mpsc::Receiver<(usize, Outcome)>,
        /// The pieces sent so far (each has its place in the output order).
        sent: usize,
        /// The jobs sent to the workers, and those whose output came back.
        jobs: usize,
        received: usize,
        /// The most jobs whose output is not written yet.
        limit: usize,
        progress: Option<input::Progress>,
        collector: Collector<'a>,
    }

    impl Pipeline<'_> {
        /// Sends a job to the workers, or a piece straight to the output, waiting for the
        /// output of earlier jobs while too many are in flight.
        fn send(&mut self, piece: Result<Job, Piece>, out: &mut dyn Write) -> Result<(), CliError> {
            while self.jobs - self.collector.written >= self.limit {
                self.collect_one(out)?;
            }
            let index = self.sent;
            self.sent += 1;
            match piece {
                Ok(job) => {
                    let sender = self.sender.as_ref().expect("jobs are sent before the end");
                    sender.send((index, job)).expect("workers outlive the jobs");
                    self.jobs += 1;
                    Ok(())
                }
                Err(piece) => self
                    .collector
                    .take(index, piece, self.progress.as_mut(), out),
            }
        }

        /// Waits for one job's output and writes what can be written.
        fn collect_one(&mut self, out: &mut dyn Write) -> Result<(), CliError> {
            let (index, written) = self.results.recv().expect("workers outlive the jobs");
            self.received += 1;
            self.collector
                .take(index, Piece::Done(written), self.progress.as_mut(), out)
        }

        fn send_job(
            &mut self,
            name: &Arc<str>,
            work: Work,
            out: &mut dyn Write,
        ) -> Result<(), CliError> {
            let job = Job {
                name: Arc::clone(name),
                work,
            };
            self.send(Ok(job), out)
        }
    }

    /// Reads one file in blocks cut at game boundaries and sends them in order, then its
    /// end; a read error is sent after the games before it.
    fn read_file(
        path: &Path,
        pipeline: &mut Pipeline<'_>,
        out: &mut dyn Write,
    ) -> Result<(), CliError> {
        let name: Arc<str> = display_path(path).into();
        let mut input = match input::open_bytes(path, pipeline.progress.as_ref()) {
            Ok(input) => input,
            Err(error) => return pipeline.send(Err(Piece::Failed(error)), out),
        };
        let mut file = File {
            input: &mut *input,
            block: Vec::with_capacity(BLOCK + BLOCK / 4),
            start: Span::START,
            ended: false,
        };
        match file.read_blocks(&name, pipeline, out)? {
            None => {
                if let Some(progress) = pipeline.progress.as_mut() {
                    progress.end_file();
                }
                pipeline.send(Err(Piece::EndOfFile(name)), out)
            }
            Some(source) => {
                let error = CliError::Io {
                    path: name.to_string(),
                    source,
                };
                pipeline.send(Err(Piece::Failed(error)), out)
            }
        }
    }

    /// A file being read: the block read so far, from where.
    struct File<'a> {
        input: &'a mut dyn BufRead,
        /// Bytes from `start` on, not sent yet.
        block: Vec<u8>,
        /// Where `block` starts in the file: a game boundary, or the start of the file.
        start: Span,
        /// The input has ended.
        ended: bool,
    }

    impl File<'_> {
        /// Reads into the block until it holds `target` bytes or the input ends.
        fn fill(&mut self, target: usize) -> io::Result<()> {
            while !self.ended && self.block.len() < target {
                let want = (target - self.block.len()) as u64;
                if Read::take(&mut *self.input, want).read_to_end(&mut self.block)? == 0 {
                    self.ended = true;
                }
            }
            Ok(())
        }

        /// Sends the file's blocks; returns the read error that stopped it, if any, after
        /// sending the games before it.
        fn read_blocks(
            &mut self,
            name: &Arc<str>,
            pipeline: &mut Pipeline<'_>,
            out: &mut dyn Write,
        ) -> Result<Option<io::Error>, CliError> {
            if let Err(error) = self.fill(BLOCK) {
                return self.failed(error, name, pipeline, out);
            }
            if self.block.starts_with(MARK) {
                self.block.drain(..MARK.len());
                self.start.offset = MARK.len();
            }
            loop {
                if self.ended {
                    if !self.block.is_empty() {
                        let bytes = std::mem::take(&mut self.block);
                        let start = self.start;
                        pipeline.send_job(name, Work::Block { bytes, start }, out)?;
                    }
                    return Ok(None);
                }
                let cut = last_tag_after_movetext(&self.block)
                    .map(|at| {
                        let line = self.start.line.saturating_add(newlines(&self.block[..at]));
                        let span = Span {
                            offset: self.start.offset + at,
                            line,
                            column: 1,
                        };
                        (at, span)
                    })
                    .or_else(|| last_boundary(&self.block, self.start));
                match cut {
                    Some((at, next)) => self.send_block(at, next, name, pipeline, out)?,
                    None => {
                        if let Some(error) = self.read_large(name, pipeline, out)? {
                            return Ok(Some(error));
                        }
                    }
                }
                if let Some(progress) = pipeline.progress.as_mut() {
                    progress.advance(self.start.offset as u64, 0);
                }
                if let Err(error) = self.fill(BLOCK) {
                    return self.failed(error, name, pipeline, out);
                }
            }
        }

        /// Sends the block's first `at` bytes, and keeps the rest, which starts at `next`.
        fn send_block(
            &mut self,
            at: usize,
            next: Span,
            name: &Arc<str>,
            pipeline: &mut Pipeline<'_>,
            out: &mut dyn Write,
        ) -> Result<(), CliError> {
            let mut rest = Vec::with_capacity(BLOCK + BLOCK / 4);
            rest.extend_from_slice(&self.block[at..]);
            self.block.truncate(at);
            let bytes = std::mem::replace(&mut self.block, rest);
            let start = std::mem::replace(&mut self.start, next);
            pipeline.send_job(name, Work::Block { bytes, start }, out)
        }

        /// A read error: sends the games of the chunks read whole before it.
        fn failed(
            &mut self,
            error: io::Error,
            name: &Arc<str>,
            pipeline: &mut Pipeline<'_>,
            out: &mut dyn Write,
        ) -> Result<Option<io::Error>, CliError> {
            if let Some((at, next)) = last_boundary(&self.block, self.start) {
                self.send_block(at, next, name, pipeline, out)?;
            }
            Ok(Some(error))
        }

        /// The block is the start of one chunk: reads on to its end and sends it, in parts
        /// when it is large; returns a read error that stopped it.
        fn read_large(
            &mut self,
            name: &Arc<str>,
            pipeline: &mut Pipeline<'_>,
            out: &mut dyn Write,
        ) -> Result<Option<io::Error>, CliError> {
            let mut boundaries = Boundaries::at(self.start);
            let mut scanned = 0;
            let next = loop {
                let (used, boundary) =
                    boundaries.scan(&self.block[scanned..], self.start.offset + scanned);
                scanned += used;
                if boundary.is_some() || self.ended {
                    break boundary;
                }
                if self.block.len() > DEFAULT_MAX_GAME_BYTES {
                    return self.read_too_large(boundaries, name, pipeline, out);
                }
                let target = self.block.len() + BLOCK;
                if let Err(error) = self.fill(target) {
                    return Ok(Some(error));
                }
            };
            let at = next.map_or(self.block.len(), |next| next.offset - self.start.offset);
            let rest = self.block.split_off(at);
            let bytes = std::mem::replace(&mut self.block, rest);
            let start = next.map_or(self.start, |next| std::mem::replace(&mut self.start, next));
            match String::from_utf8(bytes) {
                Ok(text) => {
                    let starts = cut_parts(&text, start);
                    if starts.len() < 2 {
                        let bytes = text.into_bytes();
                        return pipeline
                            .send_job(name, Work::Block { bytes, start }, out)
                            .map(|()| None);
                    }
                    let parts = starts.len();
                    let chunk = Arc::new(Large { text, starts });
                    for index in 0..parts {
                        let chunk = Arc::clone(&chunk);
                        pipeline.send_job(name, Work::Part { chunk, index }, out)?;
                    }
                }
                Err(error) => {
                    let bytes = error.into_bytes();
                    pipeline.send_job(name, Work::Block { bytes, start }, out)?;
                }
            }
            Ok(None)
        }

        /// The block is the start of a chunk larger than the game size limit: reads on to
        /// its end, keeping only its first bytes, and sends it as one game that cannot be
        /// read.
        fn read_too_large(
            &mut self,
            mut boundaries: Boundaries,
            name: &Arc<str>,
            pipeline: &mut Pipeline<'_>,
            out: &mut dyn Write,
        ) -> Result<Option<io::Error>, CliError> {
            let mut length = self.block.len();
            self.block.truncate(DEFAULT_MAX_GAME_BYTES);
            let mut kept = std::mem::take(&mut self.block);
            let next = loop {
                self.block.clear();
                if let Err(error) = self.fill(BLOCK) {
                    return Ok(Some(error));
                }
                let (used, boundary) = boundaries.scan(&self.block, self.start.offset + length);
                if let Some(next) = boundary {
                    // The `[` that starts the next game may be the last byte read before.
                    let at = next.offset - self.start.offset;
                    let rest = if at < length {
                        [&b"["[..], &self.block].concat()
                    } else {
                        self.block[at - length..].to_vec()
                    };
                    self.block = rest;
                    length = at;
                    break Some(next);
                }
                length += used;
                if self.ended {
                    self.block.clear();
                    break None;
                }
            };
            kept.shrink_to_fit();
            let chunk = Chunk {
                start: self.start,
                length,
            };
            if let Some(next) = next {
                self.start = next;
            }
            pipeline
                .send_job(name, Work::TooLarge { bytes: kept, chunk }, out)
                .map(|()| None)
        }
    }

    /// The offset of the last tag line in `bytes` (a `[` and a letter at the start of a
    /// line) whose line before, the last that is not blank, begins with movetext in its
    /// first column: a game boundary whatever came before, since after such a line the
    /// reader's splitter is in movetext or in a comment, and a game ends at a tag line in
    /// either. `bytes` start at a game boundary or at the start of the input.
    fn last_tag_after_movetext(bytes: &[u8]) -> Option<usize> {
        'tags: for newline in memmem::rfind_iter(bytes, b"\n[") {
            let tag = newline + 1;
            if !bytes.get(tag + 1).is_some_and(u8::is_ascii_alphabetic) {
                continue;
            }
            let mut end = newline;
            loop {
                let start = memrchr(b'\n', &bytes[..end]).map_or(0, |at| at + 1);
                let line = &bytes[start..end];
                match line.iter().position(|byte| !byte.is_ascii_whitespace()) {
                    None if start == 0 => continue 'tags,
                    None => end = start - 1,
                    Some(0) if !matches!(line[0], b'[' | b'%') => return Some(tag),
                    Some(_) => continue 'tags,
                }
            }
        }
        None
    }

    /// The last game boundary in `bytes`, which start at a game boundary (or the start of
    /// the input) at `start`, as the reader's splitter finds it, and where it is.
    fn last_boundary(bytes: &[u8], start: Span) -> Option<(usize, Span)> {
        let mut boundaries = Boundaries::at(start);
        let mut scanned = 0;
        let mut last = None;
        while scanned < bytes.len() {
            let (used, boundary) = boundaries.scan(&bytes[scanned..], start.offset + scanned);
            scanned += used;
            if let Some(next) = boundary {
                last = Some((next.offset - start.offset, next));
            }
        }
        last
    }

    /// The number of newlines in `bytes`.
    fn newlines(bytes: &[u8]) -> u32 {
        let count = memchr_iter(b'\n', bytes).count();
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// Where to cut a large chunk's text, which starts at `start`, into parts of about a
    /// block: at lines that begin with the move number 1 after a line that ends with a
    /// result, where a game most likely begins. The first part starts at `start`.
    fn cut_parts(text: &str, start: Span) -> Vec<Span> {
        let bytes = text.as_bytes();
        let mut starts = vec![start];
        let (mut counted, mut line, mut from) = (0, start.line, 0);
        while from + BLOCK + BLOCK / 2 < bytes.len() {
            let Some(cut) = memchr_iter(b'\n', &bytes[from + BLOCK..])
                .map(|at| from + BLOCK + at + 1)
                .find(|&cut| begins_a_game(&bytes[cut..]) && ends_with_result(&bytes[..cut]))
            else {
                break;
            };
            line = line.saturating_add(newlines(&bytes[counted..cut]));
            counted = cut;
            starts.push(Span {
                offset: start.offset + cut,
                line,
                column: 1,
            });
            from = cut;
        }
        starts
    }

    /// Whether `bytes` begin with the move number 1.
    fn begins_a_game(bytes: &[u8]) -> bool {
        bytes.starts_with(b"1.") && !bytes.get(2).is_some_and(u8::is_ascii_digit)
    }

    /// Whether the last word of `bytes` is a result.
    fn ends_with_result(bytes: &[u8]) -> bool {
        let end = bytes
            .iter()
            .rposition(|byte| !byte.is_ascii_whitespace())
            .map_or(0, |at| at + 1);
        let bytes = &bytes[..end];
        ["1-0", "0-1", "1/2-1/2", "*"].iter().any(|result| {
            bytes.ends_with(result.as_bytes())
                && bytes
                    .len()
                    .checked_sub(result.len() + 1)
                    .is_none_or(|before| bytes[before].is_ascii_whitespace())
        })
    }

    /// A worker's reader of fed chunks and its streamer, kept from job to job.
    struct Worker {
        fed: Reader<io::Empty>,
        streamed: Streamed,
    }

    impl Worker {
        fn new() -> Worker {
            Worker {
                fed: Reader::for_chunks(),
                streamed: Streamed::default(),
            }
        }

        fn run(&mut self, job: Job, args: &Args, styled: bool) -> Result<Written, CliError> {
            let context = Context {
                name: &job.name,
                args,
                styled,
            };
            let mut written = Written::new(&job.name);
            match job.work {
                Work::Block { bytes, start } => {
                    let mut reader =
                        Reader::at(&bytes[..], start).with_fallback_encoding(args.input.encoding.0);
                    validate_games(
                        &mut reader,
                        context,
                        &mut self.streamed,
                        &mut written.tally,
                        &mut written.lines,
                        &mut |_| {},
                    )?;
                    written.games = reader.games_read();
                    written.decoded = reader.decoded();
                }
                Work::TooLarge { bytes, chunk } => {
                    let reader = &mut self.fed;
                    reader.forget_decoded();
                    reader.set_fallback_encoding(args.input.encoding.0);
                    if let Err(error) = reader.feed(&bytes, chunk, 0) {
                        let (text, start) = reader.game_text();
                        let source = Source {
                            path: &job.name,
                            text,
                            start,
                        };
                        validate_game(
                            Err(error),
                            &source,
                            args,
                            styled,
                            &mut written.tally,
                            &mut written.lines,
                        )?;
                    }
                    written.games = reader.games_read();
                }
                Work::Part { chunk, index } => {
                    return self.read_part(context, chunk, index, None);
                }
            }
            Ok(written)
        }

        /// Reads the games that start in part `index` of a large chunk, from `from` (an
        /// offset of the chunk's text where a game starts) or from the part's start: from
        /// a copy of the part and `SLACK` bytes more, or of the whole rest of the chunk
        /// when `from` is given.
        fn read_part(
            &mut self,
            context: Context<'_>,
            chunk: Arc<Large>,
            index: usize,
            from: Option<usize>,
        ) -> Result<Written, CliError> {
            let Context { name, args, styled } = context;
            let name: Arc<str> = name.into();
            let mut written = Written::new(&name);
            let text = &chunk.text;
            let (start, until) = chunk.part(index);
            let mut end = if from.is_some() {
                text.len()
            } else {
                (until + SLACK).min(text.len())
            };
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let whole = end == text.len();
            let base = chunk.starts[0].offset;
            let from = from.unwrap_or(start);
            let reader = &mut self.fed;
            reader.forget_decoded();
            reader.set_fallback_encoding(None);
            let fed = Chunk {
                start: chunk.starts[index],
                length: end - start,
            };
            let mut stopped = None;
            if reader.feed(&text.as_bytes()[start..end], fed, 0).is_err() {
                stopped = Some(from);
            } else {
                reader.skip_to(base + from);
            }
            let streamed = &mut self.streamed;
            while stopped.is_none() {
                let at = reader.next_offset() - base;
                if at >= until {
                    break;
                }
                let Some(item) = reader.next_streamed(&mut streamed.tags, &mut streamed.streamer)
                else {
                    // Only blanks are left in the copy.
                    if !whole {
                        stopped = Some(at);
                    }
                    break;
                };
                let after = reader.next_offset() - base;
                // A game read whole, or an error, from a copy that is not cut short.
                let sure = whole || (item.is_ok() && after < end);
                if !sure {
                    stopped = Some(at);
                    break;
                }
                written.games += 1;
                let item = match item {
                    Ok(None) => {
                        streamed.write(
                            &name,
                            args,
                            styled,
                            &mut written.tally,
                            &mut written.lines,
                        )?;
                        continue;
                    }
                    Ok(Some(record)) => Ok(record),
                    Err(ReadError::Parse(error)) => Err(error),
                    Err(ReadError::Io(source)) => {
                        return Err(CliError::Io {
                            path: name.to_string(),
                            source,
                        });
                    }
                };
                let (game_text, game_start) = reader.game_text();
                let source = Source {
                    path: &name,
                    text: game_text,
                    start: game_start,
                };
                validate_game(
                    item,
                    &source,
                    args,
                    styled,
                    &mut written.tally,
                    &mut written.lines,
                )?;
            }
            let end = reader.next_offset() - base;
            written.part = Some(PartRead {
                chunk,
                index,
                end,
                stopped,
            });
            Ok(written)
        }
    }

    /// Writes the pieces in order as they arrive in any order.
    struct Collector<'a> {
        pending: BTreeMap<usize, Piece>,
        next: usize,
        /// The jobs whose output is written.
        written: usize,
        /// Games of the file being written so far.
        games: usize,
        /// Whether the file being written was said not to be UTF-8.
        decoded: bool,
        /// The counts of the file being written.
        file: Tally,
        total: Tally,
        /// How far the large chunk being written has been read, as an offset of its text.
        large_at: usize,
        /// For the games of a large chunk that must be read again.
        worker: Worker,
        args: &'a Args,
        styled: bool,
    }

    impl Collector<'_> {
        fn take(
            &mut self,
            index: usize,
            piece: Piece,
            mut progress: Option<&mut input::Progress>,
            out: &mut dyn Write,
        ) -> Result<(), CliError> {
            self.pending.insert(index, piece);
            while let Some(piece) = self.pending.remove(&self.next) {
                self.next += 1;
                match piece {
                    Piece::Done(written) => {
                        self.written += 1;
                        let mut written =
                            written.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
                        match written.part.take() {
                            None => self.write(&written, progress.as_deref_mut(), out)?,
                            Some(part) => {
                                self.write_part(written, part, progress.as_deref_mut(), out)?;
                            }
                        }
                    }
                    Piece::EndOfFile(name) => {
                        let file = std::mem::take(&mut self.file);
                        self.games = 0;
                        self.decoded = false;
                        end_file(&name, file, self.args, &mut self.total, out)?;
                    }
                    Piece::Failed(error) => return Err(error),
                }
            }
            Ok(())
        }

        /// Writes a piece's lines with the games numbered on from those before.
        fn write(
            &mut self,
            written: &Written,
            progress: Option<&mut input::Progress>,
            out: &mut dyn Write,
        ) -> Result<(), CliError> {
            if !self.decoded
                && let Some(decoded) = written.decoded
            {
                self.decoded = true;
                let game = self.games + decoded.game;
                input::warn_decoded_at(&written.name, Decoded { game, ..decoded });
            }
            written.lines.write_to(self.games, out)?;
            self.games += written.games;
            self.file.add(written.tally);
            if let Some(progress) = progress {
                progress.advance(0, written.games as u64);
            }
            Ok(())
        }

        /// Writes what a worker read of a part of a large chunk, reading again what it
        /// could not be sure of.
        fn write_part(
            &mut self,
            written: Written,
            part: PartRead,
            mut progress: Option<&mut input::Progress>,
            out: &mut dyn Write,
        ) -> Result<(), CliError> {
            let (start, until) = part.chunk.part(part.index);
            if part.index == 0 {
                self.large_at = 0;
            }
            let again = if self.large_at == start {
                self.write(&written, progress.as_deref_mut(), out)?;
                self.large_at = part.end;
                part.stopped
            } else if self.large_at < until {
                Some(self.large_at)
            } else {
                // Its games were read with the games before it.
                None
            };
            if let Some(from) = again {
                let context = Context {
                    name: &written.name,
                    args: self.args,
                    styled: self.styled,
                };
                let mut again =
                    self.worker
                        .read_part(context, part.chunk, part.index, Some(from))?;
                let read = again.part.take().expect("a part says how far it read");
                self.write(&again, progress, out)?;
                self.large_at = read.end;
            }
            Ok(())
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Every game boundary the reader's splitter finds in `text`.
        fn boundaries(text: &str) -> Vec<usize> {
            let mut boundaries = Boundaries::at(Span::START);
            let (mut scanned, mut found) = (0, Vec::new());
            while scanned < text.len() {
                let (used, boundary) = boundaries.scan(&text.as_bytes()[scanned..], scanned);
                scanned += used;
                found.extend(boundary.map(|span| span.offset));
            }
            found
        }

        #[test]
        fn a_tag_line_after_a_line_of_movetext_is_a_boundary() {
            // The text, and the tag line found (by its first characters).
            let cases = [
                (
                    "[A \"1\"]\n\n1. e4 *\n\n[B \"2\"]\n[C \"3\"]\n\n1. d4 *\n",
                    Some("[B"),
                ),
                // In a comment that is never closed.
                ("1. e4 {a\n[b]}\n\n  \n[Event \"x\"]\n", Some("[b]")),
                ("[A \"1\"]\n[B \"2\"] 1. e4 *\n[C \"3\"]\n", None),
                ("% x\n[A \"1\"]\n", None),
                ("1. e4 *\n[ \"x\"]\n", None),
                ("\n\n[A \"1\"]\n", None),
                ("1. e4 *\n  1. d4 *\n[A \"1\"]\n", None),
            ];
            for (text, tag) in cases {
                let found = last_tag_after_movetext(text.as_bytes());
                assert_eq!(found, tag.map(|tag| text.find(tag).unwrap()), "{text:?}");
                if let Some(at) = found {
                    assert!(boundaries(text).contains(&at), "{text:?}");
                }
            }
        }

        #[test]
        fn a_large_chunk_is_cut_where_a_game_begins_after_a_result() {
            // A cut may fall in a comment: the pool reads such a part again.
            let games = [
                "1. e4 e5 2. Nf3 1-0",
                "1. d4 {a 0-1\n1. c4 b} d5 *",
                "1. c4 e5",
            ];
            let text: Vec<&str> = (0..80_000).map(|n| games[n % games.len()]).collect();
            let text = text.join("\n\n");
            let starts = cut_parts(&text, Span::START);
            assert!(starts.len() > 3, "{}", starts.len());
            for pair in starts.windows(2) {
                let (before, at) = (pair[0].offset, pair[1].offset);
                assert!(at - before >= BLOCK);
                assert!(text[at..].starts_with("1. ") && text[..at].ends_with('\n'));
                assert!(ends_with_result(&text.as_bytes()[..at]));
                let lines = text[..at].matches('\n').count() + 1;
                assert_eq!(pair[1].line as usize, lines);
            }
            assert!(text.len() - starts.last().unwrap().offset > BLOCK / 2);
            for (text, result) in [
                ("1. e4 1-0\n \n", true),
                ("1. e4 *", true),
                ("e4 11-0\n", false),
            ] {
                assert_eq!(ends_with_result(text.as_bytes()), result, "{text:?}");
            }
        }
    }
}

/// One game's findings for the text output.
struct Game<'a> {
    report: &'a Report,
    record: Option<&'a Record>,
    fairness: Option<&'a Fairness>,
}

fn write_json(
    report: &Report,
    record: Option<&Record>,
    fairness: Option<&Fairness>,
    name: &str,
    out: &mut dyn Lines,
) -> Result<(), CliError> {
    for finding in &report.findings {
        let line = FindingLine {
            line: finding.span.line,
            column: finding.span.column,
            finding,
        };
        write_json_line("finding", name, report.game, &line, out)?;
    }
    let errors = report.errors().count();
    let line = GameLine {
        status: if matches!(fairness, Some(Fairness::Broken { .. })) {
            "invalid"
        } else {
            status_word(report)
        },
        variant: report.variant.map(|variant| variant.name()),
        plies: report.plies,
        result: record.and_then(|record| record.tag("Result")),
        outcome: report.outcome.map(|outcome| outcome.to_string()),
        final_position: report.final_position.as_deref(),
        chance: fairness.map(ToString::to_string),
        errors,
        warnings: report.findings.len() - errors,
    };
    write_json_line("game", name, report.game, &line, out)
}

/// Writes one JSON line: `type`, `file` and `game`, then the fields of `rest` (an object
/// with at least one field).
fn write_json_line(
    kind: &str,
    name: &str,
    game: usize,
    rest: &impl Serialize,
    out: &mut dyn Lines,
) -> Result<(), CliError> {
    write!(out, "{{\"type\":\"{kind}\",\"file\":")?;
    serde_json::to_writer(&mut *out, name).map_err(std::io::Error::from)?;
    out.write_all(b",\"game\":")?;
    out.game(game)?;
    let rest = serde_json::to_vec(rest).map_err(std::io::Error::from)?;
    out.write_all(b",")?;
    out.write_all(rest.get(1..).unwrap_or_default())?;
    writeln!(out)?;
    Ok(())
}

fn status_word(report: &Report) -> &'static str {
    if report.is_valid() {
        "valid"
    } else if report.is_unsupported() {
        "unsupported"
    } else {
        "invalid"
    }
}

fn write_text(
    game: &Game<'_>,
    source: &Source<'_>,
    quiet: bool,
    styled: bool,
    out: &mut dyn Lines,
) -> Result<(), CliError> {
    let (report, record) = (game.report, game.record);
    let broken = matches!(game.fairness, Some(Fairness::Broken { .. }));
    let valid = report.is_valid() && !broken;
    if quiet && valid && report.findings.is_empty() {
        return Ok(());
    }
    let described = record.map(describe_game).unwrap_or_default();
    if report.is_unsupported() {
        // Not a mistake in the record: one line says which game it is and where.
        if let Some(finding) = report.findings.first() {
            let span = finding.span;
            write!(out, "{}:{}:{}: game ", source.path, span.line, span.column)?;
            out.game(report.game)?;
            writeln!(
                out,
                "{described}: {}",
                super::escape_controls(&finding.message)
            )?;
        }
        return Ok(());
    }
    for finding in &report.findings {
        let rendered = diagnostic::render(finding, report.game, source, styled);
        // The title starts with the game's number.
        let number = format!("game {}", report.game);
        match rendered.find(&number) {
            Some(at) => {
                out.write_all(&rendered.as_bytes()[..at + "game ".len()])?;
                out.game(report.game)?;
                writeln!(out, "{}", &rendered[at + number.len()..])?;
            }
            None => writeln!(out, "{rendered}")?,
        }
    }
    if quiet && valid {
        return Ok(());
    }
    let mut line = described;
    line.push_str(": ");
    line.push_str(if broken {
        "invalid"
    } else {
        status_word(report)
    });
    line.push_str(&format!(
        ", {} pl{}",
        report.plies,
        if report.plies == 1 { "y" } else { "ies" }
    ));
    if valid {
        if let Some(result) = record.and_then(|record| record.tag("Result")) {
            line.push_str(&format!(", {result}"));
        }
        if let Some(outcome) = report.outcome {
            line.push_str(&format!(" ({outcome})"));
        }
    } else if broken {
        line.push_str(" (1 error)");
    } else {
        let errors = report.errors().count();
        line.push_str(&format!(
            " ({errors} error{})",
            if errors == 1 { "" } else { "s" }
        ));
    }
    if let Some(fairness) = game.fairness {
        line.push_str(&format!("; {fairness}"));
    }
    write!(out, "{}: game ", source.path)?;
    out.game(report.game)?;
    writeln!(out, "{line}")?;
    Ok(())
}

/// ` (White - Black, Event Date)` from the tags that are known.
fn describe_game(record: &Record) -> String {
    let known = |name: &str| {
        record
            .tag(name)
            .map(str::trim)
            .filter(|value| !value.is_empty() && !value.starts_with('?'))
    };
    let mut parts = Vec::new();
    if let (Some(white), Some(black)) = (known("White"), known("Black")) {
        parts.push(format!("{white} - {black}"));
    }
    let place: Vec<&str> = [known("Event"), known("Date")]
        .into_iter()
        .flatten()
        .collect();
    if !place.is_empty() {
        parts.push(place.join(" "));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", super::escape_controls(&parts.join(", ")))
    }
}
