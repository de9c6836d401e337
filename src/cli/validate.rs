//! `pbem validate`: replay every game of every file and report what is wrong.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use serde::Serialize;

use super::diagnostic::{self, Source};
use super::{CliError, Status, display_path, input};
use crate::fair::{self, Fairness};
use crate::games::chess::Chess;
use crate::notation::{ParseError, ReadError, Record};
use crate::replay::stream::Streamer;
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
    /// Take `*` on a game that has ended, and turns after a dead position or another
    /// end the rules impose while turns are still possible, as warnings (archives of
    /// over-the-board games write them).
    #[arg(long)]
    pub lenient_results: bool,
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

/// One JSON line about a game.
#[derive(Serialize)]
struct GameLine<'a> {
    r#type: &'static str,
    file: &'a str,
    game: usize,
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

/// One JSON line about a finding.
#[derive(Serialize)]
struct FindingLine<'a> {
    r#type: &'static str,
    file: &'a str,
    game: usize,
    line: u32,
    column: u32,
    #[serde(flatten)]
    finding: &'a Finding,
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
    let mut streamed = Streamed::default();
    while let Some(item) = reader.next_streamed(&mut streamed.tags, &mut streamed.streamer) {
        input::warn_decoded(&reader, name, &mut warned);
        if let Some(progress) = progress.as_deref_mut() {
            progress.game(&reader);
        }
        let item = match item {
            Ok(None) => {
                streamed.write(name, args, styled, &mut tally, out)?;
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
        validate_game(item, &source, args, styled, &mut tally, out)?;
    }
    if let Some(progress) = progress {
        progress.end_file();
    }
    Ok(tally)
}

/// The games of orthodox chess that the reader streams (most of them): replayed as they
/// are read, without a record (see [`replay::stream`]).
#[derive(Default)]
struct Streamed {
    streamer: Streamer<Chess>,
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
        out: &mut dyn Write,
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
    out: &mut dyn Write,
) -> Result<(), CliError> {
    tally.games += 1;
    let (report, record) = match item {
        Ok(record) => {
            let options = Options {
                lenient_results: args.lenient_results,
            };
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
/// This thread only splits each file into chunks at game boundaries
/// ([`Reader::next_chunk`](crate::notation::Reader::next_chunk): no parsing) and cuts them
/// into batches of raw bytes, which go to `jobs` workers through a bounded channel; each
/// worker parses its batch ([`Reader::feed`](crate::notation::Reader::feed)), replays the
/// games and writes what it found into a buffer of its own, and this thread writes the
/// buffers in the order of the batches. At most `WINDOW` batches per worker are read ahead
/// of the output, so memory stays flat however large the input.
///
/// Game numbers: a batch numbers its games on from the chunks before it, since a chunk is
/// one game but for rare ones (several games without tags, or none). When a worker finds
/// that the games before its batch were not as many as the chunks, this thread replays the
/// batch again with the right numbers, so the output is the same as with `--jobs 1`.
mod parallel {
    use std::collections::BTreeMap;
    use std::io::Write;
    use std::path::PathBuf;
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};

    use super::{Args, CliError, Source, Streamed, Tally, end_file, input, validate_game};
    use crate::cli::display_path;
    use crate::notation::{Chunk, Decoded, Reader};

    /// Batches in flight per worker.
    const WINDOW: usize = 4;
    /// A batch is cut after this many chunks or this many bytes.
    const BATCH_CHUNKS: usize = 64;
    const BATCH_BYTES: usize = 64 << 10;

    /// Chunks of one file, read in order, as raw bytes.
    struct Batch {
        name: Arc<str>,
        /// The game number before the batch's first, if each chunk before it is one game.
        games_before: usize,
        /// Each chunk, as a range of `bytes` with where it was in the file.
        chunks: Vec<(std::ops::Range<usize>, Chunk)>,
        bytes: Vec<u8>,
    }

    /// What a worker made of a batch.
    struct Replayed {
        output: Vec<u8>,
        tally: Tally,
        /// Games read (the tally counts them too, but it is empty after an error).
        games: usize,
        /// The first game of the batch that was not UTF-8, if any.
        decoded: Option<Decoded>,
        /// The batch, kept to replay it again if it was numbered wrong.
        batch: Batch,
    }

    /// What comes out at one place of the output order.
    enum Piece {
        /// A batch's output and counts.
        Done(Result<Replayed, CliError>),
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
        let (batches, queue) = mpsc::sync_channel::<(usize, Batch)>(jobs * WINDOW);
        let queue = Arc::new(Mutex::new(queue));
        let (done, results) = mpsc::channel::<(usize, Piece)>();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                let queue = Arc::clone(&queue);
                let done = done.clone();
                scope.spawn(move || {
                    let mut reader = Reader::for_chunks();
                    let mut streamed = Streamed::default();
                    loop {
                        // The lock is held only to take the next batch.
                        let next = queue.lock().map(|queue| queue.recv());
                        let Ok(Ok((index, batch))) = next else {
                            return;
                        };
                        let piece = Piece::Done(run_batch(
                            &mut reader,
                            &mut streamed,
                            batch,
                            None,
                            args,
                            styled,
                        ));
                        if done.send((index, piece)).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(done);
            let mut collector = Collector {
                pending: BTreeMap::new(),
                next: 0,
                games: 0,
                decoded: false,
                file: Tally::default(),
                total: Tally::default(),
                reader: Reader::for_chunks(),
                streamed: Streamed::default(),
                styled,
            };
            let mut sent = 0;
            let mut in_flight = 0;
            let mut send = |piece: Result<Batch, Piece>,
                            collector: &mut Collector,
                            out: &mut dyn Write|
             -> Result<(), CliError> {
                while in_flight >= jobs * WINDOW {
                    let (index, piece) = results.recv().expect("workers outlive the batches");
                    in_flight -= 1;
                    collector.take(index, piece, args, out)?;
                }
                match piece {
                    Ok(batch) => {
                        batches
                            .send((sent, batch))
                            .expect("workers outlive the batches");
                        in_flight += 1;
                    }
                    Err(piece) => collector.take(sent, piece, args, out)?,
                }
                sent += 1;
                Ok(())
            };
            let mut progress = input::Progress::new(files, args.quiet);
            let read = read_files(files, progress.as_mut(), &mut |piece| {
                send(piece, &mut collector, out)
            });
            drop(batches);
            let stopped = read.err();
            for (index, piece) in results.iter() {
                if stopped.is_none() {
                    collector.take(index, piece, args, out)?;
                }
            }
            match stopped {
                Some(error) => Err(error),
                None => Ok(collector.total),
            }
        })
    }

    /// Splits every file into batches of chunks and end-of-file marks, handed to `send`
    /// in order.
    fn read_files(
        files: &[PathBuf],
        mut progress: Option<&mut input::Progress>,
        send: &mut dyn FnMut(Result<Batch, Piece>) -> Result<(), CliError>,
    ) -> Result<(), CliError> {
        for path in files {
            let name: Arc<str> = display_path(path).into();
            // Chunks are raw bytes: the workers decode them.
            let mut reader =
                match input::open_with(path, input::Fallback(None), progress.as_deref()) {
                    Ok(reader) => reader,
                    Err(error) => return send(Err(Piece::Failed(error))),
                };
            let mut chunks = 0;
            let mut batch = Batch::new(&name, 0);
            loop {
                let from = batch.bytes.len();
                let chunk = match reader.next_chunk(&mut batch.bytes) {
                    None => break,
                    Some(Ok(chunk)) => chunk,
                    Some(Err(source)) => {
                        batch.bytes.truncate(from);
                        if !batch.chunks.is_empty() {
                            send(Ok(batch))?;
                        }
                        let error = CliError::Io {
                            path: name.to_string(),
                            source,
                        };
                        return send(Err(Piece::Failed(error)));
                    }
                };
                if let Some(progress) = progress.as_deref_mut() {
                    progress.game_ending_at((chunk.start.offset + chunk.length) as u64);
                }
                chunks += 1;
                batch.chunks.push((from..batch.bytes.len(), chunk));
                if batch.chunks.len() >= BATCH_CHUNKS || batch.bytes.len() >= BATCH_BYTES {
                    send(Ok(std::mem::replace(&mut batch, Batch::new(&name, chunks))))?;
                }
            }
            if !batch.chunks.is_empty() {
                send(Ok(batch))?;
            }
            if let Some(progress) = progress.as_deref_mut() {
                progress.end_file();
            }
            send(Err(Piece::EndOfFile(name)))?;
        }
        Ok(())
    }

    impl Batch {
        fn new(name: &Arc<str>, games_before: usize) -> Batch {
            Batch {
                name: Arc::clone(name),
                games_before,
                chunks: Vec::new(),
                bytes: Vec::with_capacity(BATCH_BYTES + (BATCH_BYTES >> 2)),
            }
        }
    }

    /// Reads and replays a batch's games, numbered on from `games_before` (by default the
    /// batch's own guess), writing what is found into a buffer.
    fn run_batch(
        reader: &mut Reader<std::io::Empty>,
        streamed: &mut Streamed,
        batch: Batch,
        games_before: Option<usize>,
        args: &Args,
        styled: bool,
    ) -> Result<Replayed, CliError> {
        let reader = {
            reader.forget_decoded();
            reader.set_fallback_encoding(args.input.encoding.0);
            reader
        };
        let mut output = Vec::new();
        let mut tally = Tally::default();
        let mut games = games_before.unwrap_or(batch.games_before);
        let first = games;
        for (range, chunk) in &batch.chunks {
            let fed = reader.feed(&batch.bytes[range.clone()], *chunk, games);
            if let Err(error) = fed {
                let (text, start) = reader.game_text();
                let source = Source {
                    path: &batch.name,
                    text,
                    start,
                };
                validate_game(Err(error), &source, args, styled, &mut tally, &mut output)?;
            }
            while let Some(item) = reader.next_streamed(&mut streamed.tags, &mut streamed.streamer)
            {
                let item = match item {
                    Ok(None) => {
                        streamed.write(&batch.name, args, styled, &mut tally, &mut output)?;
                        continue;
                    }
                    Ok(Some(record)) => Ok(record),
                    Err(error) => Err(error),
                };
                let item = item.map_err(|error| match error {
                    crate::notation::ReadError::Parse(error) => error,
                    crate::notation::ReadError::Io(_) => {
                        unreachable!("a fed reader reads no input")
                    }
                });
                let (text, start) = reader.game_text();
                let source = Source {
                    path: &batch.name,
                    text,
                    start,
                };
                validate_game(item, &source, args, styled, &mut tally, &mut output)?;
            }
            games = reader.games_read();
        }
        Ok(Replayed {
            output,
            tally,
            games: games - first,
            decoded: reader.decoded(),
            batch,
        })
    }

    /// Writes the pieces in order as they arrive in any order.
    struct Collector {
        pending: BTreeMap<usize, Piece>,
        next: usize,
        /// Games of the file being written so far.
        games: usize,
        /// Whether the file being written was said not to be UTF-8.
        decoded: bool,
        /// The counts of the file being written.
        file: Tally,
        total: Tally,
        /// For the batches that must be replayed again with other game numbers.
        reader: Reader<std::io::Empty>,
        streamed: Streamed,
        styled: bool,
    }

    impl Collector {
        fn take(
            &mut self,
            index: usize,
            piece: Piece,
            args: &Args,
            out: &mut dyn Write,
        ) -> Result<(), CliError> {
            self.pending.insert(index, piece);
            while let Some(piece) = self.pending.remove(&self.next) {
                self.next += 1;
                match piece {
                    Piece::Done(replayed) => {
                        let mut replayed = replayed?;
                        if replayed.batch.games_before != self.games {
                            replayed = run_batch(
                                &mut self.reader,
                                &mut self.streamed,
                                replayed.batch,
                                Some(self.games),
                                args,
                                self.styled,
                            )?;
                        }
                        if !self.decoded
                            && let Some(decoded) = replayed.decoded
                        {
                            self.decoded = true;
                            input::warn_decoded_at(&replayed.batch.name, decoded);
                        }
                        out.write_all(&replayed.output)?;
                        self.games += replayed.games;
                        self.file.add(replayed.tally);
                    }
                    Piece::EndOfFile(name) => {
                        let file = std::mem::take(&mut self.file);
                        self.games = 0;
                        self.decoded = false;
                        end_file(&name, file, args, &mut self.total, out)?;
                    }
                    Piece::Failed(error) => return Err(error),
                }
            }
            Ok(())
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
    out: &mut dyn Write,
) -> Result<(), CliError> {
    for finding in &report.findings {
        let line = FindingLine {
            r#type: "finding",
            file: name,
            game: report.game,
            line: finding.span.line,
            column: finding.span.column,
            finding,
        };
        serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)?;
        writeln!(out)?;
    }
    let errors = report.errors().count();
    let line = GameLine {
        r#type: "game",
        file: name,
        game: report.game,
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
    serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)?;
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
    out: &mut dyn Write,
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
            writeln!(
                out,
                "{}:{}:{}: game {}{described}: {}",
                source.path,
                span.line,
                span.column,
                report.game,
                super::escape_controls(&finding.message)
            )?;
        }
        return Ok(());
    }
    let mut line = format!("{}: game {}{described}", source.path, report.game);
    for finding in &report.findings {
        writeln!(
            out,
            "{}",
            diagnostic::render(finding, report.game, source, styled)
        )?;
    }
    if quiet && valid {
        return Ok(());
    }
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
